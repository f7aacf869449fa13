"""`boardq play gomoku` through a pipe: the person makes five while the agent looks away."""

from __future__ import annotations

from boardq_games import get_game

GAME = get_game("gomoku")


def test_a_scripted_game_won_with_bad_input_hints_and_undo(
    tmp_path, preference_agent, boardq_run, played
):
    top_row = [GAME.text.parse(f"{c}9", [True] * 81) for c in "abcdefghi"]
    preference_agent(tmp_path / "agent.npz", GAME, top_row)
    script = ["j1", "e5x", "a1", "b1", "hint", "moves", "undo", "B1", "c1", "d1", "e1", "n"]
    out = played(boardq_run(["play", "gomoku", "--agent", "agent.npz", "--ascii"],
                            "\n".join(script) + "\n", tmp_path))  # fmt: skip
    assert "there is no point j1: columns are a-i, rows 1-9" in out
    assert "'e5x' is not a move" in out
    assert "agent (O) plays a9" in out and "agent (O) plays d9" in out
    assert "the agent's values of your moves: " in out
    assert "took back your last move and the agent's reply" in out
    assert " 1 (X)(X)(X)(X)[X] .  .  .  .   1" in out  # the five that won, marked
    assert "You win!" in out and out.rstrip().endswith("bye")
