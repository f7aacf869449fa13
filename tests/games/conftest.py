"""Shared by the game tests: agents of fixed taste, and `boardq` run on this checkout."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

CHECKOUT = Path(__file__).resolve().parents[2]
START_SEC = 240  # each run imports TensorFlow, on a machine that may be busy


@pytest.fixture
def preference_agent():
    """`preference_agent(path, game, order)`: an agent file whose values rank `order`.

    Every kernel is zero and the output bias falls from +0.9 (order[0]) to -0.9, so the
    agent plays the first legal move of `order` (the others below all of it).
    """
    from boardq.config import NetworkConfig
    from boardq.players.agentfile import export_agent

    def export(path: Path, game, order: list[int]) -> Path:
        bias = np.full(game.num_actions, -1.0, np.float32)
        bias[order] = np.linspace(0.9, -0.9, len(order))
        kernel = np.zeros((int(np.prod(game.obs_shape)), game.num_actions), np.float32)
        network = NetworkConfig(conv_filters=(), hidden_units=())
        return export_agent(path, game.name, network, game.obs_shape, game.num_actions,
                            [kernel, bias])  # fmt: skip

    return export


@pytest.fixture
def boardq_run():
    """`boardq_run(args, stdin="", cwd=None)`: `python3 -m boardq ARGS` on this checkout."""

    def run(args: list[str], stdin: str = "", cwd: Path | None = None):
        env = {k: v for k, v in os.environ.items() if k not in {"NO_COLOR", "COLUMNS"}}
        env.update(PYTHONPATH=str(CHECKOUT), TF_CPP_MIN_LOG_LEVEL="3")
        return subprocess.run(
            [sys.executable, "-m", "boardq", *args],
            input=stdin.encode("utf-8"),
            capture_output=True,
            cwd=cwd,
            env=env,
            timeout=START_SEC,
            check=False,
        )

    return run


def session_text(result: subprocess.CompletedProcess) -> str:
    """The output of a scripted `boardq play` that must have gone cleanly."""
    assert result.returncode == 0, result.stderr.decode("utf-8", "replace")
    assert result.stderr == b"", result.stderr.decode("utf-8", "replace")
    return result.stdout.decode("utf-8")


@pytest.fixture
def played():
    """`played(result)`: the text of a clean scripted session (exit 0, nothing on stderr)."""
    return session_text


@pytest.fixture
def board_after():
    """`board_after(name, actions)`: the game's env after `actions`, as `Game.board` sees it."""
    from boardq_games import get_game

    def play(name: str, actions: list[int]) -> np.ndarray:
        game = get_game(name)
        env = game.make_env()
        env.reset(seed=0)
        for action in actions:
            env.step(action)
        board = game.board(env)
        env.close()
        return board

    return play
