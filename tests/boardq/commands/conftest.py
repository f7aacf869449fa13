"""What the command tests share: agents whose every move is known in advance."""

from __future__ import annotations

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
