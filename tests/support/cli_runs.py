"""Running `boardq` as a user does, for the command tests (`pythonpath` in pyproject.toml
puts this folder on the import path): fast training settings, a command run to its end or
started in the background, waiting for what it writes, and a one-line error checked.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

FAST = [
    "--actor-threads", "1", "--games-per-thread", "8", "--warmup-transitions", "256",
    "--batch-size", "64", "--hidden-units", "32", "--eval-games", "0",
    "--log-every-sec", "0.5",
]  # fmt: skip


def boardq(*args, **kwargs) -> subprocess.CompletedProcess:
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
    return subprocess.run(
        [sys.executable, "-m", "boardq", *args],
        capture_output=True, text=True, timeout=240, env=env, **kwargs,
    )  # fmt: skip


def start(*args, env: dict[str, str] | None = None, **kwargs) -> subprocess.Popen:
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", **(env or {})}
    return subprocess.Popen(
        [sys.executable, "-m", "boardq", *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, **kwargs,
    )  # fmt: skip


def wait_for(predicate, timeout=120.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.2)
    return False


def command_lines() -> str:
    """Every process's whole command line (-ww: ps cuts them to $COLUMNS otherwise)."""
    return subprocess.run(["ps", "-ww", "-eo", "args="], capture_output=True, text=True).stdout


def one_line_error(result: subprocess.CompletedProcess, code: int, *words: str) -> None:
    assert result.returncode == code, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr
    for word in words:
        assert word in lines[0]


def run_dir(out: Path) -> Path:
    """The one tic-tac-toe run directory under OUT."""
    runs = sorted((out / "tictactoe").iterdir())
    assert len(runs) == 1
    return runs[0]


def interrupt_once(process: subprocess.Popen, marker: Path, timeout: float = 240.0):
    """Ctrl-C (SIGINT) to `process` once `marker` exists; its (stdout, stderr) at its end.

    The process must still be running when the marker appears.
    """
    deadline = time.monotonic() + timeout
    while not marker.exists():
        assert process.poll() is None and time.monotonic() < deadline
        time.sleep(0.2)
    process.send_signal(signal.SIGINT)
    return process.communicate(timeout=60)
