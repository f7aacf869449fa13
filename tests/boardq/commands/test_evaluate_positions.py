"""`boardq evaluate GAME --positions FILE` end to end, and its one-line refusals.

The agent is exported without training (zero kernels, the output bias ranks the moves),
so it plays the first legal column of C4_ORDER and its share is known by hand.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]  # the checkout under test, not an installed copy
C4_ORDER = [3, 2, 4, 1, 5, 0, 6]


def entry(moves, values):
    outcome = max(v for v in values if v is not None)
    best = [a for a, v in enumerate(values) if v == outcome]
    return {"moves": moves, "values": values, "best": best, "outcome": outcome}


@pytest.fixture(scope="module")
def folder(tmp_path_factory, preference_agent) -> Path:
    root = tmp_path_factory.mktemp("positions")
    preference_agent(root / "c4.npz", "connect_four", (6, 7, 2), C4_ORDER)
    preference_agent(root / "ttt.npz", "tictactoe", (3, 3, 2), list(range(9)))
    # The agent plays 3 in the first two positions and 2 in the third (column 3 full).
    positions = [
        entry([0, 6, 1, 6, 2, 6], [-1, -1, -1, 1, -1, -1, -1]),  # 3 wins: right
        entry([0, 6], [1, 0, 0, 0, 0, 0, 0]),  # only 0 wins: wrong
        entry([3] * 6, [0, -1, 0, None, -1, -1, -1]),  # 2 draws: right
    ]
    about = "three positions labelled by hand"
    (root / "c4.json").write_text(
        json.dumps({"game": "connect_four", "about": about, "positions": positions})
    )
    bad = [entry([3] * 7, [0] * 7)]
    (root / "bad.json").write_text(json.dumps({"game": "connect_four", "positions": bad}))
    return root


def boardq(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "boardq", "evaluate", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=300,
        check=False,
    )


def test_the_share_of_best_moves_with_its_interval(folder):
    args = ["connect_four", "--agent", "c4.npz", "--positions", "c4.json"]
    result = boardq([*args, "--search", "1", "--json"], folder)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["search"] == "depth-1 search"
    assert report["positions_made"] == "three positions labelled by hand"
    assert (report["positions"], report["right"]) == (3, 2)
    assert report["share"] == pytest.approx(2 / 3)
    assert report["share_low"] < report["share"] < report["share_high"]
    assert (report["win/right"], report["draw/right"]) == (1, 1)
    assert report["missed"] == [{"position": 2, "moves": [0, 6], "played": 3, "best": [0]}]
    text = boardq(args, folder).stdout.splitlines()
    assert text[0] == "Connect Four: c4.npz (greedy, no search)"
    assert text[4].split()[:5] == ["all", "2", "of", "3", "positions"]
    assert text[5].split()[:6] == ["a", "win", "1", "of", "2", "positions"]


@pytest.mark.parametrize(
    "game, args, message",
    [
        ("connect_four", ["--opponent", "random"], "--opponent is for games; --positions"),
        ("connect_four", ["--record", "games"], "--record is for games"),
        ("tictactoe", [], "c4.json holds positions of 'connect_four', not 'tictactoe'"),
        ("connect_four", ["--positions", "none.json"], "cannot read the positions file none"),
    ],
)
def test_refusals_are_one_line(folder, game, args, message):
    result = boardq([game, "--agent", "c4.npz", "--positions", "c4.json", *args], folder)
    assert result.returncode == 1 and result.stdout == ""
    assert message in result.stderr and result.stderr.count("\n") == 1, result.stderr


def test_a_position_that_cannot_be_reached_is_named(folder):
    args = ["connect_four", "--agent", "c4.npz", "--positions", "bad.json"]
    result = boardq(args, folder)
    assert result.returncode == 1
    assert result.stderr == (
        "boardq evaluate: error: bad.json: position 1: move 7 (3): it is illegal\n"
    )
