"""Threads under a coordinator, and bounded puts that see a stop."""

from __future__ import annotations

import queue
import threading

import pytest
import tensorflow as tf

from boardq.dqn.coordination import CoordStop, put_until_stopped, start_workers


def test_each_thread_runs_its_own_worker():
    """Starting workers in a loop must not bind every thread to the last one."""
    coord = tf.train.Coordinator()
    ran: list[str] = []
    lock = threading.Lock()

    class Worker:
        def __init__(self, name):
            self.name = name

        def run(self):
            with lock:
                ran.append(self.name)

    workers = [Worker(f"w{i}") for i in range(5)]
    threads = start_workers(coord, [(w.name, w.run) for w in workers])
    coord.join(threads)
    assert sorted(ran) == ["w0", "w1", "w2", "w3", "w4"]
    assert [t.name for t in threads] == ["w0", "w1", "w2", "w3", "w4"]


def test_the_first_error_stops_every_thread_and_is_raised_by_join():
    coord = tf.train.Coordinator()
    stop = CoordStop(coord)

    def waits():
        while not stop.wait(0.05):
            pass

    def fails():
        raise ValueError("broken worker")

    threads = start_workers(coord, [("a", waits), ("b", fails)])
    with pytest.raises(ValueError, match="broken worker"):
        coord.join(threads, stop_grace_period_secs=5)
    assert stop.is_set() and not any(t.is_alive() for t in threads)


@pytest.mark.timeout(60)  # a put that never gave up would hang here: the timeout fails it
def test_a_put_into_a_full_queue_gives_up_once_stopped():
    q: queue.Queue = queue.Queue(maxsize=1)
    stop = threading.Event()
    assert put_until_stopped(q, 1, stop)
    threading.Timer(0.2, stop.set).start()
    assert put_until_stopped(q, 2, stop, timeout=0.05) is False
    assert stop.is_set() and q.get_nowait() == 1


def test_waiting_on_the_stop_returns_at_the_timeout_or_once_stopped():
    coord = tf.train.Coordinator()
    stop = CoordStop(coord)
    # A wait that ignored its timeout would last until this timer stops the coordinator.
    timer = threading.Timer(10.0, coord.request_stop)
    timer.start()
    try:
        assert stop.wait(0.05) is False
        assert not stop.is_set()
    finally:
        timer.cancel()
    stop.set()
    assert stop.wait(0.05) is True and stop.is_set()
