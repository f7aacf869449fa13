"""Replay ring and the replay-ratio limiter."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from boardq.dqn.replay import RateLimiter, ReplayRing
from boardq.dqn.transitions import FIELDS, empty_columns


def chunk(start, n, obs_shape=(3, 3, 2), num_actions=9):
    a = np.arange(start, start + n)
    return {
        "obs": np.zeros((n, *obs_shape), np.int8) + (a % 2)[:, None, None, None].astype(np.int8),
        "action": (a % num_actions).astype(np.int16),
        "reward": a.astype(np.float32),
        "discount": np.full(n, -0.9, np.float32),
        "next_obs": np.zeros((n, *obs_shape), np.int8),
        "next_mask": np.ones((n, num_actions), bool),
    }


def test_ring_wraps_and_keeps_the_newest():
    ring = ReplayRing(5, (3, 3, 2), 9)
    ring.add(chunk(0, 3))
    ring.add(chunk(3, 4))
    assert ring.size == 5 and ring.added == 7
    batch = ring.sample(500, np.random.default_rng(0))
    assert set(batch["reward"].tolist()) == {2.0, 3.0, 4.0, 5.0, 6.0}


def test_ring_chunk_larger_than_capacity():
    ring = ReplayRing(4, (3, 3, 2), 9)
    ring.add(chunk(0, 10))
    assert sorted(ring.sample(400, np.random.default_rng(1))["reward"].tolist())[0] == 6.0


def test_ring_is_compact_and_follows_the_schema():
    ring = ReplayRing(1_000_000, (6, 7, 2), 7)
    assert ring.nbytes < 200 * 2**20  # a million Connect Four transitions
    ring.add(empty_columns(3, (6, 7, 2), 7))
    batch = ring.sample(2, np.random.default_rng(0))
    template = empty_columns(2, (6, 7, 2), 7)
    assert tuple(batch) == FIELDS
    for name in FIELDS:
        assert batch[name].dtype == template[name].dtype
        assert batch[name].shape == template[name].shape


def test_an_empty_ring_refuses_to_sample():
    ring = ReplayRing(10, (3, 3, 2), 9)
    with pytest.raises(ValueError, match="empty"):
        ring.sample(1, np.random.default_rng(0))


def test_rate_limiter_holds_the_ratio():
    lim = RateLimiter(ratio=4.0, warmup=10, tolerance=8.0)
    stop = threading.Event()
    assert not lim.try_sample(1)  # before the warm-up nothing is sampled
    assert lim.await_insert(10, stop, 0.01)
    assert lim.await_insert(2, stop, 0.01)  # diff = 8 <= tolerance
    assert not lim.await_insert(1, stop, 0.01)  # diff would be 12 > 8
    assert lim.try_sample(16)  # diff = -8
    assert not lim.try_sample(1)  # would be -9 < -8
    assert lim.await_insert(1, stop, 0.01)
    assert lim.inserted == 13 and lim.sampled == 16


def test_rate_limiter_wait_returns_on_stop():
    lim = RateLimiter(ratio=1.0, warmup=0, tolerance=1.0)
    stop = threading.Event()
    lim.await_insert(1, stop, 0.01)
    stop.set()
    assert lim.await_insert(100, stop, 5.0) is False


def test_rate_limiter_wakes_a_waiting_insert_when_samples_arrive():
    lim = RateLimiter(ratio=1.0, warmup=0, tolerance=2.0)
    stop = threading.Event()
    assert lim.await_insert(2, stop, 0.01)
    result = []
    t = threading.Thread(target=lambda: result.append(lim.await_insert(2, stop, 5.0)))
    t.start()
    assert lim.try_sample(2)
    t.join(5)
    assert result == [True]
