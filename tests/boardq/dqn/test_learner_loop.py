"""The learner thread's loop: exact step budgets, snapshots when due, time by source."""

from __future__ import annotations

import threading

import pytest
import tensorflow as tf

from boardq.dqn.learner_loop import LearnerLoop, publish_due


@pytest.mark.parametrize(
    ("before", "after", "every", "due"),
    [(0, 2, 4, False), (2, 4, 4, True), (4, 12, 8, True), (8, 12, 8, False), (0, 8, 3, True)],
)
def test_a_snapshot_is_due_after_the_call_that_reaches_a_multiple(before, after, every, due):
    assert publish_due(before, after, every) is due


class FakeLearner:
    """Counts publishes; the loop needs nothing else of a learner."""

    def __init__(self):
        self.published = []

    def publish(self):
        self.published.append(True)


def _source(calls, wait=0.0):
    def train(steps):
        calls.append(steps)
        return {"loss": tf.constant(1.0), "data_wait_sec": tf.constant(wait, tf.float64)}

    return train


def test_the_loop_stops_exactly_at_the_step_budget_and_publishes_on_multiples():
    calls: list[int] = []
    learner = FakeLearner()
    loop = LearnerLoop(
        learner, {"a": _source(calls)}, steps_per_call=8, publish_every=16, budget_steps=30
    )
    stop = threading.Event()
    loop.run(stop)
    assert calls == [8, 8, 8, 6]  # the last call takes what the budget leaves
    assert loop.steps == 30 and stop.is_set()
    assert len(learner.published) == 1  # step 16 (32 is beyond the budget)
    assert float(loop.metrics["loss"]) == 1.0 and "data_wait_sec" not in loop.metrics


def test_the_loop_splits_time_by_source_and_ends_with_its_data():
    calls: list[int] = []
    ended = []

    def finite(steps):
        if len(ended) == 2:
            raise tf.errors.OutOfRangeError(None, None, "end of data")
        ended.append(steps)
        return {"data_wait_sec": tf.constant(0.25, tf.float64)}

    loop = LearnerLoop(
        FakeLearner(), {"a": _source(calls), "b": finite}, 4, publish_every=4, start_step=100
    )
    assert loop.call() and loop.steps == 104
    loop.mode = "b"
    stop = threading.Event()
    after = []
    loop.run(stop, after_call=lambda: after.append(loop.steps))
    assert after == [108, 112] and not stop.is_set()  # the data ended, not the budget
    assert loop.wait_sec["b"] == pytest.approx(0.5) and loop.wait_sec["a"] == 0.0
    assert loop.steps_left() is None
