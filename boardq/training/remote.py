"""Actor processes on Ray Core: collection beyond one Python process and one machine.

Each `ActorProcess` (a Ray actor) holds its own games, actor threads and CPU copy of
the newest weight snapshot, built by the same `Builder` as the threads of one process
(the Ape-X way). The learner process keeps the card's shape: for each actor process
a collector thread asks for a chunk of moves (`collect`), passing the newest snapshot
when it changed, and puts the transitions that come back into the one bounded queue
the replay feed drains. Before each request it takes the replay-ratio limiter's
admission for the moves it asks for, so the ratio holds across processes; two
requests stay in flight per process so its games never wait for the round trip.

Placement: the processes are spread over the cluster's nodes (Ray's SPREAD
strategy, a preference, not a pin), one CPU each, so a lost node's processes can come
back wherever a CPU is free. On a cluster the run says which node runs which process
(`boardq.training.cluster`).

Faults: an actor process that dies, alone or with its node, is restarted by Ray
(`max_restarts`). Its collector says so, drops the requests in flight, and asks
nothing more of it (taking no admission) until it answers again; the others collect
meanwhile. The roll of which process answers, and how long one may stay away, is
`boardq.training.attendance`. `close` kills the actors and shuts down the Ray instance
this run started, so no process outlives the run.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from boardq.dqn.actor import ActorStats
from boardq.dqn.collection import (
    REQUESTS_IN_FLIGHT,
    Collection,
    search_metrics,
    steps_per_request,
)
from boardq.dqn.coordination import put_until_stopped
from boardq.training import attendance
from boardq.training.actor_process import SUMMED, ActorProcess
from boardq.training.cluster import placement, start_ray, wait_started

if TYPE_CHECKING:
    from boardq.dqn.builder import Builder
    from boardq.dqn.learner import Learner

__all__ = ["MAX_RESTARTS", "RemoteCollection", "make_collection"]

MAX_RESTARTS = 20
"""Restarts Ray grants each actor process."""


def make_collection(builder, learner, out_queue, epsilon_fn, admit, refund=None) -> Collection:
    """The run's actors: `actor_processes` processes on Ray, or else threads here.

    Args:
      builder: the run's `Builder` (threads are its `make_collection`).
      learner: its snapshots are what the actors act with.
      out_queue: the bounded queue to the replay.
      epsilon_fn: the exploration rate now.
      admit: the replay-ratio limiter's admission, or None (collect freely).
      refund: gives back admissions for moves that will not arrive (a lost actor
        process's requests), or None.
    """
    if builder.config.actor_processes:
        return RemoteCollection(builder, learner, out_queue, epsilon_fn, admit, refund)
    return builder.make_collection(learner, out_queue, epsilon_fn, admit)


class RemoteCollection:
    """Actor processes on Ray as the trainer sees them (a `boardq.dqn.collection.Collection`).

    Builds on the main thread: starts (or joins) Ray and every actor process, and
    waits until each is up.

    Args:
      builder: the run's builder (its config holds `actor_processes` and `ray_address`).
      learner: publishes the snapshots the processes act with.
      out_queue: the bounded queue to the replay feed.
      epsilon_fn: the exploration rate now.
      admit: the replay-ratio limiter's `admit(n, stop)`, or None (learner off).
      refund: the limiter's `refund(n)`: the admissions of requests that were in
        flight to a process that died, or still in flight when the run stops.
    """

    def __init__(
        self,
        builder: Builder,
        learner: Learner,
        out_queue,
        epsilon_fn: Callable[[], float],
        admit: Callable[[int, Any], bool] | None,
        refund: Callable[[int], None] | None = None,
    ):
        import ray

        cfg = builder.config
        self._started_ray = start_ray(cfg.ray_address, cfg.actor_processes)
        self._snapshots = learner.snapshots
        self._queue, self._epsilon_fn, self._admit = out_queue, epsilon_fn, admit
        self._refund = refund
        self._moves = steps_per_request(cfg) * cfg.actor_threads * cfg.games_per_thread
        self._lock = threading.Lock()
        self._cached: tuple[int, Any] = (-2, None)
        self._searching = bool(cfg.search_visits)  # search in self-play: its metrics
        self.stats = [ActorStats() for _ in range(cfg.actor_processes)]
        self.handles: list[Any] = []
        try:
            remote = ray.remote(
                num_cpus=1,
                max_restarts=MAX_RESTARTS,
                max_task_retries=0,
                scheduling_strategy="SPREAD",
            )
            actor_class = remote(ActorProcess)
            self.handles = [
                actor_class.remote(cfg.to_dict(), builder.game.name, i)
                for i in range(cfg.actor_processes)
            ]
            places = wait_started(self.handles, attendance.COME_BACK_SEC)
        except BaseException:
            self.close()
            raise
        self.attendance = attendance.Attendance(self.handles, places)
        if not self._started_ray:
            self.attendance.say(placement(places))

    @property
    def restarts(self) -> int:
        """Actor processes that came back as new processes, over the run."""
        return self.attendance.restarts

    def _weights(self) -> tuple[int, Any]:
        """The newest snapshot as (version, object ref), put into Ray once per version."""
        import ray

        snap = self._snapshots.get()
        with self._lock:
            if self._cached[0] != snap.version:
                weights = list(snap.numpy_weights())
                self._cached = (snap.version, ray.put(weights))
            return self._cached

    def targets(self, stop) -> list[tuple[str, Callable[[], None]]]:
        return [
            (f"collector-{i}", lambda i=i: self._collect(i, stop)) for i in range(len(self.handles))
        ]

    def _collect(self, i: int, stop) -> None:
        """Keeps `REQUESTS_IN_FLIGHT` requests going to process i; queues what returns."""
        pending: list[Any] = []
        try:
            self._collect_until(i, stop, pending)
        finally:  # what is still in flight will not be delivered now
            self._give_back(pending)

    def _give_back(self, pending: list[Any]) -> None:
        """Returns the admissions of the requests in `pending` (lost or abandoned)."""
        if pending and self._admit is not None and self._refund is not None:
            self._refund(self._moves * len(pending))
        pending.clear()

    def _collect_until(self, i: int, stop, pending: list[Any]) -> None:
        import ray
        from ray.exceptions import GetTimeoutError, ObjectLostError, RayActorError

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
            except (RayActorError, ObjectLostError) as e:
                # The process died, or its node went with the answer: what is in flight
                # is lost, and so its admissions are returned.
                self._give_back(pending)
                self.attendance.wait_for(i, e, stop)
                continue
            self._account(i, done)
            if not len(chunk["action"]):
                pending.pop(0)
            elif put_until_stopped(self._queue, chunk, stop):
                pending.pop(0)
                self.stats[i].transitions += len(chunk["action"])
            # else: stopped with the queue full: the request's moves are given back

    def _account(self, i: int, done: dict[str, Any]) -> None:
        s = self.stats[i]
        self.attendance.moved(i, {k: done[k] for k in ("pid", "node", "host")})
        for name in SUMMED:
            setattr(s, name, getattr(s, name) + done[name])
        s.results = [s.results[0] + done["first_wins"], s.results[1] + done["draws"],
                     s.results[2] + done["second_wins"]]  # fmt: skip
        s.version = done["version"]

    def events(self) -> list[str]:
        return self.attendance.events()

    def transitions(self) -> int:
        return sum(s.transitions for s in self.stats)

    def games(self) -> int:
        return sum(s.games for s in self.stats)

    def mean_version(self) -> float:
        return float(np.mean([s.version for s in self.stats]))

    def metrics(self) -> dict[str, Any]:
        m = {
            "actor_infer_sec": sum(s.infer_sec for s in self.stats),
            "actor_step_sec": sum(s.step_sec for s in self.stats),
            "actor_restarts": self.restarts,
        }
        if self._searching:  # search in self-play
            m |= search_metrics(self.stats)
        return m

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
