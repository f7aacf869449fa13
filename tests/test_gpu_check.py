"""docs/gpu.md's check, `scripts/gpu_check.py`: what TensorFlow sees, in one line.

Run for real: on a machine without a GPU it says so and why, in one line, with exit
status 1; on one with a GPU it names it, with status 0.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_check_says_in_one_line_what_tensorflow_sees():
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "gpu_check.py")],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    lines = result.stdout.splitlines()
    assert len(lines) == 1, result.stdout + result.stderr
    assert lines[0].startswith("TensorFlow 2."), lines
    if result.returncode == 0:
        assert "GPU(s):" in lines[0] and "compute capability" in lines[0]
    else:
        assert result.returncode == 1, result.stderr
        reasons = ("built without CUDA", "CUDA libraries are not installed", "NVIDIA driver")
        assert " sees no GPU: " in lines[0] and any(r in lines[0] for r in reasons), lines
    assert "Traceback" not in result.stderr
