"""A Go GUI's own GTP library drives `boardq gtp go`: Sabaki's @sabaki/gtp.

tests/gui/sabaki_sync.js syncs one engine with the library's ControllerStateTracker to
a new game as Sabaki opens it (komi 6.5, a clock), a handicap game with komi 0.5, and a
game in progress, in turn as Sabaki switches games, asks for a move each time, and
streams an analysis that the next command ends. The library is installed by
`npm ci --prefix tests/gui` (.ci/run does); without node or the package the test is
skipped and says why.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
GUI = ROOT / "tests" / "gui"
NODE = shutil.which("node")


def sabaki_results() -> dict:
    if NODE is None:
        pytest.skip("node is not installed: Sabaki's GTP library cannot run")
    if not (GUI / "node_modules" / "@sabaki" / "gtp").is_dir():
        pytest.skip("@sabaki/gtp is not installed (npm ci --prefix tests/gui)")
    result = subprocess.run(
        [NODE, str(GUI / "sabaki_sync.js"), sys.executable],
        cwd=GUI,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_sabaki_syncs_boardq_to_its_games_and_gets_moves_and_analysis():
    results = sabaki_results()
    vertex = re.compile(r"[A-HJ][1-9]|pass")
    for case, score in [("fresh", "B+74.5"), ("handicap", "B+0.5"), ("progress", None)]:
        session = results[case]
        assert session["error"] is None, (case, session)
        assert vertex.fullmatch(session["move"]), (case, session)
        if score is not None:  # one stone, or two against one: komi 6.5, then 0.5
            assert session["score"] == score, (case, session)
    said = "\n".join(results["stderr"])
    assert said.count("learnt Go with komi 7.5") == 1 and "komi 6.5" in said  # once, stderr
    # Game in progress: black E5 G6, white C4, then black's move: 3 - 1 - 7.5.
    assert results["progress"]["score"] == "W+5.5"
    analysis = results["analysis"]
    assert analysis["error"] is False and analysis["name"] == "boardq"
    assert len(analysis["lines"]) >= 3
    first = analysis["lines"][0]
    assert re.match(r"info move [A-HJ][1-9] visits \d+ winrate \d+ prior \d+ ", first)
