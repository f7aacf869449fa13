"""boardq: self-play deep Q-learning for two-player board games.

`from boardq import Agent` loads trained agents, `Trainer` trains (`TrainConfig` its
settings), `get_game` finds a game by name. TensorFlow is imported only once `Agent`
or `Trainer` is taken from here.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Agent", "NetworkConfig", "TrainConfig", "Trainer", "__version__", "get_game"]
__version__ = "0.1.0"

from boardq._quiet import quiet_tensorflow_imports  # noqa: E402
from boardq.config import NetworkConfig, TrainConfig  # noqa: E402

quiet_tensorflow_imports()


def __getattr__(name: str) -> Any:
    if name == "Agent":
        from boardq.players.agent import Agent

        return Agent
    if name == "Trainer":
        from boardq.training.trainer import Trainer

        return Trainer
    if name == "get_game":
        from boardq.catalog import get_game

        return get_game
    raise AttributeError(f"module 'boardq' has no attribute {name!r}")
