"""The benchmark's stages.

Each builds what it measures with the `Builder`, as training does, so it measures the
code that trains; only the source of the data changes so that each stage measures one
thing.
"""

from __future__ import annotations

import functools
import queue
import threading
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import tensorflow as tf

from boardq.benchmark.measure import StageResult, Variant, Window, ratio, run_segments, settling
from boardq.config import TrainConfig
from boardq.dqn.builder import Builder
from boardq.dqn.coordination import CoordStop, start_workers
from boardq.dqn.learner import Learner
from boardq.game import Game
from boardq.search.selfplay import make_search_moves
from boardq.vector_check import env_random_play_rate, random_play_rate

__all__ = ["Chunk", "Workers", "collection", "processes", "random_play", "vector_play"]

Chunk = dict[str, np.ndarray]


class Workers:
    """Threads run under a coordinator from `start` to `stop` (a segment's variant).

    The first error of any thread is re-raised by `stop`.
    """

    def __init__(self, targets: Callable[[Any], list[tuple[str, Callable[[], None]]]]):
        self._targets = targets
        self._coord: tf.train.Coordinator | None = None
        self._threads: list[threading.Thread] = []

    def start(self) -> None:
        self._coord = tf.train.Coordinator()
        self._threads = start_workers(self._coord, self._targets(CoordStop(self._coord)))

    def stop(self) -> None:
        self._coord.request_stop()
        self._coord.join(self._threads, stop_grace_period_secs=30)


def _timed(key: str, title: str, unit: str, run: Callable[[], float]) -> StageResult:
    t0 = time.monotonic()
    rate = run()
    window = Window(t0, time.monotonic())
    return StageResult(key=key, title=title, unit=unit, rate=rate, figures={}, windows=[window])


def random_play(game: Game, seconds: float, seed: int) -> StageResult:
    """PettingZoo's own loop (`agent_iter`, `last`, `step`), random legal moves, one thread."""
    rng = np.random.default_rng(seed)
    run = functools.partial(env_random_play_rate, game.make_env, seconds, rng)
    return _timed("random_play", "PettingZoo random play, one thread", "moves/s", run)


def vector_play(game: Game, games: int, seconds: float, seed: int) -> StageResult:
    """The game's vectorized rules, random legal moves in `games` games, one thread."""
    rng = np.random.default_rng(seed)
    run = functools.partial(random_play_rate, game.vector(games), seconds, rng)
    title = f"vectorized random play, {games} games, one thread"
    return _timed("vector_play", title, "moves/s", run)


class _Drain:
    """Empties the actors' queue, keeping the first `keep` transitions for later stages."""

    def __init__(self, q: queue.Queue, keep: int):
        self.queue, self.keep, self.kept = q, keep, []
        self._count = 0

    def run(self, stop) -> None:
        while not stop.is_set():
            try:
                chunk = self.queue.get(timeout=0.1)
            except queue.Empty:
                continue
            if self._count < self.keep:
                self.kept.append(chunk)
                self._count += len(chunk["action"])


def _actor_counters(stats: Callable[[], list]) -> dict[str, Callable[[], float]]:
    names = ("transitions", "moves", "forward_calls", "infer_sec", "step_sec", "queue_sec")
    return {n: (lambda n=n: sum(getattr(s, n) for s in stats())) for n in names}


def collection(
    game: Game, config: TrainConfig, learner: Learner, seconds: float, rounds: int, keep: int
) -> tuple[list[StageResult], list[Chunk]]:
    """Self-play collection, learner off: actor threads with the real forward pass.

    Measures the game's vectorized rules ("collection") against PettingZoo stepping
    ("collection_pettingzoo") in interleaved segments, same threads and games, each
    built by the Builder. One thread empties the queue.
    """
    q = queue.Queue(maxsize=config.queue_chunks)
    kinds = {"collection": True, "collection_pettingzoo": False}
    if game.vector is None:
        kinds = {"collection": False}
    made = {
        key: Builder(config.replace(vectorized=v), game, make_search_moves).make_collection(
            learner, q, lambda: config.epsilon_start, None
        )
        for key, v in kinds.items()
    }
    drain = _Drain(q, keep)
    variants = {
        key: _collection_variant(c.targets, lambda c=c: [a.stats for a in c.actors], drain)
        for key, c in made.items()
    }
    measured = run_segments(variants, seconds, rounds, trim=settling(seconds))
    out = []
    for key, m in measured.items():
        stepping = "vectorized rules" if kinds[key] else "PettingZoo environments"
        thread_sec = m.seconds * config.actor_threads
        figures = {
            "moves_per_sec": m.rate("moves"),
            "mean_inference_batch": ratio(m.deltas["moves"], m.deltas["forward_calls"]),
            "time_share": {
                part: m.deltas[f"{part}_sec"] / thread_sec for part in ("infer", "step", "queue")
            },
            "actor_threads": config.actor_threads,
            "games_per_thread": config.games_per_thread,
            "by_segment": m.segment_rates(),
        }
        title = f"self-play collection, {stepping}, {config.actor_threads} thread(s)"
        out.append(
            StageResult(key=key, title=title, unit="transitions/s", rate=m.rate(),
                        figures=figures, windows=m.windows)
        )  # fmt: skip
    return out, drain.kept


def _collection_variant(targets, stats, drain: _Drain) -> Variant:
    def with_drain(stop):
        return [*targets(stop), ("drain", functools.partial(drain.run, stop))]

    workers = Workers(with_drain)
    return Variant(_actor_counters(stats), workers.start, workers.stop)


def processes(
    game: Game,
    config: TrainConfig,
    learner: Learner,
    counts: list[int],
    seconds: float,
    rounds: int,
) -> StageResult:
    """Actor processes on Ray (1..P of them, in interleaved segments), learner off.

    The processes start once (Ray and TensorFlow start-up are not measured); a
    segment with p processes runs the collector threads of the first p.
    """
    from boardq.training.remote import RemoteCollection  # Ray: only when this stage runs

    cfg = config.replace(actor_processes=max(counts), pool_share=0.0)  # the pool: threads only
    q = queue.Queue(maxsize=config.queue_chunks)
    remote = RemoteCollection(
        Builder(cfg, game, make_search_moves), learner, q, lambda: cfg.epsilon_start, None
    )
    drain = _Drain(q, 0)
    try:
        variants = {
            str(p): _collection_variant(
                lambda stop, p=p: remote.targets(stop)[:p], lambda p=p: remote.stats[:p], drain
            )
            for p in counts
        }
        measured = run_segments(variants, seconds, rounds, trim=settling(seconds, most=1.5))
    finally:
        remote.close()
    rates = {p: measured[str(p)].rate() for p in counts}
    windows = [w for m in measured.values() for w in m.windows]
    figures = {
        "by_processes": rates,
        "scaling": ratio(rates[max(counts)], rates[min(counts)]),
        "actor_threads_per_process": config.actor_threads,
        "games_per_thread": config.games_per_thread,
        "restarts": remote.restarts,
    }
    title = f"actor processes on Ray, {min(counts)}..{max(counts)}, learner off"
    return StageResult(
        key="processes", title=title, unit="transitions/s", rate=rates[max(counts)],
        figures=figures, windows=windows,
    )  # fmt: skip
