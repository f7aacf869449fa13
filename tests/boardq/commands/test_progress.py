"""Progress where a user waits: games out of the total for `evaluate` and `league`, and
the budget spent for `train`, on stderr (the games) and in the progress line (training).

The commands run as a user runs them, piped; `BOARDQ_PROGRESS_EVERY_SEC=0` asks for a
line after every game, so nothing here depends on how fast the machine is.
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from boardq.commands.progress import EVERY_SEC_VARIABLE, GameProgress
from boardq.errors import BoardqError

ROOT = Path(__file__).resolve().parents[3]  # the checkout under test, not an installed copy
TTT_ORDER = [4, 0, 8, 6, 2, 3, 1, 5, 7]
COUNT = re.compile(r"^(\d+)/(\d+) games( \(.+\))?$")


def boardq(args: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "boardq", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(ROOT), "TF_CPP_MIN_LOG_LEVEL": "3", **env},
        timeout=300,
        check=False,
    )


def counts(stderr: str) -> list[tuple[int, int, str]]:
    """The progress lines of stderr as (done, total, label)."""
    found = [COUNT.match(line) for line in stderr.splitlines()]
    return [(int(m[1]), int(m[2]), (m[3] or "").strip(" ()")) for m in found if m]


@pytest.fixture(scope="module")
def agents(tmp_path_factory, preference_agent) -> Path:
    root = tmp_path_factory.mktemp("progress")
    preference_agent(root / "ttt.npz", "tictactoe", (3, 3, 2), TTT_ORDER)
    preference_agent(root / "edges.npz", "tictactoe", (3, 3, 2), TTT_ORDER[::-1])
    return root


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_piped_a_line_at_most_every_interval():
    out, clock = io.StringIO(), Clock()
    with GameProgress(4, stream=out, live=False, every_sec=5.0, clock=clock) as progress:
        progress.label = "vs random"
        for moves, seconds in [(3, 2.0), (5, 4.0), (4, 1.0), (6, 6.0)]:
            progress.new_game()
            for _ in range(moves - 1):
                progress.moved(0, None)
            clock.now += seconds
            progress.moved(0, 1)  # the game's last move
    # 2 s, then 6 s since the start (a line), then 1 s, then 7 s since that line (a line).
    assert out.getvalue() == "2/4 games (vs random)\n4/4 games (vs random)\n"
    assert progress.done == 4


def test_a_bad_interval_is_one_clear_error(monkeypatch):
    monkeypatch.setenv(EVERY_SEC_VARIABLE, "soon")
    with pytest.raises(BoardqError, match=f"^{EVERY_SEC_VARIABLE} must be a number of seconds"):
        GameProgress(10, stream=io.StringIO(), live=False)
    monkeypatch.setenv(EVERY_SEC_VARIABLE, "0.5")
    assert GameProgress(10, stream=io.StringIO(), live=False).every_sec == 0.5


def test_on_a_terminal_a_bar_and_no_plain_lines():
    out = io.StringIO()
    with GameProgress(2, stream=out, live=True, every_sec=0.0) as progress:
        progress.moved(0, 0)
        progress.moved(0, -1)
    assert "games (" not in out.getvalue() and progress.done == 2


def test_evaluate_counts_every_game_on_stderr_and_keeps_json_clean(agents):
    args = ["evaluate", "tictactoe", "--agent", "ttt.npz", "--games", "3", "--json"]
    args += ["--opponent", "random", "--opponent", "agent:edges.npz"]
    result = boardq(args, agents, **{EVERY_SEC_VARIABLE: "0"})
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)  # stdout is the JSON alone
    assert list(report["opponents"]) == ["random", "agent:edges.npz"]
    seen = counts(result.stderr)
    assert [done for done, _, _ in seen] == list(range(1, 13))
    assert {total for _, total, _ in seen} == {12}
    assert [label for _, _, label in seen] == ["vs random"] * 6 + ["vs agent:edges.npz"] * 6


def test_evaluate_by_default_says_nothing_of_a_short_evaluation(agents):
    args = ["evaluate", "tictactoe", "--agent", "ttt.npz", "--games", "1", "--opponent", "random"]
    result = boardq(args, agents, **{EVERY_SEC_VARIABLE: "3600"})
    assert result.returncode == 0 and result.stderr == "", result.stderr


def test_league_counts_every_game_of_every_pairing(agents):
    args = ["league", "tictactoe", "ttt.npz", "edges.npz", "--games", "2", "--json"]
    result = boardq(args, agents, **{EVERY_SEC_VARIABLE: "0"})
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert len(report["players"]) == 3  # random, and the two agents
    # Three pairings, two games from each seat.
    assert counts(result.stderr) == [(k, 12, "") for k in range(1, 13)]


def test_train_progress_reads_as_the_budget_spent(tmp_path):
    args = [
        "train", "tictactoe", "--actor-threads", "1", "--games-per-thread", "8",
        "--warmup-transitions", "256", "--batch-size", "64", "--hidden-units", "32",
        "--eval-games", "0", "--log-every-sec", "0.2", "--budget-minutes", "5",
        "--budget-steps", "40", "--out-dir", str(tmp_path),
    ]  # fmt: skip
    result = boardq(args, tmp_path)
    assert result.returncode == 0, result.stderr
    lines = [line for line in result.stdout.splitlines() if line.startswith("elapsed ")]
    assert lines, result.stdout
    for line in lines:
        spent = line.split(" | ")[0]
        assert re.fullmatch(r"elapsed \d+:\d\d of 5:00, [\d,]+ of 40 steps", spent), line
