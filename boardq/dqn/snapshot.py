"""Versioned weight snapshots: the learner publishes, actors read (threading only)."""

from __future__ import annotations

import threading
from collections import deque
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["Snapshot", "SnapshotBox", "SnapshotPool"]


@dataclass(frozen=True)
class Snapshot:
    """An immutable set of weights and the learner version that produced it.

    Attributes:
      version: the learner's train step when it was taken.
      weights: the weights as TensorFlow's forward pass takes them (tensors).
      arrays: the same weights as numpy arrays (empty: read from `weights` on demand).
    """

    version: int
    weights: tuple[Any, ...]
    arrays: tuple[np.ndarray, ...] = ()

    def numpy_weights(self) -> tuple[np.ndarray, ...]:
        """The weights as numpy arrays (numpy inference, Ray, agent files)."""
        return self.arrays or tuple(np.asarray(w) for w in self.weights)


class SnapshotBox:
    """Holds the newest snapshot; publishing swaps the whole set at once.

    Readers get one reference to a frozen Snapshot, so a reader can never combine
    weights of two versions.
    """

    def __init__(self, snapshot: Snapshot):
        self._lock = threading.Lock()
        self._snapshot = snapshot

    def publish(self, snapshot: Snapshot) -> None:
        with self._lock:
            if snapshot.version < self._snapshot.version:
                raise ValueError("snapshot versions must not go backwards")
            self._snapshot = snapshot

    def get(self) -> Snapshot:
        with self._lock:
            return self._snapshot

    @property
    def version(self) -> int:
        return self.get().version


class SnapshotPool:
    """Past snapshots for the opponent pool.

    One every `every_steps` train steps, the newest `size` of them.

    The learner offers every snapshot it publishes; actors draw one to play some of
    their games against (the league idea: the agent keeps beating its old selves).

    Args:
      size: snapshots kept.
      every_steps: train steps between the snapshots kept.
    """

    def __init__(self, size: int, every_steps: int):
        if size < 1 or every_steps < 1:
            raise ValueError("size and every_steps must be at least 1")
        self._every = every_steps
        self._kept: deque[Snapshot] = deque(maxlen=size)
        self._lock = threading.Lock()

    def offer(self, snapshot: Snapshot) -> bool:
        """Keeps the snapshot if it is the first to reach its multiple of `every_steps`."""
        stage = snapshot.version // self._every
        with self._lock:
            last = self._kept[-1].version // self._every if self._kept else 0
            if stage <= last:
                return False
            self._kept.append(snapshot)
            return True

    def sample(self, rng: np.random.Generator) -> Snapshot | None:
        """A kept snapshot chosen uniformly, or None while the pool is empty."""
        with self._lock:
            kept = list(self._kept)
        return kept[int(rng.integers(len(kept)))] if kept else None

    def kept(self) -> list[Snapshot]:
        """The snapshots kept, oldest first (a checkpoint saves them)."""
        with self._lock:
            return list(self._kept)

    def restore(self, snapshots: list[Snapshot]) -> None:
        """Keeps these snapshots (oldest first) instead of those kept now (a resumed run's)."""
        with self._lock:
            self._kept.clear()
            self._kept.extend(snapshots)

    @property
    def versions(self) -> list[int]:
        with self._lock:
            return [s.version for s in self._kept]
