"""`boardq play` run as a user runs it, for the play tests (`pythonpath` in pyproject.toml
puts this folder on the import path): agents whose every move is known, a game scripted
through a pipe, and its output read.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

# The installed command if it is on PATH, else the same entry point through Python.
BOARDQ = [shutil.which("boardq")] if shutil.which("boardq") else [sys.executable, "-m", "boardq"]
START_SEC = 180  # first prompt: imports TensorFlow on a machine that may be busy training

# Cell numbers 1-9 (reading order) -> PettingZoo actions (down the columns).
TTT_ACTION = {1: 0, 2: 3, 3: 6, 4: 1, 5: 4, 6: 7, 7: 2, 8: 5, 9: 8}
TTT_ORDER = [TTT_ACTION[n] for n in (5, 1, 9, 3, 7, 2, 4, 6, 8)]  # the agent's taste
C4_ORDER = [3, 2, 4, 1, 5, 0, 6]  # columns 4 3 5 2 6 1 7


def write_play_agents(root: Path, preference_agent: Callable[..., Path]) -> Path:
    """Writes into ROOT runs/ (two tic-tac-toe runs) and loose agent files; returns ROOT.

    `preference_agent` is the fixture of tests/boardq/commands/conftest.py.
    """
    older = root / "runs/tictactoe/20240101-000000/agent.npz"
    preference_agent(older, "tictactoe", (3, 3, 2), list(range(9)))
    os.utime(older, (1_000_000, 1_000_000))
    preference_agent(
        root / "runs/tictactoe/20250101-000000/agent.npz", "tictactoe", (3, 3, 2), TTT_ORDER
    )
    preference_agent(root / "ttt.npz", "tictactoe", (3, 3, 2), TTT_ORDER)
    preference_agent(root / "c4.npz", "connect_four", (6, 7, 2), C4_ORDER)
    # A tic-tac-toe header over a Connect Four network.
    preference_agent(root / "misfit.npz", "tictactoe", (6, 7, 2), C4_ORDER)
    (root / "corrupt.npz").write_bytes(b"this is not an agent\n")
    return root


def play(
    args: list[str], script: str, cwd: Path, timeout: float = START_SEC
) -> subprocess.CompletedProcess:
    """Runs `boardq play ARGS` with `script` piped to stdin."""
    env = {k: v for k, v in os.environ.items() if k not in {"NO_COLOR", "COLUMNS"}}
    return subprocess.run(
        [*BOARDQ, "play", *args],
        input=script.encode("utf-8"),
        capture_output=True,
        cwd=cwd,
        env=env,
        timeout=timeout,
        check=False,
    )


def text_of(result: subprocess.CompletedProcess) -> str:
    assert result.stderr == b"", result.stderr.decode("utf-8", "replace")
    assert b"Traceback" not in result.stdout
    return result.stdout.decode("utf-8")


def lines_after(text: str, marker: str) -> list[str]:
    """The lines that follow the first line holding `marker`."""
    return text.split(marker, 1)[1].splitlines()[1:]
