"""`boardq bench` and scripts/benchmark.py from the outside (subprocess smoke runs)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
STAGES = {
    "random_play",
    "collection",
    "learner_ceiling",
    "fed_learner",
    "training",
    "baseline_collection",
    "baseline_learner_ceiling",
    "baseline_fed_learner",
    "baseline_training",
}


def run(*args, timeout=240):
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "COLUMNS": "120"}
    return subprocess.run(
        [sys.executable, "-m", "boardq", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        cwd=ROOT,
    )


def test_bench_runs_every_stage_and_writes_its_outputs(tmp_path):
    out = tmp_path / "bench" / "ttt.json"
    result = run("bench", "tictactoe", "--quick", "--time-scale", "0.5", "--out", str(out))
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(out.read_text())
    assert set(report["stages"]) == STAGES
    for key in STAGES - {"training"}:  # training may be too short at this scale
        assert report["stages"][key]["rate"] > 0, key
    assert set(report["targets"]) == {
        "collection_vs_baseline",
        "collection_vs_random_play",
        "fed_vs_ceiling",
    }
    assert out.with_suffix(".png").read_bytes()[:4] == b"\x89PNG"
    text = result.stdout
    assert "required figures" in text and "self-play collection" in text
    if not report["gpu"]["available"]:  # the no-GPU path, for real on a CPU machine
        assert "no GPU" in text
        assert report["stages"]["collection"]["utilization"]["gpu"] is False


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nosuchgame"], "unknown game"),
        (["tictactoe", "--threads", "0"], "comma-separated thread counts"),
        (["tictactoe", "--jit-compile", "maybe"], "true/false"),
        (["tictactoe", "--batch-size", "10000000"], "batch_size"),
    ],
)
def test_bad_options_fail_fast_with_one_line(args, message):
    result = run("bench", *args, timeout=60)
    assert result.returncode in (1, 2)
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_script_has_the_same_options():
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "benchmark.py"), "--help"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0
    for option in (
        "--quick",
        "--out",
        "--threads",
        "--games-per-thread",
        "--batch-size",
        "--jit-compile",
    ):
        assert option in result.stdout
