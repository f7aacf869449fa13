"""Versioned snapshots: whole swaps, versions that only grow, and the opponent pool."""

from __future__ import annotations

import numpy as np
import pytest

from boardq.dqn.snapshot import Snapshot, SnapshotBox, SnapshotPool


def test_the_box_swaps_whole_snapshots_and_refuses_older_ones():
    box = SnapshotBox(Snapshot(0, ("w0",)))
    box.publish(Snapshot(8, ("w8",)))
    assert box.get() == Snapshot(8, ("w8",)) and box.version == 8
    with pytest.raises(ValueError, match="^snapshot versions must not go backwards$"):
        box.publish(Snapshot(4, ("w4",)))
    assert box.version == 8
    box.publish(Snapshot(8, ("w8 again",)))  # the same version again (a step without update)
    assert box.get().weights == ("w8 again",)


def test_a_snapshot_gives_its_arrays_or_reads_them_from_its_weights():
    arrays = (np.ones(2, np.float32),)
    assert Snapshot(1, ("unused",), arrays).numpy_weights() is arrays
    (read,) = Snapshot(1, ([1.0, 2.0],)).numpy_weights()
    assert isinstance(read, np.ndarray) and read.tolist() == [1.0, 2.0]


@pytest.mark.parametrize(("size", "every_steps"), [(0, 5), (5, 0), (0, 0)])
def test_a_snapshot_pool_needs_room_and_a_period(size, every_steps):
    with pytest.raises(ValueError, match="^size and every_steps must be at least 1$"):
        SnapshotPool(size=size, every_steps=every_steps)


def test_the_smallest_pool_keeps_the_newest_snapshot_every_step():
    pool = SnapshotPool(size=1, every_steps=1)
    assert [pool.offer(Snapshot(v, ())) for v in (1, 1, 2)] == [True, False, True]
    assert pool.versions == [2]


def test_a_pool_restored_keeps_the_snapshots_it_is_given():
    pool = SnapshotPool(size=3, every_steps=10)
    pool.offer(Snapshot(10, ("a",)))
    saved = [Snapshot(20, ("b",)), Snapshot(30, ("c",))]
    pool.restore(saved)
    assert pool.kept() == saved and pool.versions == [20, 30]
    assert not pool.offer(Snapshot(35, ()))  # stage 3 is kept already


def test_the_snapshot_pool_keeps_one_per_stage_and_the_newest_few():
    pool = SnapshotPool(size=2, every_steps=100)
    rng = np.random.default_rng(0)
    assert pool.sample(rng) is None
    offered = [pool.offer(Snapshot(v, ())) for v in (8, 96, 104, 112, 200, 304)]
    assert offered == [False, False, True, False, True, True]
    assert pool.versions == [200, 304]
    assert {pool.sample(rng).version for _ in range(50)} == {200, 304}
