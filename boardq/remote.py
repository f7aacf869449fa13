"""Actor processes on Ray Core: collection beyond one Python process and one machine.

Each `ActorProcess` (a Ray actor) holds its own games, actor threads and CPU copy of
the newest weight snapshot, built by the same `Builder` as the threads of one process
(the Ape-X way). The learner process keeps the card's shape: for each actor process
a collector thread asks for a chunk of moves (`collect`), passing the newest snapshot
when it changed, and puts the transitions that come back into the one bounded queue
the replay feed drains. Before each request it takes the replay-ratio limiter's
admission for the moves it asks for, so the ratio holds across processes; two
requests stay in flight per process so its games never wait for the round trip.

Faults: an actor process that dies is restarted by Ray (`max_restarts`); its
collector sees the error, says so, and resumes with the new process (told apart by
its pid). `close` kills the actors and shuts down the Ray instance this run started,
so no process outlives the run.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from boardq.actor import ActorStats
from boardq.actor_process import (
    REQUESTS_IN_FLIGHT,
    SUMMED,
    ActorProcess,
    steps_per_request,
)
from boardq.coordination import put_until_stopped

if TYPE_CHECKING:
    from boardq.builder import Builder
    from boardq.learner import Learner

__all__ = ["MAX_RESTARTS", "RemoteCollection", "start_ray"]

MAX_RESTARTS = 20
"""Restarts Ray grants each actor process before the run fails."""
COME_BACK_SEC = 120.0
"""How long a dead actor process may take to come back before the run fails."""


def start_ray(address: str, processes: int) -> bool:
    """Connects to the cluster at `address`, or starts a local Ray instance.

    Returns:
      Whether this call started (and so must shut down) a local instance.
    """
    import ray

    if ray.is_initialized():
        return False
    quiet = {"include_dashboard": False, "log_to_driver": False, "logging_level": "ERROR"}
    env = {"env_vars": {"TF_CPP_MIN_LOG_LEVEL": "3", "RAY_DEDUP_LOGS": "0"}}
    if address:
        ray.init(address=address, runtime_env=env, **quiet)
        return False
    ray.init(num_cpus=max(os.cpu_count() or 1, processes), runtime_env=env, **quiet)
    return True


class RemoteCollection:
    """Actor processes on Ray as the trainer sees them (a `boardq.collection.Collection`).

    Builds on the main thread: starts (or joins) Ray and every actor process, and
    waits until each is up.

    Args:
      builder: the run's builder (its config holds `actor_processes` and `ray_address`).
      learner: publishes the snapshots the processes act with.
      out_queue: the bounded queue to the replay feed.
      epsilon_fn: the exploration rate now.
      admit: the replay-ratio limiter's `admit(n, stop)`, or None (learner off).
    """

    def __init__(
        self,
        builder: Builder,
        learner: Learner,
        out_queue,
        epsilon_fn: Callable[[], float],
        admit: Callable[[int, Any], bool] | None,
    ):
        import ray

        cfg = builder.config
        self._started_ray = start_ray(cfg.ray_address, cfg.actor_processes)
        self._snapshots = learner.snapshots
        self._queue, self._epsilon_fn, self._admit = out_queue, epsilon_fn, admit
        self._moves = steps_per_request(cfg) * cfg.actor_threads * cfg.games_per_thread
        self._lock = threading.Lock()
        self._cached: tuple[int, Any] = (-2, None)
        self._events: list[str] = []
        self.restarts = 0
        self.stats = [ActorStats() for _ in range(cfg.actor_processes)]
        self.handles: list[Any] = []
        try:
            remote = ray.remote(num_cpus=1, max_restarts=MAX_RESTARTS, max_task_retries=0)
            actor_class = remote(ActorProcess)
            self.handles = [
                actor_class.remote(cfg.to_dict(), builder.game.name, i)
                for i in range(cfg.actor_processes)
            ]
            self.pids = ray.get([h.pid.remote() for h in self.handles])
        except BaseException:
            self.close()
            raise

    def _weights(self) -> tuple[int, Any]:
        """The newest snapshot as (version, object ref), put into Ray once per version."""
        import ray

        snap = self._snapshots.get()
        with self._lock:
            if self._cached[0] != snap.version:
                weights = [np.asarray(w) for w in snap.weights]
                self._cached = (snap.version, ray.put(weights))
            return self._cached

    def targets(self, stop) -> list[tuple[str, Callable[[], None]]]:
        return [
            (f"collector-{i}", lambda i=i: self._collect(i, stop)) for i in range(len(self.handles))
        ]

    def _collect(self, i: int, stop) -> None:
        """Keeps `REQUESTS_IN_FLIGHT` requests going to process i; queues what returns."""
        import ray
        from ray.exceptions import GetTimeoutError, RayActorError

        pending: list[Any] = []
        failed_at: float | None = None
        while not stop.is_set():
            if len(pending) < REQUESTS_IN_FLIGHT:
                if self._admit is None or self._admit(self._moves, stop):
                    version, ref = self._weights()
                    pending.append(self.handles[i].collect.remote(version, ref, self._epsilon_fn()))
                    continue
                if not pending:
                    continue
            try:
                chunk, done = ray.get(pending[0], timeout=0.1)
            except GetTimeoutError:
                continue
            except RayActorError as e:
                pending.pop(0)
                failed_at = failed_at or time.monotonic()
                self._died(i, e, time.monotonic() - failed_at)
                continue
            pending.pop(0)
            failed_at = None
            self._account(i, done)
            if len(chunk["action"]) and put_until_stopped(self._queue, chunk, stop):
                self.stats[i].transitions += len(chunk["action"])

    def _died(self, i: int, error: Exception, down_sec: float) -> None:
        if down_sec > COME_BACK_SEC:
            raise RuntimeError(
                f"actor process {i} died and did not come back in {COME_BACK_SEC:.0f} s"
            ) from error
        if down_sec == 0.0:
            first = (str(error).strip().splitlines() or [type(error).__name__])[0]
            self._say(f"actor process {i} (pid {self.pids[i]}) died: {first[:120]}")
        time.sleep(0.2)

    def _account(self, i: int, done: dict[str, Any]) -> None:
        s = self.stats[i]
        if done["pid"] != self.pids[i]:
            self.restarts += 1
            self._say(f"actor process {i} restarted as pid {done['pid']}; training goes on")
            self.pids[i] = done["pid"]
        for name in SUMMED:
            setattr(s, name, getattr(s, name) + done[name])
        s.results = [s.results[0] + done["first_wins"], s.results[1] + done["draws"],
                     s.results[2] + done["second_wins"]]  # fmt: skip
        s.version = done["version"]

    def _say(self, text: str) -> None:
        with self._lock:
            self._events.append(text)

    def events(self) -> list[str]:
        with self._lock:
            out, self._events = self._events, []
        return out

    def transitions(self) -> int:
        return sum(s.transitions for s in self.stats)

    def games(self) -> int:
        return sum(s.games for s in self.stats)

    def mean_version(self) -> float:
        return float(np.mean([s.version for s in self.stats]))

    def metrics(self) -> dict[str, Any]:
        return {
            "actor_infer_sec": sum(s.infer_sec for s in self.stats),
            "actor_step_sec": sum(s.step_sec for s in self.stats),
            "actor_restarts": self.restarts,
        }

    def close(self) -> None:
        """Kills the actor processes and shuts down a Ray instance this run started."""
        import ray

        if not ray.is_initialized():
            return
        for handle in self.handles:
            ray.kill(handle, no_restart=True)
        self.handles = []
        if self._started_ray:
            ray.shutdown()
