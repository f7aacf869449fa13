"""Replay memory and the replay-ratio rate limiter (numpy and threading only)."""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np

from boardq.dqn.transitions import empty_columns

__all__ = ["RateLimiter", "ReplayRing"]


class ReplayRing:
    """A fixed-capacity ring of transitions with uniform sampling.

    Boards are int8 and masks bool, so a Connect Four transition takes under 200
    bytes. Only one thread writes and samples (the dataset generator); others may
    read `size` and `added`.
    """

    def __init__(self, capacity: int, obs_shape: Sequence[int], num_actions: int):
        self.capacity = int(capacity)
        self.obs_shape = tuple(obs_shape)
        self._data = empty_columns(self.capacity, obs_shape, num_actions)
        self._next = 0
        self.size = 0
        self.added = 0

    @property
    def nbytes(self) -> int:
        return sum(a.nbytes for a in self._data.values())

    def add(self, chunk: dict[str, np.ndarray]) -> None:
        """Appends a chunk of column arrays (`transitions.SCHEMA`)."""
        n = len(chunk["action"])
        if n > self.capacity:
            chunk = {k: v[-self.capacity :] for k, v in chunk.items()}
            n = self.capacity
        idx = (self._next + np.arange(n)) % self.capacity
        for key, column in self._data.items():
            column[idx] = chunk[key]
        self._next = (self._next + n) % self.capacity
        self.size = min(self.capacity, self.size + n)
        self.added += n

    def sample(self, batch_size: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        """A uniform sample with replacement, as fresh arrays."""
        if self.size == 0:
            raise ValueError("cannot sample from an empty replay memory")
        idx = rng.integers(0, self.size, batch_size)
        return {key: column[idx] for key, column in self._data.items()}


class RateLimiter:
    """Holds the replay ratio (samples trained per transition collected).

    The reverb `SampleToInsertRatio` rule: with diff = ratio * (inserted - warmup)
    - sampled, inserts wait while diff would exceed +tolerance and samples wait while
    it would fall below -tolerance, so neither a slow learner nor slow actors change
    how many times each transition is trained on. Every wait has a timeout and
    returns False when `stop` is set or the time runs out; callers loop.
    """

    def __init__(self, ratio: float, warmup: int, tolerance: float):
        if tolerance <= 0:
            raise ValueError("tolerance must be > 0")
        self.ratio = float(ratio)
        self.warmup = int(warmup)
        self.tolerance = float(tolerance)
        self.inserted = 0
        self.sampled = 0
        self._cond = threading.Condition()

    def _diff(self, inserted: int, sampled: int) -> float:
        return self.ratio * (inserted - self.warmup) - sampled

    def _can_insert(self, n: int) -> bool:
        if self.inserted < self.warmup:
            return True
        return self._diff(self.inserted + n, self.sampled) <= self.tolerance

    def _can_sample(self, n: int) -> bool:
        if self.inserted < self.warmup:
            return False
        return self._diff(self.inserted, self.sampled + n) >= -self.tolerance

    def await_insert(self, n: int, stop: threading.Event | None, timeout: float) -> bool:
        """Blocks until n transitions may be inserted, then counts them."""
        with self._cond:
            ok = self._cond.wait_for(
                lambda: self._can_insert(n) or (stop is not None and stop.is_set()), timeout
            )
            if not ok or (stop is not None and stop.is_set()):
                return False
            self.inserted += n
            self._cond.notify_all()
            return True

    def try_sample(self, n: int) -> bool:
        """Counts n samples if the ratio allows it now; never blocks."""
        with self._cond:
            if not self._can_sample(n):
                return False
            self.sampled += n
            self._cond.notify_all()
            return True
