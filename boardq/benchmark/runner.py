"""Runs the stages in order and assembles the report (a JSON-ready dict)."""

from __future__ import annotations

import dataclasses
import os
import platform
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from boardq.benchmark.gpu import NVML_NOTE, UtilizationMonitor
from boardq.benchmark.measure import StageResult, ratio, target
from boardq.benchmark.roofline import roofline_ratios
from boardq.config import TrainConfig
from boardq.game import Game

__all__ = [
    "TARGETS",
    "BenchSettings",
    "Durations",
    "build_report",
    "compute_ratios",
    "run_benchmark",
]

# The figures this machine must reach (docs/gpu.md, "Measure it", lists them): name -> at least.
TARGETS = {
    "collection_vs_naive": 100.0,
    "fed_vs_ceiling": 0.9,
    "vector_play_vs_random_play": 20.0,
    "processes_scaling": 1.6,
    "training_vs_ceiling": 0.9,
    # The tree search's visits a second over the network's positions a second (issue 68).
    "tree_visits_vs_forward": 0.5,
}


@dataclass(frozen=True)
class Durations:
    """How long the stages run."""

    segment_sec: float = 4.0
    """Each segment of an interleaved comparison."""
    rounds: int = 4
    """Rounds of interleaved segments (each variant runs once per round)."""
    play_sec: float = 4.0
    """Random play, PettingZoo's and vectorized."""
    training_sec: float = 30.0
    naive_sec: float = 6.0
    roofline_sec: float = 0.4
    """Each matrix-product probe of the roofline."""
    search_sec: float = 10.0
    """Each depth of the search stage (at least a few positions, however long they take)."""

    @classmethod
    def quick(cls) -> Durations:
        """Under about a minute and a half in all on a small machine."""
        return cls(
            segment_sec=2.0, rounds=2, play_sec=2.0, training_sec=10.0, naive_sec=3.0,
            roofline_sec=0.2, search_sec=2.0,
        )  # fmt: skip

    def scaled(self, factor: float) -> Durations:
        """Every duration times `factor` (tests use small factors)."""
        return dataclasses.replace(
            self,
            **{f.name: factor * getattr(self, f.name) for f in dataclasses.fields(self)
               if f.name.endswith("_sec")},
        )  # fmt: skip


@dataclass(frozen=True)
class BenchSettings:
    """What to measure.

    Attributes:
      config: the preset with the user's options applied.
      durations: how long the stages run.
      processes: actor-process counts for the scaling stage (empty: skip it).
      naive: measure the naive implementation as the baseline.
      training: run the full trainer.
      search_depths: the depths the search stage times (empty, or a game without
        rules: skip it).
      sweeps: setting name -> further values; each re-measures the stages it affects
        (collection for actor_threads and games_per_thread; the learner's ceiling, side
        by side with the main learner's, for the `sweep.LEARNER_SETTINGS`).
    """

    config: TrainConfig
    durations: Durations
    processes: tuple[int, ...] = (1, 2)
    naive: bool = True
    training: bool = True
    search_depths: tuple[int, ...] = (1, 2, 3)
    sweeps: dict[str, tuple] = dataclasses.field(default_factory=dict)
    quick: bool = False


def compute_ratios(stages: dict[str, StageResult], config: TrainConfig) -> dict[str, Any]:
    """Every comparison the report makes, and the feed figure."""

    def rate(key: str) -> float | None:
        return stages[key].rate if key in stages else None

    ceiling = rate("learner_ceiling")
    training_steps = (
        stages["training"].figures.get("train_steps_per_sec") if "training" in stages else None
    )
    demand = ceiling * config.batch_size / config.replay_ratio if ceiling else None
    capacity = max((r for r in (rate("collection"), rate("processes")) if r), default=None)
    return {
        "collection_vs_naive": ratio(rate("collection"), rate("naive_collection")),
        "collection_vs_pettingzoo_collection": ratio(
            rate("collection"), rate("collection_pettingzoo")
        ),
        "vector_play_vs_random_play": ratio(rate("vector_play"), rate("random_play")),
        "fed_vs_ceiling": ratio(rate("fed_learner"), ceiling),
        "fed_vs_naive": ratio(rate("fed_learner"), rate("naive_learning")),
        "processes_scaling": stages["processes"].figures["scaling"]
        if "processes" in stages
        else None,
        # Side by side: the chip at the learner's shapes, the learner alone, full training.
        "roofline_gflops": rate("roofline"),
        "learner_ceiling": ceiling,
        "training_steps": training_steps,
        "training_vs_ceiling": ratio(training_steps, ceiling),
        # The learner's GFLOP/s at its ceiling, against what the chip's products reach.
        **roofline_ratios(stages.get("roofline"), ceiling),
        # What the learner eats at full speed, and what the actors can collect.
        "learner_demand_transitions_per_sec": demand,
        "collection_capacity_transitions_per_sec": capacity,
        "feed": ratio(capacity, demand),
        # The tree search against the network alone, in one process (`tree_visits`); the
        # required figure is the compiled tree's, where the game's rules have one.
        "tree_visits_vs_forward": _figure(stages, "tree_visits", "visits_over_forward")
        if _figure(stages, "tree_visits", "compiled")
        else None,
        "tree_visits_vs_forward_plain": _figure(stages, "tree_visits", "visits_over_forward_plain"),
    }


def _figure(stages: dict[str, StageResult], key: str, name: str) -> float | None:
    return stages[key].figures.get(name) if key in stages else None


def machine_info() -> dict[str, Any]:
    """What the figures were measured on."""
    import numpy as np
    import tensorflow as tf

    from boardq.dqn.chip import cpu_name

    return {
        "cpu": cpu_name(),
        "cpu_count": os.cpu_count(),
        "platform": platform.platform(),
        "python": sys.version.split()[0],
        "tensorflow": tf.__version__,
        "numpy": np.__version__,
        "tf_gpus": [d.name for d in tf.config.list_physical_devices("GPU")],
        "load_average_start": list(os.getloadavg()),
    }


def _stages(game: Game, s: BenchSettings, log: Callable[[str], None]) -> list[StageResult]:
    from boardq.benchmark import learning, naive, roofline, search, stages, training, tree_visits
    from boardq.benchmark.sweep import sweep
    from boardq.dqn.builder import Builder

    cfg, d = s.config, s.durations
    seg, rounds = d.segment_sec, d.rounds
    learner = Builder(cfg, game).make_learner()
    out = []
    log("random play: PettingZoo's loop, then the vectorized rules")
    out.append(stages.random_play(game, d.play_sec, cfg.seed))
    if game.vector is not None:
        out.append(stages.vector_play(game, cfg.games_per_thread, d.play_sec, cfg.seed))
    log("self-play collection, learner off")
    collected, chunks = stages.collection(game, cfg, learner, seg, rounds, keep=100_000)
    out += collected
    if s.processes:
        log(f"actor processes on Ray: {', '.join(map(str, s.processes))}")
        out.append(stages.processes(game, cfg, learner, list(s.processes), seg, rounds))
    log("learner: ceiling, fed by the pipeline, iterator floor")
    out += learning.learner_stages(game, cfg, learner, chunks, seg, rounds)
    log(f"roofline: the chip's matrix products at the learner's shapes ({learner.precision.note})")
    out.append(roofline.roofline(learner, d.roofline_sec))
    if game.rules is not None and s.search_depths:
        log(f"the search at play: depths {', '.join(map(str, s.search_depths))}")
        out += search.search_time(game, cfg, s.search_depths, d.search_sec, cfg.seed)
        log("the tree search at play: leaves a second against the network's forward pass")
        out.append(search.tree_search_rate(game, cfg, d.search_sec, cfg.seed))
        log("the tree search's visits a second, compiled and plain, against the network's")
        out.append(tree_visits.tree_visits_rate(game, cfg, cfg.seed, rounds=2 if s.quick else 4))
    if s.training:
        log("full training")
        out.append(training.training(game, cfg, d.training_sec))
    if s.naive:
        log("the naive implementation (baseline)")
        out.append(naive.naive_collection(game, cfg, d.naive_sec))
        out.append(naive.naive_learning(game, cfg, chunks, d.naive_sec))
    out += sweep(game, cfg, s.sweeps, learner, chunks, seg, rounds, log)
    return out


def run_benchmark(game: Game, settings: BenchSettings, say: Callable[[str], None] = print) -> dict:
    """Measures every stage; returns the report (see `boardq.benchmark.report`)."""
    origin, wall = time.monotonic(), time.time()

    def log(text: str) -> None:
        say(f"[{time.monotonic() - origin:5.1f}s] {text}")

    machine = machine_info()
    monitor = UtilizationMonitor(10.0)
    gpu = monitor.start()
    log(f"GPU: {', '.join(x['name'] for x in gpu.devices)}" if gpu.available else gpu.reason)
    try:
        results = _stages(game, settings, log)
    finally:
        monitor.stop()
    machine["load_average_end"] = list(os.getloadavg())
    import tensorflow as tf

    # 0: TensorFlow's default (the cores).
    machine["tf_intra_op_threads"] = tf.config.threading.get_intra_op_parallelism_threads()
    machine["tf_inter_op_threads"] = tf.config.threading.get_inter_op_parallelism_threads()
    return build_report(game.name, settings, results, monitor, machine, origin, wall)


def build_report(
    game_name: str,
    settings: BenchSettings,
    results: list[StageResult],
    monitor: UtilizationMonitor,
    machine: dict[str, Any],
    origin: float,
    wall: float,
) -> dict[str, Any]:
    """The JSON-ready report of measured stages (times relative to `origin`)."""
    stages = {r.key: r for r in results}
    for r in results:
        r.figures["utilization"] = monitor.summary(r.windows)
    ratios = compute_ratios(stages, settings.config)
    return {
        "game": game_name,
        "started": time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(wall)),
        "duration_sec": time.monotonic() - origin,
        "quick": settings.quick,
        "machine": machine,
        "settings": {
            **settings.config.to_dict(),
            "durations": dataclasses.asdict(settings.durations),
        },
        "gpu": {**monitor.status.to_dict(), "note": NVML_NOTE},
        "stages": {k: r.to_dict(origin) for k, r in stages.items()},
        "ratios": ratios,
        "targets": {name: target(ratios.get(name), bound) for name, bound in TARGETS.items()},
        "utilization_series": {
            "t_sec": [t - origin for t in monitor.times],
            "process_cores": list(monitor.process_cores),
            "machine_cores": list(monitor.machine_cores),
            "gpu_util": [list(row) for row in monitor.gpu_util],
        },
    }
