"""The replay ring under two threads at once: a writer adding, a reader taking snapshots.

Every row the writer adds carries one id in all its columns, so a row read half
before and half after an overwrite shows two ids. The interpreter is made to switch
threads every microsecond, so the two threads interleave inside `add` and inside a
block's copy thousands of times a second: without the ring's lock the reader sees a
torn row or a row of the wrong age within a few hundred snapshots.
"""

from __future__ import annotations

import sys
import threading
import time

import numpy as np

from boardq.dqn.replay import ReplayRing

OBS_SHAPE = (3, 3, 2)
ACTIONS = 9


EXACT = 1 << 24
"""The float32 columns hold an id modulo this (float32 counts exactly up to 2**24; a
writer that outruns a starved reader on a loaded machine passes it)."""


def _rows(ids: np.ndarray) -> dict[str, np.ndarray]:
    """One row per id, the id written into every column (modulo what each column holds)."""
    n = len(ids)
    planes = np.ones((n, *OBS_SHAPE), np.int8)
    return {
        "obs": planes * (ids % 128)[:, None, None, None].astype(np.int8),
        "action": (ids % 32_768).astype(np.int16),
        "reward": (ids % EXACT).astype(np.float32),
        "discount": (-(ids % EXACT)).astype(np.float32),
        "next_obs": planes * ((ids // 128) % 128)[:, None, None, None].astype(np.int8),
        "next_mask": (ids[:, None] >> np.arange(ACTIONS)) % 2 == 1,
    }


def _ids_of_whole_rows(rows: dict[str, np.ndarray]) -> np.ndarray:
    """The rows' ids modulo `EXACT`; fails on any row whose columns carry different ids.

    (Every other column repeats with a period that divides `EXACT`.)
    """
    ids = rows["reward"].astype(np.int64)
    expected = _rows(ids)
    for key, column in rows.items():
        np.testing.assert_array_equal(column, expected[key], err_msg=f"a torn row ({key})")
    return ids


def test_a_reader_sees_whole_rows_of_one_moment_while_a_writer_adds():
    ring = ReplayRing(capacity=64, obs_shape=OBS_SHAPE, num_actions=ACTIONS)
    ring.add(_rows(np.arange(64)))
    added = [64]  # the writer's count, read only after it stops
    stop = threading.Event()
    errors: list[BaseException] = []

    def writer():
        try:
            while not stop.is_set():
                n = 1 + added[0] % 5  # chunks of 1..5 rows, wrapping at every offset
                ring.add(_rows(np.arange(added[0], added[0] + n)))
                added[0] += n
                time.sleep(0)  # lets the reader take the lock (else it may wait minutes)
        except BaseException as e:  # reported on the main thread
            errors.append(e)

    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    thread = threading.Thread(target=writer, daemon=True)
    thread.start()
    try:
        for i in range(300):
            snap = ring.snapshot(block_rows=1 + i % 7)
            first_id = snap.added - snap.size
            read = [_ids_of_whole_rows(rows) for _, rows in snap.blocks()]
            ids = np.concatenate(read)
            # The snapshot is the ring at one moment: the newest `size` rows then, in order.
            np.testing.assert_array_equal(ids, np.arange(first_id, snap.added) % EXACT)
    finally:
        stop.set()
        thread.join(timeout=10)
        sys.setswitchinterval(switch)
    assert not errors, errors
    assert added[0] > 64 + 300, "the writer must have run beside the reader"
