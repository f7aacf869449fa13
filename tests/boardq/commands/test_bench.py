"""`boardq bench` and scripts/benchmark.py from the outside (subprocess smoke runs)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
STAGES = {
    "search_d1",
    "search_d2",
    "search_d3",
    "tree_search",
    "tree_visits",
    "random_play",
    "vector_play",
    "collection",
    "collection_pettingzoo",
    "processes",
    "learner_ceiling",
    "fed_learner",
    "roofline",
    "training",
    "naive_collection",
    "naive_learning",
}


def run(*args, timeout=300, code=None):
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "COLUMNS": "120"}
    command = (
        [sys.executable, "-c", code, *args] if code else [sys.executable, "-m", "boardq", *args]
    )
    return subprocess.run(
        command, capture_output=True, text=True, timeout=timeout, env=env, cwd=ROOT
    )  # fmt: skip


def test_bench_runs_every_stage_and_writes_its_outputs(tmp_path):
    out = tmp_path / "bench" / "ttt.json"
    result = run("bench", "tictactoe", "--quick", "--time-scale", "0.3", "--out", str(out))
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(out.read_text())
    assert set(report["stages"]) == STAGES
    for key in STAGES - {"training"}:  # training may be too short at this scale
        assert report["stages"][key]["rate"] > 0, key
    assert set(report["stages"]["processes"]["by_processes"]) == {"1", "2"}
    assert report["ratios"]["feed"] > 0
    # The roofline: the chip's float32 products at the learner's shapes, and its share.
    roof = report["stages"]["roofline"]
    assert roof["roofline_gflops"]["float32"] > 0 and roof["peak_gflops"]["float32"] > 0
    assert roof["learner_precision"] == report["stages"]["learner_ceiling"]["precision"]
    assert report["ratios"]["learner_vs_roofline"] > 0
    # The search at play: the bundled agent's time a move at each depth, deeper slower.
    search = [report["stages"][f"search_d{d}"] for d in (1, 2, 3)]
    assert [s["depth"] for s in search] == [1, 2, 3] and search[0]["agent"] == "the bundled agent"
    assert all(s["move_sec_max"] >= s["move_sec_mean"] > 0 and s["positions"] >= 3 for s in search)
    # The tree search: its leaves beside the network's own forward pass at that batch.
    tree = report["stages"]["tree_search"]
    assert tree["forward_rows_per_sec"] > 0 and tree["share_of_forward"] > 0
    assert search[0]["leaves_per_move"] < search[2]["leaves_per_move"]
    assert "s a move, at most" in " ".join(result.stdout.split())  # the table wraps lines
    assert "GFLOP/s" in result.stdout
    assert out.with_suffix(".png").read_bytes()[:4] == b"\x89PNG"
    assert "comparisons" in result.stdout and "self-play collection" in result.stdout
    if not report["gpu"]["available"]:  # the no-GPU path, for real on a CPU machine
        assert "no GPU" in result.stdout
        assert report["stages"]["collection"]["utilization"]["gpu"] is False


NO_MATPLOTLIB = """
import builtins, sys
real = builtins.__import__
def blocked(name, *a, **k):
    if name == "matplotlib" or name.startswith("matplotlib."):
        raise ImportError("No module named 'matplotlib'")
    return real(name, *a, **k)
builtins.__import__ = blocked
from boardq.commands import main
sys.exit(main(sys.argv[1:]))
"""


def test_without_matplotlib_the_table_and_json_are_still_written(tmp_path):
    out = tmp_path / "r.json"
    args = ["bench", "connect_four", "--quick", "--time-scale", "0.3", "--no-processes",
            "--no-training", "--no-naive", "--no-search", "--out", str(out)]  # fmt: skip
    result = run(*args, code=NO_MATPLOTLIB)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert "no plot: matplotlib is not installed" in result.stdout
    assert json.loads(out.read_text())["stages"]["collection"]["rate"] > 0
    assert not out.with_suffix(".png").exists()


def test_a_game_without_vectorized_rules_is_measured_through_its_environment(tmp_path):
    args = ["bench", "openspiel:tic_tac_toe", "--quick", "--time-scale", "0.2",
            "--no-processes", "--no-training", "--no-naive", "--out", str(tmp_path)]  # fmt: skip
    result = run(*args)
    assert result.returncode == 0, result.stderr
    (report,) = tmp_path.glob("openspiel_tic_tac_toe-*.json")  # a plain file name
    stages = json.loads(report.read_text())["stages"]
    assert stages["random_play"]["rate"] > 0 and stages["collection"]["rate"] > 0
    assert "vector_play" not in stages  # no vectorized rules to time
    assert "search_d1" not in stages  # no rules to search with
    (row,) = [line for line in result.stdout.splitlines() if "vectorized random" in line]
    assert "not measured" in row, result.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nosuchgame"], "unknown game"),
        (["tictactoe", "--actor-threads", "0"], "comma-separated thread counts"),
        (["tictactoe", "--jit-compile", "maybe"], "true/false"),
        (["tictactoe", "--batch-size", "10000000"], "batch_size"),
        (["tictactoe", "--actor-processes", "x"], "process counts"),
        (["tictactoe", "--precision", "float32,half"], "comma-separated precisions"),
        (["tictactoe", "--batch-splits", "3"], "batch_splits (3) must divide batch_size"),
    ],
)
def test_bad_options_fail_fast_with_one_line(args, message):
    result = run("bench", *args, timeout=60)
    assert result.returncode in (1, 2)
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.stderr


def test_script_has_the_same_options():
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "benchmark.py"), "--help"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert result.returncode == 0
    for option in ("--quick", "--out", "--actor-threads", "--games-per-thread", "--batch-size",
                   "--jit-compile", "--precision", "--batch-splits", "--actor-processes",
                   "--no-processes"):  # fmt: skip
        assert option in result.stdout
