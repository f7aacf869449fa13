"""What the command tests share: agents whose every move is known in advance, and a GTP
engine that goes silent."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from boardq.config import NetworkConfig
from boardq.players.agentfile import export_agent


def _export_preference_agent(
    path: Path, game: str, obs_shape: tuple[int, ...], order: list[int], info: dict | None = None
) -> Path:
    """An agent whose values are fixed: linearly from +0.9 (order[0]) down to -0.9.

    Every kernel is zero and the output bias ranks the actions, so the agent always
    plays its most preferred legal move. `info` goes into the file as a run writes it
    (say, the ladder that chose it).
    """
    bias = np.zeros(len(order), np.float32)
    bias[order] = np.linspace(0.9, -0.9, len(order))
    weights = [np.zeros((int(np.prod(obs_shape)), len(order)), np.float32), bias]
    network = NetworkConfig(conv_filters=(), hidden_units=())
    path.parent.mkdir(parents=True, exist_ok=True)
    return export_agent(path, game, network, obs_shape, len(order), weights, info)


@pytest.fixture(scope="session")
def preference_agent() -> Callable[..., Path]:
    """`preference_agent(path, game, obs_shape, order, info=None)` writes such an agent."""
    return _export_preference_agent


SILENT = textwrap.dedent(
    """
    import pathlib, sys, time
    silent_at, marker, name = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    games = 0
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        if words[0] == "clear_board":
            games += 1
            if games == silent_at:
                pathlib.Path(marker).write_text("silent")
                time.sleep(600)
        answers = {"protocol_version": "2", "name": name, "version": "1.0",
                   "list_commands": "protocol_version\\nname\\nversion\\nboardsize\\n"
                   "clear_board\\nkomi\\nplay\\ngenmove\\nquit", "genmove": "pass"}
        print("= " + answers.get(words[0], "") + "\\n", flush=True)
        if words[0] == "quit":
            break
    """
)


@pytest.fixture
def silent_engine(tmp_path) -> Callable[..., tuple[str, Path]]:
    """`silent_engine(game, name="Silent")`: (the player spec of a GTP engine that goes
    silent at the start of its `game`-th game, the file it writes then).

    A real process speaking GTP, a few lines of Python: it passes every move, and at the
    `clear_board` of that game it writes the file and stops answering.
    """

    def make(game: int, name: str = "Silent") -> tuple[str, Path]:
        script = tmp_path / "silent_engine.py"
        script.write_text(SILENT)
        marker = tmp_path / f"silent-{name}"
        return f"gtp:{sys.executable} {script} {game} {marker} {name}", marker

    return make
