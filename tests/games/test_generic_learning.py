"""The generic path learns: a game with no folder, trained for a minute, beats random play.

Slow (about 80 s on two idle cores: a minute of training, then the evaluation); run with
`pytest -m slow`.
"""

from __future__ import annotations

import json

import pytest

pytest.importorskip("pyspiel")

QUICK = [
    "--budget-minutes", "1", "--warmup-transitions", "2000", "--epsilon-decay-transitions",
    "40000", "--epsilon-end", "0.1", "--replay-capacity", "50000", "--eval-games", "0",
    "--log-every-sec", "10",
]  # fmt: skip


@pytest.mark.slow
def test_openspiel_tic_tac_toe_beats_random_after_a_minute(tmp_path, boardq_run):
    trained = boardq_run(["train", "openspiel:tic_tac_toe", "--out-dir", "runs", *QUICK],
                         cwd=tmp_path)  # fmt: skip
    assert trained.returncode == 0, trained.stderr.decode()
    (agent,) = (tmp_path / "runs" / "openspiel_tic_tac_toe").glob("*/agent.npz")
    result = boardq_run(["evaluate", "openspiel:tic_tac_toe", "--agent", str(agent),
                         "--opponent", "random", "--games", "50", "--json"])  # fmt: skip
    assert result.returncode == 0, result.stderr.decode()
    score = json.loads(result.stdout)["opponents"]["random"]
    assert score["score"] >= 0.8, score
    assert score["second/score"] >= 0.6, score  # from the second seat too
