"""What a lost Ray node leaves when no CPU is free for its actor processes.

They are waited for, and only all of them away fails the run. Checked with Ray stood in
for (its `nodes` and `get`), as it takes minutes for real; a real two-node cluster that
loses a node: test_ray_cluster.py.
"""

from __future__ import annotations

import threading
import time

import pytest


class _Handle:
    """Stands for an actor process's Ray handle: `where.remote()` names the process."""

    def __init__(self, i: int):
        self.where = type("Method", (), {"remote": staticmethod(lambda: i)})


def test_a_process_with_no_cpu_to_come_back_to_is_reported_and_only_all_away_fails(monkeypatch):
    """What a lost node leaves when no CPU is free for its processes, with Ray stood in for.

    One process away beyond `COME_BACK_SEC` is said once (and its node's loss), and the
    run goes on until it answers; every process away that long fails the run.
    """
    import ray
    from ray.exceptions import ActorDiedError

    from boardq.training import attendance

    monkeypatch.setattr(attendance, "COME_BACK_SEC", 0.5)
    monkeypatch.setattr(attendance, "PROBE_SEC", 0.01)
    monkeypatch.setattr(ray, "nodes", lambda: [{"NodeID": "a" * 56, "Alive": True}])
    answers = {0: True, 1: False}  # process 0 answers, process 1 has died

    def get(ref, timeout=None):
        if not answers[ref]:
            raise ActorDiedError()
        return {}

    monkeypatch.setattr(ray, "get", get)
    places = [
        {"pid": 10, "node": "a" * 56, "host": "h"},
        {"pid": 11, "node": "b" * 56, "host": "h"},
    ]
    clock = _SteppedClock(step=0.05)  # each reading is 0.05 s later: no machine's speed counts
    rc = attendance.Attendance([_Handle(0), _Handle(1)], places, clock=clock)
    stop, said = threading.Event(), []

    def heard(words: str) -> bool:
        said.extend(rc.events())
        return any(words in event for event in said)

    waiting = threading.Thread(target=rc.wait_for, args=(1, ActorDiedError(), stop), daemon=True)
    waiting.start()
    # Past COME_BACK_SEC (said once) and the node check a second in (said once too).
    _wait_until(lambda: heard("left the Ray cluster") and heard("is not back after"))
    assert waiting.is_alive()  # the other process collects: no error
    answers[1] = True
    waiting.join(timeout=30)
    assert not waiting.is_alive() and rc.away() == {}
    said.extend(rc.events())
    assert said[0].startswith("actor process 1 (pid 11 on node bbbbbbbb (h)) died")
    assert [s for s in said if "left the Ray cluster" in s] == [
        "node bbbbbbbb (h) left the Ray cluster; its actor processes restart where a CPU is free"
    ]
    assert len([s for s in said if "actor process 1 is not back after" in s]) == 1

    # Then both die: process 0's collector waits too, and the run fails once both have
    # been away COME_BACK_SEC, at the first reading past it.
    answers[0] = answers[1] = False
    failed: list[BaseException] = []

    def wait_for_0() -> None:
        try:
            rc.wait_for(0, ActorDiedError(), stop)
        except RuntimeError as e:
            failed.append(e)

    first = threading.Thread(target=wait_for_0, daemon=True)
    first.start()
    _wait_until(lambda: 0 in rc.away())
    with pytest.raises(RuntimeError, match="no actor process has answered"):
        rc.wait_for(1, ActorDiedError(), stop)
    started = rc.away()[1]  # the later of the two
    assert 0.5 < clock.now - started <= 0.5 + 6 * clock.step  # two threads read the clock
    first.join(timeout=30)
    assert not first.is_alive() and len(failed) == 1


class _SteppedClock:
    """A monotonic clock that moves `step` seconds at each reading (thread-safe)."""

    def __init__(self, step: float):
        self.now, self.step, self._lock = 1000.0, step, threading.Lock()

    def __call__(self) -> float:
        with self._lock:
            self.now += self.step
            return self.now


def _wait_until(condition, limit_sec: float = 60.0) -> None:
    """Polls a condition; the limit only turns a hang into a failure."""
    end = time.monotonic() + limit_sec
    while not condition():
        assert time.monotonic() < end, "the condition never came"
        time.sleep(0.01)
