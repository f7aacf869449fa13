"""The input pipeline: replay memory -> groups of whole batches -> from_generator -> prefetch.

The generator is the only owner of the replay ring: it drains the agents' queue into
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

from boardq.replay import RateLimiter, ReplayRing, Symmetry, augment

__all__ = [
    "PermutationAugment",
    "ReplayFeed",
    "element_signature",
    "make_dataset",
    "prefetched",
]


class PermutationAugment:
    """`replay.augment` in one gather per column, for symmetries that permute cells.

    A board symmetry moves cells and never changes their values, so each one is an
    index permutation of the flattened planes. `augment` applies the chosen images
    row by row with several array operations per symmetry; this applies them to the
    whole batch at once. It draws the same random numbers in the same order, so the
    batches are identical to `augment`'s.

    Args:
      symmetries: the symmetries, as given to `augment` (identity first).
      obs_shape: shape of one observation.

    Raises:
      ValueError: a symmetry's `planes` is not a permutation of cells (use `augment`).
    """

    def __init__(self, symmetries: Sequence[Symmetry], obs_shape: Sequence[int]):
        self.obs_shape = tuple(int(d) for d in obs_shape)
        self.size = len(symmetries)
        cells = int(np.prod(self.obs_shape))
        grid = np.arange(cells, dtype=np.int64).reshape(1, *self.obs_shape)
        perms = []
        for sym in symmetries:
            perm = np.asarray(sym.planes(grid)).reshape(-1)
            if perm.shape != (cells,) or not np.array_equal(np.sort(perm), grid.reshape(-1)):
                raise ValueError("a symmetry's planes are not a permutation of the cells")
            perms.append(perm)
        # image.flat[j] = original.flat[plane_index[k, j]] for symmetry k.
        self.plane_index = np.stack(perms).astype(np.intp)  # [K, H*W*C]
        self.action_map = np.stack([s.action_map for s in symmetries])  # [K, A]
        self.mask_index = np.stack([s.inverse_map for s in symmetries])  # [K, A]
        self._offsets = np.zeros((0, 1), np.intp)

    def _row_offsets(self, n: int) -> np.ndarray:
        if self._offsets.shape[0] != n:
            self._offsets = (np.arange(n, dtype=np.intp) * self.plane_index.shape[1])[:, None]
        return self._offsets

    @classmethod
    def try_build(
        cls, symmetries: Sequence[Symmetry], obs_shape: Sequence[int]
    ) -> PermutationAugment | None:
        """The fast path, or None where it does not apply (then use `augment`)."""
        try:
            return cls(symmetries, obs_shape)
        except ValueError:
            return None

    def __call__(
        self, batch: dict[str, np.ndarray], rng: np.random.Generator
    ) -> dict[str, np.ndarray]:
        """Maps each transition through one symmetry chosen uniformly (like `augment`)."""
        if self.size <= 1:
            return batch
        n = len(batch["action"])
        choice = rng.integers(0, self.size, n)  # the draw `augment` makes
        # Positions in the flattened batch: row b's cells start at b * cells.
        index = self.plane_index[choice]  # [B, H*W*C]
        index += self._row_offsets(n)
        for key in ("obs", "next_obs"):
            planes = np.ascontiguousarray(batch[key])
            batch[key] = planes.reshape(-1).take(index).reshape(planes.shape)
        action = batch["action"]
        batch["action"] = self.action_map[choice, action].astype(action.dtype, copy=False)
        batch["next_mask"] = np.take_along_axis(batch["next_mask"], self.mask_index[choice], axis=1)
        return batch


class ReplayFeed:
    """Generator side of the pipeline.

    Each element it yields holds `batches_per_element` whole batches, stacked
    [K, B, ...]: the rows of one draw of K*B transitions from the ring, each mapped
    through one random symmetry. The learner trains on all K in one compiled call
    (`Learner.train`), so from_generator's fixed Python cost and the iterator's
    hand-over are paid once per K train steps. An element is sampled only when the
    rate limiter allows all K*B samples at once.

    Args:
      in_queue: chunks of transitions from the agents.
      ring: the replay memory (owned by this feed's thread once it runs).
      limiter: holds the replay ratio.
      batch_size: transitions per batch.
      stop: set to end the generator (checked at least every `poll_sec`).
      seed: sampling seed.
      symmetries: board symmetries for augmentation (empty: none).
      batches_per_element: K, the batches in each element (the learner's
        `steps_per_call`).
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
        self._rng = np.random.default_rng(seed)
        self.batches = 0
        self._fast_augment: PermutationAugment | None = None
        self._fast_checked = False

    def _augment(self, batch: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        if len(self.symmetries) <= 1:
            return batch
        if not self._fast_checked:
            self._fast_checked = True
            shape = batch["obs"].shape[1:]
            self._fast_augment = PermutationAugment.try_build(self.symmetries, shape)
        if self._fast_augment is not None:
            return self._fast_augment(batch, self._rng)
        return augment(batch, self.symmetries, self._rng)

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
            rows = self._augment(self.ring.sample(k * b, self._rng))
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
        while not self.stop.is_set():
            element = self._next_ready()
            if element is not None:
                yield element
                continue
            self._wait_for_chunk()


def element_signature(
    batch_spec: dict[str, tf.TensorSpec], batches: int
) -> dict[str, tf.TensorSpec]:
    """The signature of an element that stacks `batches` batches of `batch_spec`."""
    return {k: tf.TensorSpec([batches, *s.shape], s.dtype) for k, s in batch_spec.items()}


def prefetched(ds: tf.data.Dataset, elements: int = 2) -> tf.data.Dataset:
    """`prefetch(elements)` with tf.data's autotuning off.

    Autotuning re-plans the pipeline in the background; on a small CPU machine that
    work competes with the train step (about 5% of a tic-tac-toe step on two cores)
    and buys nothing here, where one generator thread is the whole pipeline.
    """
    options = tf.data.Options()
    options.autotune.enabled = False
    return ds.prefetch(elements).with_options(options)


def make_dataset(
    feed: ReplayFeed, batch_spec: dict[str, tf.TensorSpec], prefetch_elements: int = 2
) -> tf.data.Dataset:
    """`from_generator` with a fixed output signature, then prefetch (see `prefetched`).

    Each element is `feed.batches_per_element` batches of `batch_spec`, stacked.
    `from_generator` pays a fixed Python cost per element (about as much as sampling
    and augmenting a batch) and the consumer a fixed hand-over per element, so an
    element carries all the batches of one compiled train call.
    """
    signature = element_signature(batch_spec, feed.batches_per_element)
    ds = tf.data.Dataset.from_generator(feed, output_signature=signature)
    return prefetched(ds, prefetch_elements)
