"""`TimedPlayer`: how long a player takes over each move, and how deep a timed search got.

Re-exported by `boardq.players.evaluation`. It imports no TensorFlow.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

import numpy as np

__all__ = ["TimedPlayer"]


class TimedPlayer:
    """A player whose moves are timed: how long a searching agent takes to move.

    Args:
        player: the player timed (it must not be a `MoveObserver`: this wrapper does
            not pass the game's moves on).
    """

    def __init__(self, player: Any) -> None:
        self.player = player
        self.seconds: list[float] = []
        self.depths: list[int] = []

    def act(self, observation: Mapping[str, np.ndarray]) -> int:
        """The player's move; its time is kept (and the depth a timed search reached)."""
        start = time.perf_counter()
        action = self.player.act(observation)
        self.seconds.append(time.perf_counter() - start)
        if getattr(self.player, "move_time", None):
            self.depths.append(self.player.depth)
        return action

    def summary(self) -> dict[str, float]:
        """`move_sec_mean` and `move_sec_max` over the moves timed, and `moves`.

        For a search given a time per move, also `depth_mean`, `depth_min` and
        `depth_max`: how deep it got.
        """
        times = np.asarray(self.seconds or [0.0])
        out = {
            "move_sec_mean": float(times.mean()),
            "move_sec_max": float(times.max()),
            "moves": float(len(self.seconds)),
        }
        if self.depths:
            depths = np.asarray(self.depths)
            out |= {
                "depth_mean": float(depths.mean()),
                "depth_min": float(depths.min()),
                "depth_max": float(depths.max()),
            }
        return out
