"""Which actor processes answer: where each runs, which died, which came back.

`RemoteCollection` (`boardq.training.remote`) collects from actor processes on Ray; this
keeps their roll. When a process dies, alone or with its node, its collector calls
`wait_for`: the run says so, and the collector asks only where the process is (taking no
admission) until it answers again. A process that answers from a new pid or node is
counted as restarted (`moved`). If a process stays away for `COME_BACK_SEC` (no free CPU
left in the cluster, say) the run says so and goes on without it until it returns; only
when every process has been away that long does the run fail. What the run says is kept
for the trainer's log (`events`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from boardq.training.cluster import node_name

__all__ = ["COME_BACK_SEC", "PROBE_SEC", "Attendance"]

COME_BACK_SEC = 120.0
"""How long actor processes may take to start, and all of them may stay away, before
the run fails (one that stays away this long is reported and waited for)."""
PROBE_SEC = 0.5
"""Pause between asking a dead actor process whether it is back."""


class Attendance:
    """The roll of a run's actor processes, shared by their collector threads.

    Args:
      handles: the processes' Ray actor handles (each has `where.remote()`).
      places: where each process started (`pid`, `node`, `host`), as
        `boardq.training.cluster.wait_started` returns them.
      clock: the monotonic clock how long a process has been away is read on (tests
        step their own).

    Attributes:
      places: where each process runs now.
      restarts: processes that came back as a new process, counted over the run.
    """

    def __init__(
        self,
        handles: list[Any],
        places: list[dict[str, Any]],
        clock: Callable[[], float] = time.monotonic,
    ):
        self._handles = handles
        self._clock = clock
        self.places = places
        self.restarts = 0
        self._lock = threading.Lock()
        self._events: list[str] = []
        self._away: dict[int, float] = {}  # process -> since when it has not answered
        self._gone_nodes: set[str] = set()

    def say(self, text: str) -> None:
        """Keeps a line for the run's log."""
        with self._lock:
            self._events.append(text)

    def events(self) -> list[str]:
        """What was said since the last call."""
        with self._lock:
            out, self._events = self._events, []
        return out

    def away(self) -> dict[int, float]:
        """The processes away now, each with the time (on `_clock`) since when."""
        with self._lock:
            return dict(self._away)

    def wait_for(self, i: int, error: Exception, stop) -> None:
        """Says process i died, then asks only where it is until it answers (or `stop`).

        Raises:
          RuntimeError: every actor process has been away for `COME_BACK_SEC`.
        """
        import ray
        from ray.exceptions import ActorUnavailableError, GetTimeoutError, RayActorError

        first = (str(error).strip().splitlines() or [type(error).__name__])[0]
        place = self.places[i]
        what = "does not answer" if isinstance(error, ActorUnavailableError) else "died"
        where = f"pid {place['pid']} on node {node_name(place)}"
        self.say(f"actor process {i} ({where}) {what}: {first[:120]}")
        since = self._clock()
        with self._lock:
            self._away[i] = since
        told, probe, checked = False, None, since
        while not stop.is_set():
            probe = probe or self._handles[i].where.remote()
            try:
                ray.get(probe, timeout=0.1)
            except GetTimeoutError:
                pass
            except RayActorError:  # not back yet: Ray restarts it, or has no CPU for it yet
                probe = None
                stop.wait(PROBE_SEC)
            else:  # back: its first chunk says where (`moved`)
                with self._lock:
                    del self._away[i]
                return
            now = self._clock()
            if now - checked > 1.0:
                checked = now
                self._node_gone(place)
            with self._lock:
                all_away = len(self._away) == len(self._handles)
                last = max(self._away.values())
            if all_away and now - last > COME_BACK_SEC:
                raise RuntimeError(
                    f"no actor process has answered for {COME_BACK_SEC:.0f} s "
                    f"(each needs one free CPU in the Ray cluster)"
                ) from error
            if not told and now - since > COME_BACK_SEC:
                told = True
                self.say(
                    f"actor process {i} is not back after {COME_BACK_SEC:.0f} s (no free CPU "
                    f"in the Ray cluster?); training goes on without it until it is"
                )

    def _node_gone(self, place: dict[str, Any]) -> None:
        """Says, once, that the node a process ran on has left the cluster."""
        import ray

        if place["node"] in self._gone_nodes:
            return
        if any(n["NodeID"] == place["node"] and n["Alive"] for n in ray.nodes()):
            return
        with self._lock:
            if place["node"] in self._gone_nodes:
                return
            self._gone_nodes.add(place["node"])
        self.say(
            f"node {node_name(place)} left the Ray cluster; its actor processes restart "
            f"where a CPU is free"
        )

    def moved(self, i: int, place: dict[str, Any]) -> None:
        """Takes note of where process i runs; says so when a new process delivers."""
        with self._lock:
            if place["pid"] == self.places[i]["pid"] and place["node"] == self.places[i]["node"]:
                return
            self.restarts += 1
            self.places[i] = place
        self.say(
            f"actor process {i} restarted as pid {place['pid']} on node {node_name(place)}; "
            f"training goes on"
        )
