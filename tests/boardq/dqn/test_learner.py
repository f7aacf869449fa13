"""The learner: single write path, target updates, consistent snapshots."""

from __future__ import annotations

import threading
import time
import zlib

import numpy as np
import pytest
import tensorflow as tf

from boardq.dqn.learner import Learner
from boardq.dqn.schema import FIELDS
from boardq.dqn.snapshot import SnapshotPool
from boardq_games import get_game


def test_specs_follow_the_batch_schema():
    learner = _learner(steps_per_call=3)
    assert tuple(learner.spec) == FIELDS
    assert learner.spec["obs"].shape == (32, 3, 3, 2) and learner.spec["obs"].dtype == tf.int8
    assert learner.spec["next_mask"].shape == (32, 9)
    assert learner.element_spec["action"].shape == (3, 32)
    assert learner.element_spec["action"].dtype == tf.int16


def _learner(**changes):
    game = get_game("tictactoe")
    cfg = game.preset.replace(batch_size=32, hidden_units=(16,), **changes)
    learner = Learner(cfg, game.obs_shape, game.num_actions)
    learner.warm_up()
    return learner


def _batch(learner, seed=0):
    rng = np.random.default_rng(seed)
    out = {}
    for key, spec in learner.spec.items():
        shape = spec.shape.as_list()
        if spec.dtype == tf.int8:
            value = rng.integers(0, 2, shape).astype(np.int8)
        elif spec.dtype == tf.int16:
            value = rng.integers(0, 9, shape).astype(np.int16)
        elif spec.dtype == tf.bool:
            value = rng.random(shape) < 0.5
        else:
            value = rng.uniform(-1, 1, shape).astype(np.float32)
        out[key] = tf.constant(value)
    return out


def _digest(weights) -> int:
    return zlib.crc32(b"".join(np.asarray(w).tobytes() for w in weights))


def test_train_step_learns_a_fixed_target():
    learner = _learner(learning_rate=1e-2)
    batch = _batch(learner)
    batch["discount"] = tf.zeros_like(batch["discount"])  # targets = rewards
    first = float(learner.train_step(batch)["loss"])
    for _ in range(200):
        last = float(learner.train_step(batch)["loss"])
    assert last < first / 10
    assert int(learner.step.numpy()) == 201


@pytest.mark.parametrize("tau", [0.25, 0.05])
def test_soft_update_moves_target_by_tau(tau):
    learner = _learner(tau=tau)
    rng = np.random.default_rng(0)  # a target apart from the online network
    learner.target.set_weights(
        [w + rng.normal(0, 0.3, w.shape) for w in learner.target.get_weights()]
    )
    before_t = [w.copy() for w in learner.target.get_weights()]
    learner.train_step(_batch(learner))
    after_o = learner.online.get_weights()
    after_t = learner.target.get_weights()
    for t0, o1, t1 in zip(before_t, after_o, after_t, strict=True):
        np.testing.assert_allclose(t1, tau * o1 + (1 - tau) * t0, rtol=1e-5, atol=1e-6)


def test_hard_update_copies_every_k_steps():
    learner = _learner(hard_update_every_steps=3)
    batch = _batch(learner)
    start = [w.copy() for w in learner.target.get_weights()]
    learner.train_step(batch)
    learner.train_step(batch)
    for a, b in zip(start, learner.target.get_weights(), strict=True):
        np.testing.assert_array_equal(a, b)  # not yet
    learner.train_step(batch)
    for a, b in zip(learner.online.get_weights(), learner.target.get_weights(), strict=True):
        np.testing.assert_array_equal(a, b)


def test_only_the_train_step_changes_weights():
    learner = _learner()
    w0 = _digest(learner.online.get_weights())
    learner.publish()
    learner.q_function(tf.zeros((4, 3, 3, 2), tf.int8), learner.snapshots.get().weights)
    assert _digest(learner.online.get_weights()) == w0
    learner.train_step(_batch(learner))
    assert _digest(learner.online.get_weights()) != w0


def test_each_published_snapshot_is_offered_to_the_opponent_pool():
    game = get_game("tictactoe")
    cfg = game.preset.replace(batch_size=32, hidden_units=(16,))
    pool = SnapshotPool(size=2, every_steps=1)
    learner = Learner(cfg, game.obs_shape, game.num_actions, pool=pool)
    learner.train_step(_batch(learner))
    assert learner.publish() == 1
    assert pool.versions == [1] and pool.kept()[0] is learner.snapshots.get()


def test_the_learning_rate_anneals_along_a_half_cosine_and_the_step_follows_it():
    learner = _learner(learning_rate=1e-2, lr_final=0.0)
    batch = _batch(learner)
    assert learner.anneal(0.0) == pytest.approx(1e-2)
    assert learner.anneal(0.5) == pytest.approx(0.5e-2)
    assert learner.anneal(1.0) == pytest.approx(0.0)
    w0 = _digest(learner.online.get_weights())
    learner.train_step(batch)  # the compiled step reads the rate: a step of zero
    assert _digest(learner.online.get_weights()) == w0
    learner.anneal(0.9)
    learner.train_step(batch)
    assert _digest(learner.online.get_weights()) != w0
    floor = _learner(learning_rate=1e-2, lr_final=0.25)
    assert floor.anneal(0.0) == pytest.approx(1e-2)  # the floor leaves the start alone
    assert floor.anneal(0.5) == pytest.approx(1e-2 * (0.25 + 0.75 * 0.5))
    assert floor.anneal(1.0) == pytest.approx(0.25e-2)
    assert floor.anneal(7.0) == pytest.approx(0.25e-2)  # past the budget it stays there


def test_no_torn_reads_while_the_learner_writes():
    """Every snapshot an agent reads equals the weights of exactly one version."""
    learner = _learner(learning_rate=1e-2)
    batch = _batch(learner)
    published: dict[int, int] = {
        learner.snapshots.version: _digest(learner.snapshots.get().weights)
    }
    seen: list[tuple[int, int, float]] = []
    stop = threading.Event()
    probe = tf.constant(np.ones((1, 3, 3, 2), np.int8))

    def reader():
        while not stop.is_set():
            snap = learner.snapshots.get()
            q = learner.q_function(probe, snap.weights).numpy()[0, 0]
            seen.append((snap.version, _digest(snap.weights), float(q)))

    threads = [threading.Thread(target=reader) for _ in range(2)]
    for t in threads:
        t.start()
    expected_q = {}
    for _ in range(150):
        learner.train_step(batch)
        version = learner.publish()
        snap = learner.snapshots.get()
        published[version] = _digest(snap.weights)
        expected_q[version] = float(learner.online(probe).numpy()[0, 0])
    stop.set()
    for t in threads:
        t.join()
    assert len({v for v, _, _ in seen}) > 5, "readers must overlap many updates"
    for version, digest, q in seen:
        assert published[version] == digest
        if version in expected_q:
            assert abs(expected_q[version] - q) < 1e-5


def _element(batches):
    return {key: tf.stack([b[key] for b in batches]) for key in batches[0]}


def test_one_call_of_k_steps_equals_k_single_steps():
    """`train` takes one element of K batches in the graph and applies them in order."""
    single = _learner(learning_rate=1e-2, steps_per_call=4)
    looped = _learner(learning_rate=1e-2, steps_per_call=4)
    batches = [_batch(single, seed) for seed in range(8)]
    losses = [float(single.train_step(b)["loss"]) for b in batches]
    dataset = tf.data.Dataset.from_tensors(_element(batches[:4])).concatenate(
        tf.data.Dataset.from_tensors(_element(batches[4:]))
    )
    iterator = iter(dataset)
    t0 = time.perf_counter()
    first = looped.train(iterator)
    call_sec = time.perf_counter() - t0
    second = looped.train(iterator)
    assert int(looped.step.numpy()) == 8
    for a, b in zip(single.online.get_weights(), looped.online.get_weights(), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)
    for a, b in zip(single.target.get_weights(), looped.target.get_weights(), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)
    # Metrics are the means over the call's steps.
    assert float(first["loss"]) == pytest.approx(np.mean(losses[:4]), rel=1e-5)
    assert float(second["loss"]) == pytest.approx(np.mean(losses[4:]), rel=1e-5)
    # The wait for an element already made is part of the call, never all of it.
    assert 0.0 <= float(first["data_wait_sec"]) < call_sec
    # Traced once on the main thread (warm_up); new iterators reuse that trace.
    assert looped._train_from.experimental_get_tracing_count() == 1
    with pytest.raises(tf.errors.OutOfRangeError):
        looped.train(iterator)
    assert int(looped.step.numpy()) == 8  # the end of the data applies nothing


def test_fewer_steps_use_the_first_batches_of_the_element():
    a = _learner(learning_rate=1e-2, steps_per_call=4)
    b = _learner(learning_rate=1e-2, steps_per_call=4)
    batches = [_batch(a, seed) for seed in range(4)]
    a.train_on(_element(batches), steps=3)
    for batch in batches[:3]:
        b.train_step(batch)
    assert int(a.step.numpy()) == 3
    for x, y in zip(a.online.get_weights(), b.online.get_weights(), strict=True):
        np.testing.assert_allclose(x, y, rtol=1e-6, atol=1e-7)
    for bad in (0, 5):
        with pytest.raises(ValueError, match="steps must be in 1..4"):
            a.train_on(_element(batches), steps=bad)


def test_one_step_and_a_count_given_to_train_are_the_steps_taken():
    learner = _learner(learning_rate=1e-2, steps_per_call=4)
    element = _element([_batch(learner, seed) for seed in range(4)])
    learner.train_on(element, steps=1)  # the least count is allowed
    assert int(learner.step.numpy()) == 1
    learner.train(iter(tf.data.Dataset.from_tensors(element)), steps=2)
    assert int(learner.step.numpy()) == 3


def test_data_wait_counts_the_time_the_call_waits_for_an_element():
    learner = _learner(steps_per_call=2)
    element = _element([_batch(learner, 0), _batch(learner, 1)])

    def slow():
        time.sleep(0.2)
        yield {k: v.numpy() for k, v in element.items()}

    dataset = tf.data.Dataset.from_generator(
        slow, output_signature={k: tf.TensorSpec.from_tensor(v) for k, v in element.items()}
    )
    t0 = time.perf_counter()
    out = learner.train(iter(dataset))
    elapsed = time.perf_counter() - t0
    waited = float(out["data_wait_sec"])
    # The generator sleeps 0.2 s before its element: the call waited at least that
    # long (less a clock's rounding), and never longer than the whole call took.
    assert 0.19 <= waited <= elapsed


@pytest.mark.perf
def test_an_element_in_hand_is_not_waited_for():
    learner = _learner(steps_per_call=2)
    element = _element([_batch(learner, 0), _batch(learner, 1)])
    learner.train_on(element)
    assert float(learner.train_on(element)["data_wait_sec"]) < 0.01


def test_xla_compiled_steps_run_inside_the_k_step_call():
    """With jit_compile the step is compiled by XLA; the call around it (which takes
    the element from the iterator) is not, and the result matches the plain step."""
    plain = _learner(learning_rate=1e-2, steps_per_call=2)
    xla = _learner(learning_rate=1e-2, steps_per_call=2, jit_compile=True)
    element = _element([_batch(plain, 0), _batch(plain, 1)])
    plain.train(iter(tf.data.Dataset.from_tensors(element)))
    xla.train(iter(tf.data.Dataset.from_tensors(element)))
    assert int(xla.step.numpy()) == 2
    for a, b in zip(plain.online.get_weights(), xla.online.get_weights(), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


def test_jit_compile_marks_the_train_step_for_xla_and_only_then():
    for jit, marked in [(False, False), (True, True)]:
        step = _learner(jit_compile=jit)._train_step.get_concrete_function()
        assert step.function_def.attr["_XlaMustCompile"].b is marked


def test_the_train_step_takes_batches_of_the_batch_size_only():
    """A batch of another size is refused, not traced into a second compiled step."""
    learner = _learner()
    half = {key: value[:16] for key, value in _batch(learner).items()}
    with pytest.raises(TypeError, match="Binding inputs"):
        learner.train_step(half)
    assert int(learner.step.numpy()) == 0
