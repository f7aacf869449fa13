"""`boardq play go` through a pipe: one stone, two passes, and the area count."""

from __future__ import annotations

import re

from boardq_games import get_game

GAME = get_game("go")


def test_a_scripted_game_ended_by_two_passes(tmp_path, preference_agent, boardq_run, played):
    preference_agent(tmp_path / "agent.npz", GAME, [81])  # the agent passes when it can
    script = ["i5", "d4", "moves", "PASS", "n"]
    out = played(boardq_run(["play", "go", "--agent", "agent.npz", "--ascii"],
                            "\n".join(script) + "\n", tmp_path))  # fmt: skip
    assert "there is no point i5: columns are A-J (no I), rows 1-9" in out
    assert "agent (O) plays pass" in out
    assert "    A  B  C  D  E  F  G  H  J" in out
    assert " 4  +  +  +  X  +  +  +  +  +   4" in out
    legal = out.split("legal moves: ")[-1].splitlines()[0].split()  # after "moves"
    assert legal[:2] == ["A9", "B9"] and legal[-1] == "pass" and "D4" not in legal
    assert "You win!" in out  # black holds the whole board by area, more than komi's 7.5


def test_the_search_does_not_pass_into_a_lost_count(tmp_path, preference_agent, boardq_run, played):
    # The network alone passes (the first test); two plies ahead, black would pass back
    # and win the count, so the searching agent plays a stone (the first point, A9).
    preference_agent(tmp_path / "agent.npz", GAME, [81])
    out = played(boardq_run(["play", "go", "--agent", "agent.npz", "--ascii", "--search", "2"],
                            "d4\nquit\n", tmp_path))  # fmt: skip
    assert "searching 2 moves ahead" in out
    assert re.search(r"agent \(O\) plays A9 \(searched \d+\.\d\d s\)", out)
