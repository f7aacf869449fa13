"""The input pipeline: replay memory -> whole batches -> from_generator -> prefetch.

The generator is the only owner of the replay ring: it drains the agents' queue into
the ring and yields fixed-shape numpy batches when the replay ratio allows. It never
calls TensorFlow (a tf.function inside the generator can hang).
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator, Sequence

import numpy as np
import tensorflow as tf

from boardq.replay import RateLimiter, ReplayRing, Symmetry, augment

__all__ = ["ReplayFeed", "make_dataset"]


class ReplayFeed:
    """Generator side of the pipeline.

    Args:
      in_queue: chunks of transitions from the agents.
      ring: the replay memory (owned by this feed's thread once it runs).
      limiter: holds the replay ratio.
      batch_size: transitions per yielded batch.
      stop: set to end the generator (checked at least every `poll_sec`).
      seed: sampling seed.
      symmetries: board symmetries for augmentation (empty: none).
    """

    def __init__(
        self,
        in_queue: queue.Queue,
        ring: ReplayRing,
        limiter: RateLimiter,
        batch_size: int,
        stop: threading.Event,
        seed: int,
        symmetries: Sequence[Symmetry] = (),
        poll_sec: float = 0.05,
    ):
        self.queue = in_queue
        self.ring = ring
        self.limiter = limiter
        self.batch_size = batch_size
        self.stop = stop
        self.symmetries = list(symmetries)
        self.poll_sec = poll_sec
        self._rng = np.random.default_rng(seed)
        self.batches = 0

    def drain(self) -> int:
        """Moves every chunk waiting in the queue into the ring; returns how many."""
        moved = 0
        while True:
            try:
                chunk = self.queue.get_nowait()
            except queue.Empty:
                return moved
            self.ring.add(chunk)
            moved += 1

    def __call__(self) -> Iterator[dict[str, np.ndarray]]:
        while not self.stop.is_set():
            self.drain()
            if self.ring.size >= self.batch_size and self.limiter.try_sample(self.batch_size):
                batch = self.ring.sample(self.batch_size, self._rng)
                self.batches += 1
                yield augment(batch, self.symmetries, self._rng)
                continue
            try:
                chunk = self.queue.get(timeout=self.poll_sec)
            except queue.Empty:
                continue
            self.ring.add(chunk)


def make_dataset(feed: ReplayFeed, signature: dict[str, tf.TensorSpec]) -> tf.data.Dataset:
    """`from_generator` with a fixed output signature, then `prefetch(AUTOTUNE)`."""
    ds = tf.data.Dataset.from_generator(feed, output_signature=signature)
    return ds.prefetch(tf.data.AUTOTUNE)
