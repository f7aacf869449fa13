"""`boardq play` with games built on the fly: OpenSpiel's own move names and board."""

from __future__ import annotations

import json

import pytest

from boardq_games import get_game

pytest.importorskip("pyspiel")


def test_tic_tac_toe_by_action_number_won(tmp_path, preference_agent, boardq_run, played):
    game = get_game("openspiel:tic_tac_toe")
    preference_agent(tmp_path / "agent.npz", game, [4, 8, 6, 3, 5, 7])
    script = ["9", "x", "0", "1", "2", "n"]
    out = played(boardq_run(["play", "openspiel:tic_tac_toe", "--agent", "agent.npz"],
                            "\n".join(script) + "\n", tmp_path))  # fmt: skip
    assert "Tic Tac Toe against the agent in agent.npz" in out
    assert "Game 1: you are player 1 and move first; the agent is player 2." in out
    assert "there is no move 9: moves are numbered 0-8" in out and "'x' is not a move" in out
    assert "agent (player 2) plays move 4" in out and "agent (player 2) plays move 8" in out
    assert "xxx\n.o.\n..o\nlast move: 2" in out  # OpenSpiel's drawing, after the win
    assert "You win!" in out


def test_breakthrough_moves_by_openspiels_names(tmp_path, preference_agent, boardq_run, played):
    name = "openspiel:breakthrough(rows=6,columns=6)"
    game = get_game(name)
    replies = [game.text.parse(m, [True] * game.num_actions) for m in ("a2a3", "b2b3")]
    preference_agent(tmp_path / "agent.npz", game, replies)
    script = ["a5a4", "a5a3", "moves", "hint", "quit"]
    out = played(boardq_run(["play", name, "--agent", "agent.npz"],
                            "\n".join(script) + "\n", tmp_path))  # fmt: skip
    assert "agent (player 2) plays a2a3" in out
    assert "'a5a3' is not a move" in out  # no such move in breakthrough's names
    assert "4b.bbbb" not in out and "4......" in out  # OpenSpiel's board, row 4 empty
    assert "legal moves: " in out and "b5b4" in out
    assert out.rstrip().endswith("bye")


def test_league_rates_players_of_a_generic_game(tmp_path, preference_agent, boardq_run):
    game = get_game("openspiel:tic_tac_toe")
    preference_agent(tmp_path / "agent.npz", game, [4, 0, 2, 6, 8])
    result = boardq_run(["league", game.name, "agent.npz", "mcts:20", "--games", "2", "--json"],
                        cwd=tmp_path)  # fmt: skip
    assert result.returncode == 0, result.stderr.decode()
    report = json.loads(result.stdout)
    assert report["game"] == "openspiel:tic_tac_toe"
    assert {p["name"] for p in report["players"]} == {"random", "agent:agent.npz", "mcts:20"}
