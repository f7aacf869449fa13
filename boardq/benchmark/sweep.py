"""Sweeps: the stages a setting affects, measured again for each further value.

Collection settings (`actor_threads`, `games_per_thread`) measure collection again,
one round per value. Learner settings (`LEARNER_SETTINGS`) build one learner per value
and time every learner's ceiling in interleaved segments together with the main
learner's, so each value's figure is a ratio measured side by side.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np
import tensorflow as tf

from boardq.benchmark.measure import StageResult, Variant, ratio, run_segments
from boardq.benchmark.stages import Workers, collection
from boardq.config import TrainConfig
from boardq.dqn.builder import Builder
from boardq.game import Game

__all__ = ["LEARNER_SETTINGS", "learner_ceilings", "sweep"]

LEARNER_SETTINGS = ("batch_size", "steps_per_call", "jit_compile", "precision", "batch_splits")
"""Settings whose values are compared by the learner's ceiling."""

Chunk = dict[str, np.ndarray]


def sweep(
    game: Game,
    config: TrainConfig,
    sweeps: dict[str, tuple],
    learner,
    chunks: list[Chunk],
    seconds: float,
    rounds: int,
    log: Callable[[str], None],
) -> list[StageResult]:
    """Every further value of every swept setting (the first value is the main run's)."""
    out: list[StageResult] = []
    learners: dict[str, tuple[TrainConfig, Any]] = {}
    for name, values in sweeps.items():
        for value in values:
            cfg = config.replace(**{name: value})
            if name in LEARNER_SETTINGS:
                learners[f"{name}={value}"] = (cfg, Builder(cfg, game).make_learner())
                continue
            log(f"sweep: {name} = {value}")
            found, _ = collection(game, cfg, learner, seconds, 1, 0)
            for r in found:
                r.key, r.figures["sweep"] = f"{r.key}[{name}={value}]", {name: value}
            out += found
    if learners:
        log(f"sweep: the learner's ceiling side by side: main, {', '.join(learners)}")
        out += learner_ceilings(game, {"main": (config, learner), **learners}, chunks,
                                seconds, rounds)  # fmt: skip
    return out


def learner_ceilings(
    game: Game,
    learners: dict[str, tuple[TrainConfig, Any]],
    chunks: list[Chunk],
    seconds: float,
    rounds: int,
) -> list[StageResult]:
    """Each learner's ceiling (its loop on one element on the device), interleaved.

    Args:
      game: the game.
      learners: "main" and "name=value" -> (config, learner).
      chunks: collected transitions; each learner's element is drawn from them.
      seconds: each segment's length.
      rounds: rounds of interleaved segments.

    Returns:
      One stage per learner but "main", keyed `learner_ceiling[name=value]`, with its
      rate over the main learner's measured in the same interleaved segments.
    """
    loops = {}
    for key, (cfg, learner) in learners.items():
        element = _element(chunks, cfg)
        learner.train_on(element)  # traced here, not in a timed segment
        source = {"ceiling": functools.partial(learner.train_on, element)}
        loops[key] = Builder(cfg, game).make_learner_loop(learner, source)

    def variant(loop) -> Variant:
        workers = Workers(lambda stop: [("learner", functools.partial(loop.run, stop))])
        counters = {"steps": lambda: loop.steps, "busy": lambda: loop.busy_sec["ceiling"]}
        return Variant(counters, workers.start, workers.stop)

    measured = run_segments({k: variant(loop) for k, loop in loops.items()}, seconds, rounds, 0.3)
    main = measured["main"].rate()
    out = []
    for key, (cfg, learner) in learners.items():
        if key == "main":
            continue
        m, rate = measured[key], measured[key].rate()
        name, value = key.split("=", 1)
        figures = {
            "samples_per_sec": rate * cfg.batch_size if rate else None,
            "vs_main": ratio(rate, main),
            "main_rate": main,
            "learner_duty": m.rate("busy"),
            "by_segment": m.segment_rates(),
            "batch_size": cfg.batch_size,
            "steps_per_call": cfg.steps_per_call,
            "jit_compile": cfg.jit_compile,
            "batch_splits": cfg.batch_splits,
            "precision": learner.precision.name,
            "sweep": {name: getattr(cfg, name)},
        }
        out.append(
            StageResult(key=f"learner_ceiling[{key}]", title="learner alone, side by side with "
                        "the main learner", unit="train steps/s", rate=rate, figures=figures,
                        windows=m.windows)
        )  # fmt: skip
    return out


def _element(chunks: list[Chunk], config: TrainConfig) -> dict[str, tf.Tensor]:
    """One element of `steps_per_call` batches drawn from the collected transitions."""
    rows = {key: np.concatenate([c[key] for c in chunks]) for key in chunks[0]}
    k, b = config.steps_per_call, config.batch_size
    picked = np.random.default_rng(config.seed).integers(0, len(rows["action"]), k * b)
    return {key: tf.constant(v[picked].reshape(k, b, *v.shape[1:])) for key, v in rows.items()}
