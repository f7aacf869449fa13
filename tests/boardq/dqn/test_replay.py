"""Replay ring and the replay-ratio limiter."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from boardq.dqn.replay import RateLimiter, ReplayRing
from boardq.dqn.schema import FIELDS, empty_columns


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


def test_a_ring_not_yet_full_samples_only_the_rows_added():
    ring = ReplayRing(10, (3, 3, 2), 9)
    assert ring.obs_shape == (3, 3, 2)  # what the feed's symmetries read
    ring.add(chunk(1, 3))
    assert set(ring.sample(300, np.random.default_rng(0))["reward"].tolist()) == {1.0, 2.0, 3.0}


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
    with pytest.raises(ValueError, match="^cannot sample from an empty replay memory$"):
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


@pytest.mark.parametrize("tolerance", [0.0, -1.0])
def test_a_rate_limiter_needs_a_positive_tolerance(tolerance):
    with pytest.raises(ValueError, match="^tolerance must be > 0$"):
        RateLimiter(ratio=1.0, warmup=0, tolerance=tolerance)


def test_the_ratio_holds_from_the_last_warmup_transition_on():
    lim = RateLimiter(ratio=1.0, warmup=10, tolerance=1.0)
    stop = threading.Event()
    assert lim.await_insert(10, stop, 0.01)  # the warm-up, whole
    assert lim.try_sample(1)  # diff = 0 - 1 >= -1: sampling starts at once
    assert not lim.await_insert(3, stop, 0.01)  # diff would be 3 - 1 = 2 > 1
    assert lim.await_insert(1, stop, 0.01)  # diff = 1 - 1 = 0
    assert lim.try_sample(1)  # diff = 1 - 2 = -1
    assert lim.inserted == 11 and lim.sampled == 2


@pytest.mark.timeout(60)  # an insert that did not see the stop would wait its 600 s
def test_a_stopped_insert_returns_at_once_whatever_its_timeout():
    lim = RateLimiter(ratio=1.0, warmup=0, tolerance=1.0)
    stop = threading.Event()
    assert lim.await_insert(1, stop, 0.01)
    stop.set()
    assert lim.await_insert(100, stop, 600.0) is False
    assert lim.inserted == 1


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


def test_a_refund_gives_back_admissions_that_will_not_arrive():
    lim = RateLimiter(ratio=1.0, warmup=0, tolerance=4.0)
    stop = threading.Event()
    assert lim.await_insert(4, stop, 0.01)
    assert not lim.await_insert(2, stop, 0.01)  # diff would be 6 > 4
    lim.refund(4)  # the 4 moves were lost with their actor process
    assert lim.inserted == 0
    assert lim.await_insert(2, stop, 0.01)


def _rewards(ring_or_rows):
    return [int(r) for r in ring_or_rows["reward"]]


@pytest.mark.parametrize("seed", range(40))
def test_a_snapshot_reads_the_rows_as_they_were_while_the_ring_is_written(seed):
    """Random capacities, fills, block sizes and adds between the blocks read."""
    rng = np.random.default_rng(seed)
    ring = ReplayRing(int(rng.integers(5, 60)), (3, 3, 2), 9)
    count = 0
    for _ in range(int(rng.integers(0, 8))):
        n = int(rng.integers(1, 30))
        ring.add(chunk(count, n))
        count += n
    snap = ring.snapshot(block_rows=int(rng.integers(1, 10)))
    expected = list(range(count - ring.size, count))
    read = []
    for start, rows in snap.blocks():
        assert start == len(read)
        read += _rewards(rows)
        assert set(rows) == set(FIELDS)
        for _ in range(int(rng.integers(0, 3))):
            n = int(rng.integers(1, 30))
            ring.add(chunk(count, n))
            count += n
    assert read == expected
    assert ring.snapshot() is not None  # the first one ended with its blocks


def test_a_snapshot_copies_aside_only_the_blocks_about_to_be_overwritten():
    ring = ReplayRing(100, (3, 3, 2), 9)
    ring.add(chunk(0, 100))
    snap = ring.snapshot(block_rows=10)
    blocks = snap.blocks()
    assert _rewards(next(blocks)[1]) == list(range(10))
    ring.add(chunk(100, 5))  # overwrites rows 0-4: already read, nothing copied
    assert snap.copied_aside == 0
    ring.add(chunk(105, 20))  # rows 5-24: block 1 and 2 are copied before that
    assert snap.copied_aside == 2
    assert [r for _, rows in blocks for r in _rewards(rows)] == list(range(10, 100))
    with pytest.raises(RuntimeError, match="^another snapshot of the ring is still being read$"):
        other = ring.snapshot()
        ring.snapshot()
    other.close()


def test_a_snapshot_copies_nothing_aside_while_the_ring_has_room():
    ring = ReplayRing(100, (3, 3, 2), 9)
    ring.add(chunk(0, 50))
    snap = ring.snapshot(block_rows=10)
    ring.add(chunk(50, 50))  # into the free rows: no snapshot row is overwritten
    assert snap.copied_aside == 0
    ring.add(chunk(100, 10))  # rows 0-9: block 0 only
    assert snap.copied_aside == 1
    assert [r for _, rows in snap.blocks() for r in _rewards(rows)] == list(range(50))


def test_a_snapshot_copies_aside_exactly_the_blocks_an_add_reaches():
    ring = ReplayRing(100, (3, 3, 2), 9)
    ring.add(chunk(0, 100))
    snap = ring.snapshot(block_rows=10)
    ring.add(chunk(100, 10))  # rows 0-9, the whole of block 0 and nothing of block 1
    assert snap.copied_aside == 1
    assert [r for _, rows in snap.blocks() for r in _rewards(rows)] == list(range(100))


def test_a_snapshot_needs_blocks_of_a_row_or_more():
    ring = ReplayRing(10, (3, 3, 2), 9)
    with pytest.raises(ValueError, match="^block_rows must be >= 1$"):
        ring.snapshot(block_rows=0)
    ring.snapshot(block_rows=1).close()  # the refused one left no snapshot open


def test_restored_rows_keep_the_newest_when_the_ring_is_smaller():
    saved = chunk(0, 12)
    ring = ReplayRing(8, (3, 3, 2), 9)
    for start in (0, 5, 10):  # parts of 5, 5 and 2 rows
        for key in FIELDS:
            ring.restore_rows(key, start, saved[key][start : start + 5], 12)
    ring.restored(12)
    assert ring.size == 8 and ring.added == 8
    snap = ring.snapshot(block_rows=3)
    assert [r for _, rows in snap.blocks() for r in _rewards(rows)] == list(range(4, 12))
    ring.add(chunk(12, 1))  # the next add goes after the newest
    snap = ring.snapshot()
    assert [r for _, rows in snap.blocks() for r in _rewards(rows)] == list(range(5, 13))


def test_a_ring_restored_with_room_left_adds_after_its_newest_row():
    saved = chunk(0, 6)
    ring = ReplayRing(10, (3, 3, 2), 9)
    for key in FIELDS:
        ring.restore_rows(key, 0, saved[key], 6)
    ring.restored(6)
    assert ring.size == 6 and ring.added == 6
    ring.add(chunk(6, 2))  # into the free room: no restored row is overwritten
    snap = ring.snapshot()
    assert [r for _, rows in snap.blocks() for r in _rewards(rows)] == list(range(8))
