"""The input pipeline: replay memory -> groups of whole batches -> from_generator -> prefetch.

The generator is the only owner of the replay ring: it drains the actors' queue into
the ring and, when the replay ratio allows, yields fixed-shape numpy elements of K
whole batches (the learner's `steps_per_call`). It never calls TensorFlow (a
tf.function inside the generator can hang).
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator, Sequence

import numpy as np
import tensorflow as tf

from boardq.dqn.replay import RateLimiter, ReplayRing
from boardq.symmetry import Symmetry, make_augmenter

__all__ = ["PREFETCH_ELEMENTS", "ReplayFeed", "make_dataset", "prefetched", "run_to_end"]

PREFETCH_ELEMENTS = 2
"""Elements the pipeline keeps ready: the training run's and the benchmark's iterator floor."""


class ReplayFeed:
    """Generator side of the pipeline.

    Each element it yields holds `batches_per_element` whole batches, stacked
    [K, B, ...]: the rows of one draw of K*B transitions from the ring, each mapped
    through one random symmetry. The learner trains on all K in one compiled call
    (`Learner.train`), so from_generator's fixed Python cost and the iterator's
    hand-over are paid once per K train steps. An element is sampled only when the
    rate limiter allows all K*B samples at once.

    Args:
      in_queue: chunks of transitions from the actors.
      ring: the replay memory (owned by this feed's thread once it runs).
      limiter: holds the replay ratio.
      batch_size: transitions per batch.
      stop: set to end the generator (checked at least every `poll_sec`).
      seed: sampling seed.
      symmetries: board symmetries for augmentation (empty: none).
      batches_per_element: K, the batches in each element (the learner's
        `steps_per_call`).
      point_columns: columns of one value a board point, which the symmetries move
        as they move the planes' cells (`boardq.dqn.ownership.POINT_COLUMNS`).

    `ended` is True once a generator call returned because `stop` was set (not while
    it is suspended at a `yield`).
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
        batches_per_element: int = 1,
        point_columns: Sequence[str] = (),
    ):
        if batches_per_element < 1:
            raise ValueError("batches_per_element must be >= 1")
        self.queue = in_queue
        self.ring = ring
        self.limiter = limiter
        self.batch_size = batch_size
        self.batches_per_element = batches_per_element
        self.stop = stop
        self.symmetries = list(symmetries)
        self.poll_sec = poll_sec
        self.rng = np.random.default_rng(seed)  # a checkpoint keeps its state
        self.batches = 0
        self.ended = False
        self._augment = make_augmenter(self.symmetries, ring.obs_shape, point_columns)

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

    def _next_ready(self) -> dict[str, np.ndarray] | None:
        """Drains the queue, then samples an element if the ring and the ratio allow it."""
        self.drain()
        k, b = self.batches_per_element, self.batch_size
        if self.ring.size >= b and self.limiter.try_sample(k * b):
            rows = self._augment(self.ring.sample(k * b, self.rng), self.rng)
            self.batches += k
            return {key: value.reshape(k, b, *value.shape[1:]) for key, value in rows.items()}
        return None

    def _wait_for_chunk(self) -> None:
        try:
            chunk = self.queue.get(timeout=self.poll_sec)
        except queue.Empty:
            return
        self.ring.add(chunk)

    def __call__(self) -> Iterator[dict[str, np.ndarray]]:
        """Elements of K batches, [K, B, ...], until `stop` is set."""
        self.ended = False
        while not self.stop.is_set():
            element = self._next_ready()
            if element is not None:
                yield element
                continue
            self._wait_for_chunk()
        self.ended = True


def prefetched(ds: tf.data.Dataset, elements: int = PREFETCH_ELEMENTS) -> tf.data.Dataset:
    """`prefetch(elements)` with tf.data's autotuning off.

    Autotuning re-plans the pipeline in the background; on a small CPU machine that
    work competes with the train step (about 5% of a tic-tac-toe step on two cores)
    and buys nothing here, where one generator thread is the whole pipeline.
    """
    options = tf.data.Options()
    options.autotune.enabled = False
    return ds.prefetch(elements).with_options(options)


def make_dataset(
    feed: ReplayFeed,
    element_spec: dict[str, tf.TensorSpec],
    prefetch_elements: int = PREFETCH_ELEMENTS,
) -> tf.data.Dataset:
    """`from_generator` with a fixed output signature, then prefetch (see `prefetched`).

    Each element is `feed.batches_per_element` batches, stacked [K, B, ...]
    (`element_spec`, the learner's `Learner.element_spec`).
    `from_generator` pays a fixed Python cost per element (about as much as sampling
    and augmenting a batch) and the consumer a fixed hand-over per element, so an
    element carries all the batches of one compiled train call.
    """
    ds = tf.data.Dataset.from_generator(feed, output_signature=element_spec)
    return prefetched(ds, prefetch_elements)


def run_to_end(iterator) -> None:
    """Runs a stopped feed's generator to its end, here on the calling (main) thread.

    With the stop set, the generator returns at its next call, so this takes at most
    the elements already prefetched. `from_generator` then runs its Python finalizer
    now, while the interpreter runs, instead of when the iterator is destroyed, which
    for a run left to the interpreter's exit is during finalization, when TensorFlow's
    threads can no longer call Python.
    """
    try:
        for _ in iterator:
            pass
    except Exception:  # the pipeline failed: its error was already raised, or is moot
        pass
