"""Runs every stage in order and assembles the report (a JSON-ready dict)."""

from __future__ import annotations

import dataclasses
import itertools
import os
import platform
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from games.base import Game

from boardq.benchmark.gpu import NVML_NOTE, UtilizationMonitor
from boardq.benchmark.result import StageResult
from boardq.benchmark.stats import ratio, target
from boardq.config import TrainConfig

__all__ = [
    "TARGETS",
    "BenchSettings",
    "Durations",
    "build_report",
    "compute_ratios",
    "compute_targets",
    "run_benchmark",
]

# The figures this machine must reach (see docs/performance.md).
TARGETS = {
    "collection_vs_baseline": 100.0,
    "collection_vs_random_play": 0.5,
    "fed_vs_ceiling": 0.9,
}


@dataclass(frozen=True)
class Durations:
    """Seconds each stage runs (its steady window is a trimmed part of it)."""

    random_play_sec: float = 6.0
    collection_sec: float = 10.0
    ceiling_sec: float = 10.0
    """The learner ceiling's share of the interleaved stages 3 and 4."""
    fed_sec: float = 12.0
    """The fed learner's share (the iterator floor gets half as much again)."""
    training_sec: float = 30.0
    baseline_collection_sec: float = 8.0
    baseline_ceiling_sec: float = 5.0
    baseline_fed_sec: float = 8.0
    baseline_training_sec: float = 10.0
    sweep_sec: float = 5.0
    """Each extra setting of a sweep (collection, or ceiling and fed learner)."""
    learner_rounds: int = 8
    """Rounds of the interleaved ceiling / fed / floor segments (more, shorter
    segments follow a changing load more closely)."""

    @classmethod
    def quick(cls) -> Durations:
        """Under a minute in all, start-up included, on a small machine."""
        return cls(2.0, 3.0, 3.0, 3.0, 8.0, 3.0, 2.0, 2.5, 3.0, 2.0, learner_rounds=4)

    def scaled(self, factor: float) -> Durations:
        """Every duration times `factor` (tests use small factors)."""
        if factor <= 0:
            raise ValueError("time scale must be > 0")
        return dataclasses.replace(
            self,
            **{
                f.name: factor * getattr(self, f.name)
                for f in dataclasses.fields(self)
                if f.name.endswith("_sec")
            },
        )


@dataclass(frozen=True)
class BenchSettings:
    """What to measure.

    The first value of each sweep list is the main setting, used by every stage;
    further values re-measure the stages they affect: threads and games per thread
    the collection, batch size and jit_compile the learner ceiling and fed learner.
    """

    game: str
    config: TrainConfig
    """The preset with the user's options applied (main setting)."""
    threads: tuple[int, ...]
    games_per_thread: tuple[int, ...]
    batch_sizes: tuple[int, ...]
    jit_compile: tuple[bool, ...]
    durations: Durations
    baseline: bool = True
    """Measure the seeds' recipe (stage 7)."""
    training: bool = True
    """Run the full trainer (stage 5)."""
    quick: bool = False
    sample_hz: float = 20.0
    """Counter samples per second."""
    utilization_hz: float = 10.0
    """GPU (NVML) and CPU samples per second."""
    keep_transitions: int = 100_000
    """Transitions kept from the collection stage to feed the learner stages."""

    def main_config(self) -> TrainConfig:
        return self.config.replace(
            actor_threads=self.threads[0],
            games_per_thread=self.games_per_thread[0],
            batch_size=self.batch_sizes[0],
            jit_compile=self.jit_compile[0],
        )


def compute_ratios(stages: dict[str, StageResult]) -> dict[str, float | None]:
    """Every boardq stage against the seeds' recipe, and the required ratios."""

    def rate(key: str, figure: str | None = None) -> float | None:
        stage = stages.get(key)
        if stage is None:
            return None
        return stage.rate if figure is None else stage.figures.get(figure)

    return {
        "collection_vs_baseline": ratio(rate("collection"), rate("baseline_collection")),
        "collection_vs_random_play": ratio(rate("collection"), rate("random_play")),
        "collection_vs_random_env_steps": ratio(
            rate("collection"), rate("random_play", "env_steps_per_sec")
        ),
        "fed_vs_ceiling": ratio(rate("fed_learner"), rate("learner_ceiling")),
        "ceiling_vs_baseline": ratio(rate("learner_ceiling"), rate("baseline_learner_ceiling")),
        "fed_vs_baseline": ratio(rate("fed_learner"), rate("baseline_fed_learner")),
        "training_transitions_vs_baseline": ratio(rate("training"), rate("baseline_training")),
        "training_updates_vs_baseline": ratio(
            rate("training", "updates_per_sec"), rate("baseline_training", "updates_per_sec")
        ),
        "baseline_fed_vs_ceiling": ratio(
            rate("baseline_fed_learner"), rate("baseline_learner_ceiling")
        ),
    }


def compute_targets(ratios: dict[str, float | None]) -> dict[str, dict[str, Any]]:
    """The required figures, each with its bound and whether it is met."""
    return {name: target(ratios.get(name), bound) for name, bound in TARGETS.items()}


def machine_info() -> dict[str, Any]:
    """What the figures were measured on."""
    import numpy as np
    import pettingzoo
    import tensorflow as tf

    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {
        "cpu": cpu,
        "cpu_count": os.cpu_count(),
        "platform": platform.platform(),
        "python": sys.version.split()[0],
        "tensorflow": tf.__version__,
        "numpy": np.__version__,
        "pettingzoo": pettingzoo.__version__,
        "tf_gpus": [d.name for d in tf.config.list_physical_devices("GPU")],
        "load_average_start": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
    }


def _sweep_values(settings: BenchSettings) -> tuple[list, list]:
    collect = list(itertools.product(settings.threads, settings.games_per_thread))[1:]
    learn = list(itertools.product(settings.batch_sizes, settings.jit_compile))[1:]
    return collect, learn


def run_benchmark(
    game: Game, settings: BenchSettings, say: Callable[[str], None] = print
) -> dict[str, Any]:
    """Measures every stage; returns the report (see `boardq.benchmark.report`)."""
    from boardq.benchmark import baseline as seeds
    from boardq.benchmark import stages as st
    from boardq.learner import Learner, configure_threads

    cfg = settings.main_config().validate()
    configure_threads(cfg)  # as training does, before TensorFlow's first op
    d = settings.durations
    hz = settings.sample_hz
    origin = time.monotonic()
    wall_start = time.time()

    def log(text: str) -> None:
        say(f"[{time.monotonic() - origin:5.1f}s] {text}")

    machine = machine_info()
    monitor = UtilizationMonitor(settings.utilization_hz)
    gpu = monitor.start()
    log(f"GPU: {', '.join(x['name'] for x in gpu.devices)}" if gpu.available else gpu.reason)
    stages: dict[str, StageResult] = {}
    sweep_results: list[tuple[str, dict[str, Any], StageResult]] = []
    try:
        log("1/7 random play")
        stages["random_play"] = st.random_play(game, d.random_play_sec, cfg.seed, hz)

        log("2/7 self-play collection")
        learner = Learner(cfg, game.obs_shape, game.num_actions)
        learner.warm_up()
        act = st.snapshot_act_fn(learner)
        stages["collection"], chunks = st.collection(
            game, cfg, act, d.collection_sec, hz, settings.keep_transitions
        )

        log("3/7 and 4/7 learner ceiling and fed learner")
        ceiling, fed = st.learner_ceiling_and_fed(
            game, cfg, learner, chunks, d.ceiling_sec, d.fed_sec, hz, d.learner_rounds
        )
        stages["learner_ceiling"], stages["fed_learner"] = ceiling, fed

        if settings.training:
            log("5/7 full training")
            stages["training"] = st.training(game, cfg, d.training_sec, hz=4.0)

        if settings.baseline:
            log("7/7 the seeds' recipe (baseline)")
            base = seeds.BaselineLearner(cfg, game.obs_shape, game.num_actions)
            base.online.predict(chunks[0]["obs"][:1], verbose=0)  # builds predict on main
            stages["baseline_collection"] = seeds.baseline_collection(
                game, cfg, base, d.baseline_collection_sec, hz
            )
            b_ceiling, b_fed = seeds.baseline_learner(
                game, cfg, base, chunks, d.baseline_ceiling_sec, d.baseline_fed_sec, hz
            )
            stages["baseline_learner_ceiling"] = b_ceiling
            stages["baseline_fed_learner"] = b_fed
            if settings.training:
                stages["baseline_training"] = seeds.baseline_training(
                    game, cfg, base, chunks, d.baseline_training_sec, hz
                )

        collect_sweep, learn_sweep = _sweep_values(settings)
        for threads, games in collect_sweep:
            log(f"sweep: collection, {threads} threads x {games} games")
            c = cfg.replace(actor_threads=threads, games_per_thread=games)
            result, _ = st.collection(game, c, act, d.sweep_sec, hz)
            params = {"threads": threads, "games_per_thread": games}
            sweep_results.append(("collection", params, result))
        for batch_size, jit in learn_sweep:
            log(f"sweep: learner, batch {batch_size}, jit_compile {jit}")
            c = cfg.replace(batch_size=batch_size, jit_compile=jit)
            sweep_learner = Learner(c, game.obs_shape, game.num_actions)
            sweep_learner.warm_up()
            s_ceiling, s_fed = st.learner_ceiling_and_fed(
                game, c, sweep_learner, chunks, d.sweep_sec, d.sweep_sec, hz, rounds=4
            )
            params = {"batch_size": batch_size, "jit_compile": jit}
            sweep_results.append(("learner_ceiling", params, s_ceiling))
            sweep_results.append(("fed_learner", params, s_fed))
    finally:
        monitor.stop()

    machine["load_average_end"] = list(os.getloadavg()) if hasattr(os, "getloadavg") else None
    sweep = [_sweep_row(*row, monitor, origin) for row in sweep_results]
    return build_report(
        game.name, settings, cfg, stages, sweep, monitor, machine, origin, wall_start
    )


def build_report(
    game_name: str,
    settings: BenchSettings,
    config: TrainConfig,
    stages: dict[str, StageResult],
    sweep: list[dict[str, Any]],
    monitor: UtilizationMonitor,
    machine: dict[str, Any],
    origin: float,
    wall_start: float,
) -> dict[str, Any]:
    """The JSON-ready report of measured stages (times relative to `origin`)."""
    for stage in stages.values():
        stage.figures["utilization"] = monitor.summary(stage.windows)
    others = [
        m - p
        for m, p in zip(monitor.machine_cores, monitor.process_cores, strict=True)
        if m is not None and p is not None
    ]
    machine = {
        **machine,
        # Cores other processes kept busy while the benchmark ran (from /proc/stat).
        "other_processes_cores_mean": max(0.0, sum(others) / len(others)) if others else None,
    }
    ratios = compute_ratios(stages)
    gpu = monitor.status
    return {
        "game": game_name,
        "started": time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(wall_start)),
        "duration_sec": time.monotonic() - origin,
        "quick": settings.quick,
        "machine": machine,
        "settings": {
            "threads": config.actor_threads,
            "games_per_thread": config.games_per_thread,
            "batch_size": config.batch_size,
            "jit_compile": config.jit_compile,
            "replay_ratio": config.replay_ratio,
            "augment_symmetries": config.augment_symmetries,
            "network": dataclasses.asdict(config.network),
            "durations": dataclasses.asdict(settings.durations),
        },
        "gpu": {**gpu.to_dict(), "note": NVML_NOTE},
        "stages": {key: stage.to_dict(origin) for key, stage in stages.items()},
        "ratios": ratios,
        "targets": compute_targets(ratios),
        "sweep": sweep,
        "utilization_series": {
            "t_sec": [t - origin for t in monitor.times],
            "process_cores": list(monitor.process_cores),
            "machine_cores": list(monitor.machine_cores),
            "gpu_util": [list(row) for row in monitor.gpu_util],
        },
    }


def _sweep_row(
    stage: str,
    params: dict[str, Any],
    result: StageResult,
    monitor: UtilizationMonitor,
    origin: float,
) -> dict[str, Any]:
    util = monitor.summary(result.windows)
    return {
        "stage": stage,
        **params,
        "rate": result.rate,
        "unit": result.unit,
        "figures": {k: v for k, v in result.figures.items() if k != "time_share"},
        "gpu_util_mean": util.get("gpu_util_mean"),
        "start_sec": result.start - origin,
    }
