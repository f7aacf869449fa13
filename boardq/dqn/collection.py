"""Where the trainer's transitions come from: actor threads here, or actor processes.

A collection gives the trainer the threads to start and the figures it logs; the
actors themselves are built by the `Builder`. `LocalCollection` holds actor threads
in this process; `boardq.training.remote.RemoteCollection` drives actor processes on Ray.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import numpy as np

from boardq.config import TrainConfig
from boardq.dqn.actor import Actor

__all__ = [
    "REQUESTS_IN_FLIGHT",
    "TRANSITIONS_PER_REQUEST",
    "Collection",
    "LocalCollection",
    "moves_in_flight",
    "search_metrics",
    "steps_per_request",
]


REQUESTS_IN_FLIGHT = 2
"""Requests each collector keeps outstanding: one runs while the other travels."""
TRANSITIONS_PER_REQUEST = 512
"""About how many moves one request asks of an actor process."""


def search_metrics(stats: Sequence) -> dict[str, Any]:
    """Search in self-play's metrics over actors' `ActorStats` (threads or processes)."""
    return {
        "search/targets": sum(s.search_targets for s in stats),
        "search/sec": sum(s.search_sec for s in stats),
    }


def steps_per_request(config: TrainConfig) -> int:
    """Moves per game in one request: about `TRANSITIONS_PER_REQUEST` in all."""
    games = config.actor_threads * config.games_per_thread
    return max(1, round(TRANSITIONS_PER_REQUEST / games))


def moves_in_flight(config: TrainConfig) -> int:
    """Moves all actor processes may have asked for and not yet delivered."""
    games = config.actor_threads * config.games_per_thread
    return config.actor_processes * REQUESTS_IN_FLIGHT * steps_per_request(config) * games


class Collection(Protocol):
    """The actors as the trainer sees them."""

    def targets(self, stop) -> list[tuple[str, Callable[[], None]]]:
        """(thread name, worker) pairs to start under the coordinator."""
        ...

    def transitions(self) -> int:
        """Transitions delivered to the queue so far."""
        ...

    def games(self) -> int:
        """Games finished so far."""
        ...

    def mean_version(self) -> float:
        """The mean snapshot version the actors act with (for the policy lag)."""
        ...

    def metrics(self) -> dict[str, Any]:
        """Further figures to log (time spent, restarts)."""
        ...

    def events(self) -> list[str]:
        """News for people since the last call (an actor process restarted)."""
        ...

    def close(self) -> None:
        """Releases what the collection holds (processes); safe to call twice."""
        ...


class LocalCollection:
    """Actor threads in this process (the default)."""

    def __init__(self, actors: Sequence[Actor]):
        self.actors = list(actors)

    def targets(self, stop) -> list[tuple[str, Callable[[], None]]]:
        return [(a.name, functools.partial(a.run, stop)) for a in self.actors]

    def transitions(self) -> int:
        return sum(a.stats.transitions for a in self.actors)

    def games(self) -> int:
        return sum(a.stats.games for a in self.actors)

    def mean_version(self) -> float:
        return float(np.mean([a.stats.version for a in self.actors]))

    def metrics(self) -> dict[str, Any]:
        stats = [a.stats for a in self.actors]
        m = {
            "actor_infer_sec": sum(s.infer_sec for s in stats),
            "actor_step_sec": sum(s.step_sec for s in stats),
            "actor_queue_sec": sum(s.queue_sec for s in stats),
        }
        won, drawn, lost = (sum(s.pool_results[i] for s in stats) for i in range(3))
        if won + drawn + lost:
            # The newest snapshot's score against the past ones (win 1, draw 0.5).
            m["pool/games"] = won + drawn + lost
            m["pool/score"] = (won + 0.5 * drawn) / (won + drawn + lost)
        if any(a.search is not None for a in self.actors):  # search in self-play
            m |= search_metrics(stats)
        return m

    def events(self) -> list[str]:
        return []

    def close(self) -> None:
        pass
