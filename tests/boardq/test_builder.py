"""The one wiring: what the Builder makes, and the learner's loop."""

from __future__ import annotations

import threading

import numpy as np
import pytest
import tensorflow as tf

from boardq.builder import Builder, LearnerLoop, publish_due
from boardq.gamebatch import EnvGames
from boardq.transitions import FIELDS
from games import get_game


@pytest.mark.parametrize(
    ("before", "after", "every", "due"),
    [(0, 2, 4, False), (2, 4, 4, True), (4, 12, 8, True), (8, 12, 8, False), (0, 8, 3, True)],
)
def test_a_snapshot_is_due_after_the_call_that_reaches_a_multiple(before, after, every, due):
    assert publish_due(before, after, every) is due


def test_every_actor_thread_of_every_process_gets_its_own_seed():
    builder = Builder(get_game("tictactoe").preset.replace(seed=3), get_game("tictactoe"))
    seeds = {builder.actor_seed(t, p) for t in range(64) for p in range(64)}
    assert len(seeds) == 64 * 64
    other = Builder(get_game("tictactoe").preset.replace(seed=4), get_game("tictactoe"))
    assert not seeds & {other.actor_seed(t, p) for t in range(64) for p in range(64)}


def test_actors_play_their_own_games_with_the_chosen_stepping(tiny_config):
    game = get_game("tictactoe")
    builder = Builder(tiny_config.replace(vectorized=False), game)
    actors = builder.make_actors(lambda obs: (np.zeros((len(obs), 9)), 0), None, lambda: 1.0)
    assert [a.name for a in actors] == ["actor-0", "actor-1"]
    assert all(isinstance(a.games, EnvGames) for a in actors)
    envs = [id(e) for a in actors for e in a.games.envs]
    assert len(set(envs)) == len(envs) == 2 * tiny_config.games_per_thread
    remote = builder.make_actors(
        lambda obs: (np.zeros((len(obs), 9)), 0), None, lambda: 1.0, process=2
    )
    assert [a.name for a in remote] == ["actor-2-0", "actor-2-1"]


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


def test_the_feed_and_the_iterator_carry_the_schema(tiny_config):
    game = get_game("tictactoe")
    builder = Builder(tiny_config, game)
    learner = builder.make_learner()
    q = builder.make_queue()
    ring, limiter = builder.make_replay(warmup=0)
    stop = threading.Event()
    feed = builder.make_feed(q, ring, limiter, stop)
    rng = np.random.default_rng(0)
    chunk = {
        name: rng.integers(0, 2, (500, *spec.shape[2:])).astype(spec.dtype.as_numpy_dtype)
        for name, spec in learner.element_spec.items()
    }
    limiter.await_insert(500, stop, 0.1)
    q.put(chunk)
    iterator = builder.make_dataset_iterator(feed, learner)
    element = next(iterator)
    # Stop the generator before the iterator goes: deleting a from_generator iterator
    # waits for its generator, which waits for data until stopped.
    stop.set()
    del iterator
    assert tuple(element) == FIELDS
    for name, spec in learner.element_spec.items():
        assert element[name].shape == spec.shape and element[name].dtype == spec.dtype
    act = builder.make_policy(learner.q_function, learner.snapshots)
    q_values, version = act(chunk["obs"][:5])
    assert q_values.shape == (5, 9) and version == 0
