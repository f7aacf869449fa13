"""Thread start-up and shutdown with `tf.train.Coordinator` semantics."""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the coordinator is passed in: this module runs without TensorFlow
    import tensorflow as tf

__all__ = ["CoordStop", "put_until_stopped", "start_workers"]


class CoordStop:
    """The coordinator's stop signal as a `threading.Event`-like object."""

    def __init__(self, coord: tf.train.Coordinator):
        self._coord = coord

    def is_set(self) -> bool:
        return self._coord.should_stop()

    def set(self) -> None:
        self._coord.request_stop()

    def wait(self, timeout: float | None = None) -> bool:
        return self._coord.wait_for_stop(timeout)


def _guarded(coord: tf.train.Coordinator, fn: Callable[[], None]) -> None:
    # The first exception stops every thread and is re-raised by coord.join().
    with coord.stop_on_exception():
        fn()


def start_workers(
    coord: tf.train.Coordinator, targets: Sequence[tuple[str, Callable[[], None]]]
) -> list[threading.Thread]:
    """Starts one daemon thread per (name, callable), each under the coordinator.

    Each callable is passed as an argument, never captured by a loop closure, so
    every thread runs its own worker.
    """
    threads = []
    for name, fn in targets:
        t = threading.Thread(target=_guarded, args=(coord, fn), name=name, daemon=True)
        t.start()
        threads.append(t)
    return threads


def put_until_stopped(q: queue.Queue, item, stop, timeout: float = 0.1) -> bool:
    """Puts into a bounded queue, waiting in slices so a stop is seen within `timeout`.

    Returns False (the item not put) once `stop` is set.
    """
    while not stop.is_set():
        try:
            q.put(item, timeout=timeout)
            return True
        except queue.Full:
            continue
    return False
