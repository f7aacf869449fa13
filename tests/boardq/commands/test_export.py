"""`boardq export` as a user runs it: where it writes, --force, and one-line refusals.

What the exports compute is checked in tests/boardq/players/test_export.py. Refusals
happen before TensorFlow loads, so they cost a fraction of a second each.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]  # the checkout under test, not an installed copy
TTT_ORDER = [4, 0, 8, 6, 2, 3, 1, 5, 7]


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory, preference_agent) -> Path:
    """A run directory with its last and its best agent, and a file that is no agent."""
    run = tmp_path_factory.mktemp("export") / "run"
    preference_agent(run / "agent.npz", "tictactoe", (3, 3, 2), TTT_ORDER)
    preference_agent(run / "best-agent.npz", "tictactoe", (3, 3, 2), TTT_ORDER, {"train_step": 9})
    (run / "notes.npz").write_text("not an archive")
    (run.parent / "empty").mkdir()
    return run


def export(args: list[str], cwd: Path, block: str | None = None):
    code = "import sys\n"
    if block:
        code += f"sys.modules[{block!r}] = None  # as if it were not installed\n"
    code += "from boardq.commands import main\nsys.exit(main(['export', *sys.argv[1:]]))\n"
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(ROOT), "TF_CPP_MIN_LOG_LEVEL": "3"},
        timeout=300,
        check=False,
    )


@pytest.mark.parametrize(
    "args, code, message",
    [
        (["run/missing.npz", "--format", "onnx"], 1, "agent file run/missing.npz does not exist"),
        (["run/notes.npz", "--format", "tflite"], 1, "run/notes.npz is not a boardq agent file"),
        (["empty", "--format", "tflite"], 1, "no exported agent in empty (expected agent.npz)"),
        (["run", "--format", "pb"], 2, "argument --format: invalid choice: 'pb'"),
        (["bundled", "--format", "onnx"], 2, "bundled needs its game here: bundled:GAME"),
        (["bundled:chess", "--format", "onnx"], 1, "bundled:chess: there is no game called"),
        (["run"], 2, "the following arguments are required: --format"),
        (
            ["run", "--format", "onnx", "--out", "run/agent.npz"],
            1,
            "run/agent.npz exists (give --force to overwrite it)",
        ),
        (
            ["run/agent.npz", "--format", "tflite", "--out", "run/agent.npz", "--force"],
            1,
            "run/agent.npz is the agent file itself: give the export another path",
        ),
    ],
)
def test_bad_input_is_one_line(run_dir, args, code, message):
    result = export(args, run_dir.parent)
    assert result.returncode == code, result.stderr
    assert result.stdout == ""
    assert result.stderr.startswith("boardq export: error: ")
    assert message in result.stderr and result.stderr.count("\n") == 1


def test_onnx_without_its_converter_says_how_to_install_it(run_dir):
    result = export(["run", "--format", "onnx"], run_dir.parent, block="tf2onnx")
    assert result.returncode == 1
    assert result.stderr == (
        "boardq export: error: --format onnx needs tf2onnx (not installed): "
        "pip install -e '.[onnx]' in boardq's checkout\n"
    )
    assert not (run_dir / "best-agent.onnx").exists()


def test_a_run_exports_its_best_agent_beside_it_and_again_only_with_force(run_dir):
    result = export(["run", "--format", "tflite"], run_dir.parent)
    assert result.returncode == 0, result.stderr
    out = run_dir / "best-agent.tflite"
    assert result.stdout.splitlines() == [
        "tictactoe agent run/best-agent.npz (the network alone) written as a TFLite model: "
        "run/best-agent.tflite",
        "what it holds: run/best-agent.tflite.json",
    ]
    meta = json.loads((run_dir / "best-agent.tflite.json").read_text())
    assert meta["train_step"] == 9 and meta["entry_points"]["greedy"]["outputs"] == [
        "q_values",
        "action",
    ]
    again = export(["run", "--format", "tflite"], run_dir.parent)
    assert again.returncode == 1
    assert again.stderr == (
        "boardq export: error: run/best-agent.tflite exists (give --force to overwrite it)\n"
    )
    before = out.stat().st_mtime_ns
    forced = export(["run", "--format", "tflite", "--force"], run_dir.parent)
    assert forced.returncode == 0, forced.stderr
    assert out.stat().st_mtime_ns >= before and out.read_bytes()[4:8] == b"TFL3"


def test_symmetric_for_a_game_without_symmetries_is_one_line(tmp_path, preference_agent):
    game = "openspiel:breakthrough(columns=6,rows=6)"
    preference_agent(tmp_path / "b.npz", game, (6, 6, 4), list(range(432)))
    result = export(["b.npz", "--format", "savedmodel", "--symmetric"], tmp_path)
    assert result.returncode == 1, result.stderr
    assert result.stderr.count("\n") == 1 and "boardq knows none" in result.stderr


def test_a_bundled_agent_is_exported_to_the_current_folder_not_into_the_package(tmp_path):
    package = ROOT / "games" / "connect_four"
    before = sorted(p.name for p in package.iterdir())
    result = export(["bundled:connect_four", "--format", "onnx"], tmp_path)
    assert result.returncode == 0, result.stderr
    out = tmp_path / "connect_four.onnx"
    assert result.stdout.splitlines() == [
        "connect_four agent that comes with boardq (values averaged over 2 symmetries as its "
        f"run chose) written as an ONNX model: {out}",
        f"what it holds: {out}.json",
    ]
    assert out.stat().st_size > 0
    assert json.loads((tmp_path / "connect_four.onnx.json").read_text())["game"] == "connect_four"
    assert sorted(p.name for p in package.iterdir()) == before
