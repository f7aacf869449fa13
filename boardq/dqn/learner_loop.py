"""The learner thread's loop: compiled calls of K train steps, snapshots when due."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import tensorflow as tf

    from boardq.dqn.learner import Learner

__all__ = ["LearnerLoop", "Source", "publish_due"]

Source = Callable[[int], Mapping[str, Any]]
"""Where a call's element comes from: `(steps) -> metrics` (`Learner.train` on an
iterator, or `Learner.train_on` an element on the device)."""


def publish_due(before: int, after: int, every: int) -> bool:
    """Whether a snapshot for the actors is due after a call.

    It is when the call took the step count from `before` to `after` across a
    multiple of `every`.
    """
    return after // every > before // every


class LearnerLoop:
    """The learner thread: one compiled call of up to K train steps per turn.

    After each call a snapshot is published for the actors when the call reached a
    multiple of `publish_every`. The call's time is split into waiting for data (timed
    inside the graph) and busy. Sources are functions `(steps) -> metrics`:
    `Learner.train` on an iterator, or `Learner.train_on` an element on the device;
    `mode` names the one in use (the benchmark switches it from another thread).

    Args:
      learner: the learner.
      sources: name -> source.
      steps_per_call: K.
      publish_every: train steps between snapshots.
      start_step: the train step count so far (a resumed run's).
      budget_steps: stop at this many train steps (0: no limit); the last call takes
        fewer steps so the budget is exact.
    """

    def __init__(
        self,
        learner: Learner,
        sources: Mapping[str, Source],
        steps_per_call: int,
        publish_every: int,
        start_step: int = 0,
        budget_steps: int = 0,
    ):
        self._learner = learner
        self._sources = dict(sources)
        self._k = steps_per_call
        self._publish_every = publish_every
        self._budget = budget_steps
        self.mode = next(iter(self._sources))
        # Counted in Python: reading the step variable would wait for the device.
        self.steps = start_step
        self.busy_sec = dict.fromkeys(self._sources, 0.0)
        self.wait_sec = dict.fromkeys(self._sources, 0.0)
        self.metrics: Mapping[str, tf.Tensor] = {}

    def steps_left(self) -> int | None:
        """Train steps the budget leaves (None: no step budget)."""
        return max(0, self._budget - self.steps) if self._budget else None

    def call(self) -> bool:
        """One compiled call; False when the budget is spent or the source ended."""
        import tensorflow as tf

        left = self.steps_left()
        steps = self._k if left is None else min(self._k, left)
        if steps == 0:
            return False
        mode = self.mode
        t0 = time.perf_counter()
        try:
            metrics = dict(self._sources[mode](steps))
        except tf.errors.OutOfRangeError:  # the pipeline ended (shutdown)
            return False
        elapsed = time.perf_counter() - t0
        wait = float(metrics.pop("data_wait_sec"))  # on the host: no device sync
        before, self.steps = self.steps, self.steps + steps
        if publish_due(before, self.steps, self._publish_every):
            self._learner.publish()
        self.wait_sec[mode] += wait
        self.busy_sec[mode] += elapsed - wait
        self.metrics = metrics
        return True

    def run(self, stop, after_call: Callable[[], None] | None = None) -> None:
        """Calls until `stop` is set, the budget is spent (then sets `stop`) or the data ends.

        `after_call` runs after each call (no train step runs then).
        """
        while not stop.is_set():
            if not self.call():
                if self.steps_left() == 0:
                    stop.set()
                return
            if after_call is not None:
                after_call()
