"""`boardq play othello` through a pipe: squares by name, a refused pass, hints and undo."""

from __future__ import annotations

from boardq_games import get_game

GAME = get_game("othello")


def square(name: str) -> int:
    return GAME.text.parse(name, [True] * 65)


def test_a_scripted_game_with_bad_input_hints_undo_and_quit(
    tmp_path, preference_agent, boardq_run, played
):
    taste = [square(s) for s in ("c3", "e3", "c5", "f6", "d6", "f4")]
    preference_agent(tmp_path / "agent.npz", GAME, taste)
    script = ["d3", "pass", "z9", "hint", "help", "undo", "F5", "moves", "quit"]
    out = played(boardq_run(["play", "othello", "--agent", "agent.npz"],
                            "\n".join(script) + "\n", tmp_path))  # fmt: skip
    assert "Othello against the agent in agent.npz" in out
    assert "Game 1: you are ● and move first; the agent is ○." in out
    assert "agent (○) plays c3" in out  # after d3: its favourite
    assert "agent (○) plays f6" in out  # after f5 (d3 taken back): c3, e3, c5 are not legal
    assert " 3  ·  · [○] ●  ·  ·  ·  ·   3" in out  # c3 flipped d4 back
    assert " 4  ·  ·  ·  ○  ●  ·  ·  ·   4" in out
    assert "you cannot pass while you have a move" in out
    assert "there is no point z9: columns are a-h, rows 1-8" in out
    assert "the agent's values of your moves: " in out and "then the row number" in out
    assert "took back your last move and the agent's reply" in out
    assert "legal moves: " in out and out.rstrip().endswith("bye")
