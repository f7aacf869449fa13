"""`boardq play hex` through a pipe: the person joins top and bottom down column a."""

from __future__ import annotations

import re

from boardq_games import get_game

GAME = get_game("hex")


def test_a_scripted_game_won_top_to_bottom(tmp_path, preference_agent, boardq_run, played):
    column_g = [row * 7 + 6 for row in range(7)]
    preference_agent(tmp_path / "agent.npz", GAME, column_g)
    script = [f"a{row}" for row in range(1, 8)] + ["n"]
    out = played(boardq_run(["play", "hex", "--agent", "agent.npz", "--ascii"],
                            "\n".join(script) + "\n", tmp_path))  # fmt: skip
    assert "agent (O) plays g1" in out and "agent (O) plays g6" in out
    assert " 2   X  .  .  .  .  .  O   2" in out  # each row half a cell right of the last
    assert " 7 " + " " * 9 + "[X] .  .  .  .  .  .   7" in out
    assert "You win!" in out and "score: you won 1, drew 0, lost 0" in out


def test_the_search_blocks_the_persons_winning_cell(tmp_path, preference_agent, boardq_run, played):
    # The network alone plays down column g (the first test) and lets a1-a6 win at a7.
    column_g = [row * 7 + 6 for row in range(7)]
    preference_agent(tmp_path / "agent.npz", GAME, column_g)
    script = [f"a{row}" for row in range(1, 7)] + ["quit"]
    out = played(boardq_run(["play", "hex", "--agent", "agent.npz", "--ascii", "--search", "2"],
                            "\n".join(script) + "\n", tmp_path))  # fmt: skip
    assert "agent (O) plays g5 (searched" in out
    assert re.search(r"agent \(O\) plays a7 \(searched \d+\.\d\d s\)", out)
