"""`boardq league` rates the games played when its round robin stops: an engine that
goes silent past `--engine-timeout`, or Ctrl-C.

The engines are real processes speaking GTP (`silent_engine` in conftest.py) that pass
every move; "Silent" stops answering at the start of its third game, "Steady" never.
With 2 games a seat the league plays random against Silent first (4 games), so it stops
after 2 games, before Steady has played any of its 8.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_runs import interrupt_once

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def engines(silent_engine):
    """(Silent's spec, the file it writes when it goes silent, Steady's spec)."""
    silent, marker = silent_engine(3, "Silent")
    steady, _ = silent_engine(99, "Steady")
    return silent, marker, steady


def league(*args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "boardq", "league", "go", *args, "--games", "2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT), "BOARDQ_PROGRESS_EVERY_SEC": "86400"},
    )


def test_an_engine_silent_past_its_timeout_stops_the_league_and_its_games_are_rated(engines):
    silent, _, steady = engines
    process = league(silent, steady, "--engine-timeout", "2")
    out, err = process.communicate(timeout=300)
    assert process.returncode == 1
    assert err.strip().splitlines() == [
        "boardq league: error: Silent 1.0 "
        f"({sys.executable}) did not answer 'clear_board' within 2 s"
    ]
    lines = out.splitlines()

    def row(name: str) -> list[str]:  # the figures after the player's name
        return next(line[2 + len(name) :].split() for line in lines if line[2:].startswith(name))

    assert row("random")[-2] == row(silent)[-2] == "2"  # games
    assert row(steady) == ["-", "not", "played", "0", "-"]
    assert lines[-1].startswith("the league stopped early: Silent 1.0")
    assert lines[-1].endswith("; 2 of 12 games played")


def test_ctrl_c_stops_the_league_and_its_games_are_rated_as_json(engines):
    silent, marker, steady = engines
    process = league(silent, steady, "--json")
    # Ctrl-C once Silent has started its third game and says nothing.
    out, err = interrupt_once(process, marker)
    assert process.returncode == 130
    assert err.strip() == "boardq league: interrupted"
    report = json.loads(out)
    assert report["stopped"] == "interrupted (Ctrl-C); 2 of 12 games played"
    players = {p["name"]: p for p in report["players"]}
    assert players["random"]["games"] == players[silent]["games"] == 2
    assert players["random"]["elo"] == 0.0
    assert players[steady] == {
        "name": steady, "elo": None, "elo_low": None, "elo_high": None, "games": 0, "score": None
    }  # fmt: skip
    wins = report["matrix"]["wins"]
    draws = report["matrix"]["draws"]
    assert wins[0][1] + wins[1][0] + draws[0][1] == 2
