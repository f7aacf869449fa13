"""boardq: self-play deep Q-learning for two-player board games.

`from boardq import Agent` loads trained agents; `boardq.trainer.Trainer` trains.
TensorFlow is imported only when one of those is used.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Agent", "NetworkConfig", "TrainConfig", "__version__"]
__version__ = "0.1.0"

from boardq._quiet import quiet_tensorflow_imports  # noqa: E402
from boardq.config import NetworkConfig, TrainConfig  # noqa: E402

quiet_tensorflow_imports()


def __getattr__(name: str) -> Any:
    if name == "Agent":
        from boardq.agent import Agent

        return Agent
    raise AttributeError(f"module 'boardq' has no attribute {name!r}")
