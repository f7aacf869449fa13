"""`boardq gtp` against real engines: whole games run by boardq's own GTP match runner.

Both sides are GTP engines in child processes (`GtpPlayer`), and boardq's environment
referees: every move must be legal there, and the engine's own count must agree with
boardq's result. A game from each colour, at the engines' fastest levels.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from boardq.catalog import get_game
from boardq.gtp.client import find_program
from boardq.gtp.player import GtpPlayer
from boardq.players.evaluation import play_game

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def checkout_on_path(monkeypatch):
    """`boardq gtp` runs this checkout's code (the engines inherit the environment)."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))


@pytest.mark.parametrize(
    "game_name, engine",
    [
        ("go", "gnugo --mode gtp --level 1 --chinese-rules --capture-all-dead"),
        ("othello", "gtp-rhino -l 1"),
    ],
)
def test_boardq_gtp_plays_whole_games_against_a_real_engine(checkout_on_path, game_name, engine):
    if find_program(engine.split()[0]) is None:
        pytest.skip(f"{engine.split()[0]} is not installed (apt-get install gnugo grhino)")
    game = get_game(game_name)
    ours = GtpPlayer(game, f"{sys.executable} -m boardq gtp {game_name}", timeout_sec=120)
    theirs = GtpPlayer(game, engine, seed=1)
    try:
        assert ours.title.startswith("boardq 0.1.0 (bundled-agent.npz, greedy)")
        results = [
            play_game(game.make_env, (ours, theirs), 0),
            -play_game(game.make_env, (theirs, ours), 1),
        ]
        assert all(r in (-1, 0, 1) for r in results)  # no illegal move stopped a game
        # boardq's engine counts with boardq's rules, so it agrees; the point is the other's.
        # A game one of them resigned is counted by neither; every other game by both.
        resigned = sum(player.summary()["engine/resigned"] for player in (ours, theirs))
        for player in (ours, theirs):
            summary = player.summary()
            assert summary["engine/scored"] + resigned == 2.0, player.title
            assert summary["engine/scored"] >= 1.0, player.title
            assert summary["engine/disagreements"] == 0.0, player.title
    finally:
        ours.close()
        theirs.close()
    assert not ours.engine.alive and not theirs.engine.alive
