"""Versioned snapshots: whole swaps, versions that only grow, and the opponent pool."""

from __future__ import annotations

import numpy as np
import pytest

from boardq.dqn.snapshot import Snapshot, SnapshotBox, SnapshotPool


def test_the_box_swaps_whole_snapshots_and_refuses_older_ones():
    box = SnapshotBox(Snapshot(0, ("w0",)))
    box.publish(Snapshot(8, ("w8",)))
    assert box.get() == Snapshot(8, ("w8",)) and box.version == 8
    with pytest.raises(ValueError, match="must not go backwards"):
        box.publish(Snapshot(4, ("w4",)))
    assert box.version == 8


def test_the_snapshot_pool_keeps_one_per_stage_and_the_newest_few():
    pool = SnapshotPool(size=2, every_steps=100)
    rng = np.random.default_rng(0)
    assert pool.sample(rng) is None
    offered = [pool.offer(Snapshot(v, ())) for v in (8, 96, 104, 112, 200, 304)]
    assert offered == [False, False, True, False, True, True]
    assert pool.versions == [200, 304]
    assert {pool.sample(rng).version for _ in range(50)} == {200, 304}
