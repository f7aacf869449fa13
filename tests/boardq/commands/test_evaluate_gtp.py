"""`boardq evaluate` and `boardq league` with GTP engines: scores, the engine's notes, refusals."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from boardq.gtp.client import find_program

ROOT = Path(__file__).resolve().parents[3]
GNUGO = "gtp:gnugo --mode gtp --level 1 --chinese-rules --capture-all-dead"


def boardq(args: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "boardq", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT), "BOARDQ_PROGRESS_EVERY_SEC": "86400"},
        timeout=300,
        check=False,
    )


@pytest.mark.parametrize(
    "args, code, message",
    [
        (["go", "--opponent", "gtp:"], 2, "bad player 'gtp:': gtp needs a command"),
        (["go", "--opponent", "gtp:no-such-engine"], 1, "engine 'no-such-engine' not found"),
        (["tictactoe", "--opponent", GNUGO], 1, "GNU Go plays Go only, not Tic-tac-toe"),
        (["go", "--opponent", "gtp:gtp-rhino -l 1"], 1, "GRhino plays Othello only, not Go"),
    ],
)
def test_engines_that_cannot_play_are_one_line(args, code, message):
    result = boardq(["evaluate", args[0], "--agent", f"bundled:{args[0]}", *args[1:]])
    assert result.returncode == code
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1


@pytest.mark.skipif(find_program("gnugo") is None, reason="GNU Go is not installed")
def test_evaluate_against_gnu_go_reports_its_count_and_its_seeds():
    result = boardq(
        ["evaluate", "go", "--agent", "bundled:go", "--opponent", GNUGO, "--games", "1", "--json"]
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    scores = report["opponents"][GNUGO]
    assert scores["games"] == 2.0 and 0.0 <= scores["score_low"] <= scores["score_high"] <= 1.0
    assert scores["engine/scored"] == 2.0 and scores["engine/disagreements"] == 0.0
    assert scores["opening_plies"] == 0.0
    # boardq's own count of the final boards is the engine's (both count area, the dead
    # stones captured).
    assert scores["lead/games"] == 2.0 and scores["lead/mean"] == scores["engine/opponent_margin"]
    engine = report["engines"][GNUGO]
    assert engine["engine"].startswith("GNU Go 3.8 (") and "gnugo)" in engine["engine"]
    assert "set_random_seed 0, 1" in engine["varied"] and engine["disagreeing_games"] == []
    assert "warning" not in result.stderr  # the command has the area-count flags


@pytest.mark.skipif(find_program("gnugo") is None, reason="GNU Go is not installed")
def test_gnu_go_without_the_area_flags_is_warned_about_and_league_closes_it():
    result = boardq(["league", "go", "gtp:gnugo --mode gtp --level 1", "--games", "1"])
    assert result.returncode == 0, result.stderr
    assert (
        "warning: gtp:gnugo --mode gtp --level 1: GNU Go without --capture-all-dead"
        in result.stderr
    )
    assert "gtp:gnugo --mode gtp --level 1" in result.stdout


@pytest.mark.skipif(find_program("gtp-rhino") is None, reason="GRhino is not installed")
def test_evaluate_against_grhino_opens_games_at_random():
    result = boardq(
        [
            "evaluate",
            "othello",
            "--agent",
            "bundled:othello",
            "--opponent",
            "gtp:gtp-rhino -l 1",
            "--games",
            "2",
        ]
    )
    assert result.returncode == 0, result.stderr
    assert "games varied by 4 random opening moves, the same for both seats" in result.stdout
    assert "disagreed with boardq's result in 0 of 4 games" in result.stdout


@pytest.mark.parametrize(
    "args, message",
    [
        (["connect_four", "--handicap", "2"], "--handicap 2: Connect Four has no handicap"),
        (["go", "--handicap", "10"], "--handicap 10: Go places 2-9 handicap stones, not 10"),
        (["go", "--handicap", "3", "--opening-plies", "2"], "open the games two ways"),
    ],
)
def test_a_handicap_the_game_cannot_have_is_one_line(args, message):
    result = boardq(["evaluate", args[0], "--agent", f"bundled:{args[0]}", *args[1:]])
    assert result.returncode == 1
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1


@pytest.mark.skipif(find_program("gnugo") is None, reason="GNU Go is not installed")
def test_evaluate_with_a_handicap_against_gnu_go_counts_each_colour():
    result = boardq(
        ["evaluate", "go", "--agent", "bundled:go", "--opponent", GNUGO, "--games", "1",
         "--handicap", "9", "--json"]
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    scores = report["opponents"][GNUGO]
    assert report["handicap"] == 9 and scores["opening_plies"] == 0.0
    # GNU Go accepted every handicap stone and pass (or the game would have failed), and
    # counted the games it did not resign as boardq did.
    assert scores["engine/scored"] + scores.get("engine/resigned", 0.0) == 2.0
    assert scores["engine/disagreements"] == 0.0
    assert {"lead/first/mean", "lead/second/mean"} <= scores.keys()
