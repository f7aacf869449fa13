"""Versioned weight snapshots: the learner publishes, actors read (threading only)."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

__all__ = ["Snapshot", "SnapshotBox"]


@dataclass(frozen=True)
class Snapshot:
    """An immutable set of weights and the learner version that produced it."""

    version: int
    weights: tuple[Any, ...]


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
