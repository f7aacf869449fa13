"""Quiet start-up: no native TensorFlow chatter for users, while real errors still show."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np

from boardq.config import NetworkConfig
from boardq.players.agentfile import export_agent

ROOT = Path(__file__).resolve().parents[2]


def python(code: str, env_extra: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "TF_CPP_MIN_LOG_LEVEL"}
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT,
        env={**env, **(env_extra or {})},
    )  # fmt: skip


def test_loading_an_agent_in_a_script_prints_nothing(tmp_path):
    network = NetworkConfig(hidden_units=(4,))
    rng = np.random.default_rng(0)
    weights = [rng.normal(size=s).astype(np.float32) for s in ((18, 4), (4,), (4, 9), (9,))]
    path = export_agent(tmp_path / "a.npz", "tictactoe", network, (3, 3, 2), 9, weights)
    code = (
        "import numpy as np\n"
        "from boardq import Agent\n"
        f"agent = Agent.load({str(path)!r})\n"
        "print(agent.act({'observation': np.zeros((3, 3, 2), np.int8),"
        " 'action_mask': np.ones(9, bool)}))\n"
    )
    result = python(code)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert 0 <= int(result.stdout) < 9


def test_training_prints_nothing_on_stderr(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "boardq", "train", "tictactoe", "--budget-steps", "8",
         "--warmup-transitions", "256", "--batch-size", "32", "--hidden-units", "8",
         "--eval-games", "0", "--out-dir", str(tmp_path)],
        capture_output=True, text=True, timeout=240, cwd=ROOT,
        env={k: v for k, v in os.environ.items() if k != "TF_CPP_MIN_LOG_LEVEL"},
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert "finished: 8 train steps" in result.stdout


def test_a_broken_tensorflow_still_shows_its_own_output_and_error(tmp_path):
    fake = tmp_path / "tensorflow"
    fake.mkdir()
    (fake / "__init__.py").write_text(
        "import os\nos.write(2, b'native: libcudart is broken\\n')\n"
        "raise ImportError('this tensorflow cannot load')\n"
    )
    code = "import boardq\nimport tensorflow\n"
    result = python(code, {"PYTHONPATH": str(tmp_path)})
    assert result.returncode == 1
    assert "native: libcudart is broken" in result.stderr
    assert "ImportError: this tensorflow cannot load" in result.stderr


def test_a_quiet_tensorflow_import_hides_its_chatter(tmp_path):
    fake = tmp_path / "tensorflow"
    fake.mkdir()
    (fake / "__init__.py").write_text(
        "import os\nos.write(2, b'I0000 oneDNN notice\\n')\nVALUE = 7\n"
    )
    code = "import boardq\nimport tensorflow\nprint(tensorflow.VALUE)\n"
    result = python(code, {"PYTHONPATH": str(tmp_path)})
    assert result.returncode == 0 and result.stdout.strip() == "7"
    assert result.stderr == ""
    # Without boardq the same import talks: the test's fake is what is silenced.
    loud = python("import tensorflow\n", {"PYTHONPATH": str(tmp_path)})
    assert "oneDNN notice" in loud.stderr
