"""`boardq evaluate` keeps the games played when a match stops: an engine that goes
silent past `--engine-timeout`, or Ctrl-C.

The engine is a real process speaking GTP (`silent_engine` in conftest.py): it passes
every move, and at the start of a chosen game it writes a file and stops answering.
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
def silent(silent_engine):
    """(the opponent spec of an engine silent from its 3rd game, the file it then writes)."""
    return silent_engine(3)


def evaluate(spec: str, *extra: str) -> subprocess.Popen:
    """`boardq evaluate go` of the bundled agent against `spec`, 2 games a seat."""
    args = ["evaluate", "go", "--agent", "bundled:go", "--opponent", spec, "--games", "2"]
    return subprocess.Popen(
        [sys.executable, "-m", "boardq", *args, *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT), "BOARDQ_PROGRESS_EVERY_SEC": "86400"},
    )


def test_an_engine_silent_past_its_timeout_stops_the_match_and_its_games_are_printed(silent):
    spec, _ = silent
    process = evaluate(spec, "--engine-timeout", "2")
    out, err = process.communicate(timeout=300)
    assert process.returncode == 1
    # One line on stderr says why; the two games played as black are on stdout.
    assert err.strip().splitlines() == [
        "boardq evaluate: error: Silent 1.0 "
        f"({sys.executable}) did not answer 'clear_board' within 2 s"
    ]
    lines = out.splitlines()
    first = next(line for line in lines if " first " in line)
    assert sum(int(n) for n in first.split()[-5:-2]) == 2  # win + draw + loss
    assert any(line.split()[-2:] == ["not", "played"] for line in lines)
    assert lines[-1].startswith("the match stopped early: Silent 1.0")


def test_ctrl_c_stops_the_match_and_its_games_are_printed_as_json(silent):
    spec, marker = silent
    process = evaluate(spec, "--json")
    # Ctrl-C once the engine has started its third game and is silent.
    out, err = interrupt_once(process, marker)
    assert process.returncode == 130
    assert err.strip() == "boardq evaluate: interrupted"
    report = json.loads(out)
    assert report["stopped"] == "interrupted (Ctrl-C)"
    scores = report["opponents"][spec]
    assert scores["games"] == scores["first/games"] == 2.0 and "second/games" not in scores
    assert scores["engine/games"] == 2.0
    assert scores["first/win"] + scores["first/draw"] + scores["first/loss"] == 1.0


@pytest.mark.parametrize("value", ["0", "-3", "soon"])
def test_a_bad_engine_timeout_is_refused(value):
    for command in ("evaluate", "league"):
        args = [command, "go", "--engine-timeout", value]
        args += ["--agent", "bundled:go"] if command == "evaluate" else []
        result = subprocess.run(
            [sys.executable, "-m", "boardq", *args],
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            timeout=120,
            check=False,
        )
        assert result.returncode == 2
        assert "--engine-timeout" in result.stderr
