"""The learner: single write path, target updates, consistent snapshots."""

from __future__ import annotations

import threading
import zlib

import numpy as np
import tensorflow as tf

from boardq.learner import Learner
from games import get_game


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


def test_soft_update_moves_target_by_tau():
    learner = _learner(tau=0.25)
    before_t = [w.copy() for w in learner.target.get_weights()]
    learner.train_step(_batch(learner))
    after_o = learner.online.get_weights()
    after_t = learner.target.get_weights()
    for t0, o1, t1 in zip(before_t, after_o, after_t, strict=True):
        np.testing.assert_allclose(t1, 0.25 * o1 + 0.75 * t0, rtol=1e-5, atol=1e-6)


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
