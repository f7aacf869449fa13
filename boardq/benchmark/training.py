"""The full-training stage: the real Trainer for a fixed time, measured by its own metrics."""

from __future__ import annotations

import tempfile
from collections.abc import Mapping
from typing import Any

from boardq.benchmark.measure import StageResult, Window, ratio
from boardq.config import TrainConfig
from boardq.game import Game

__all__ = ["MetricsRecorder", "training"]


class MetricsRecorder:
    """A logger that keeps every metrics dict the trainer writes."""

    def __init__(self) -> None:
        self.rows: list[dict[str, Any]] = []

    def write(self, metrics: Mapping[str, Any]) -> None:
        self.rows.append(dict(metrics))

    def close(self) -> None:
        pass


def training(game: Game, config: TrainConfig, seconds: float, key: str = "training") -> StageResult:
    """The Trainer with `config` for `seconds` (evaluation off, a temporary run directory).

    The window starts a fifth of the way from the first train step to the end (replay
    warm-up, tracing and the first calls are not counted); figures are changes of
    the trainer's counters over it.
    """
    from boardq.training.trainer import Trainer

    recorder = MetricsRecorder()
    with tempfile.TemporaryDirectory(prefix="boardq-bench-") as tmp:
        cfg = config.replace(
            budget_minutes=seconds / 60.0,
            budget_steps=0,
            eval_games=0,
            out_dir=tmp,
            # A row a second in a long stage (enough for its window): little of the main
            # thread's logging on the cores the run is measured on.
            log_every_sec=max(0.25, min(1.0, seconds / 30)),
            checkpoint_every_sec=10 * seconds + 60,
        )
        Trainer(cfg, game).run([recorder])
    rows = [r for r in recorder.rows if r.get("train_steps", 0) > 0 and "time" in r]
    title = f"full training at replay ratio {cfg.replay_ratio:g}"
    if len(rows) < 3 or rows[-1]["time"] - rows[0]["time"] < 1.0:
        note = {"note": "training had not run for a second when the stage ended"}
        return StageResult(
            key=key, title=title, unit="transitions/s", rate=None, figures=note, windows=[]
        )
    began = rows[0]["time"] + 0.2 * (rows[-1]["time"] - rows[0]["time"])
    first = next(r for r in rows if r["time"] >= began)
    last = rows[-1]
    dt = last["time"] - first["time"]

    def change(name: str) -> float:
        return float(last.get(name, 0.0)) - float(first.get(name, 0.0))

    transitions, steps = change("transitions"), change("train_steps")
    thread_sec = dt * cfg.actor_threads
    steady = [r for r in rows if r["time"] >= began]
    figures = {
        "train_steps_per_sec": steps / dt,
        "learner_duty": change("learner_busy_sec") / dt,
        "data_wait_share": change("learner_wait_sec") / dt,
        "policy_lag_mean": sum(r["policy_lag"] for r in steady) / len(steady),
        "replay_ratio": cfg.replay_ratio,
        "replay_ratio_held": ratio(steps * cfg.batch_size, transitions),
        "actor_time_share": {
            part: change(f"actor_{part}_sec") / thread_sec for part in ("infer", "step")
        },
        "actor_processes": cfg.actor_processes,
        "actor_threads": cfg.actor_threads,
        "games_per_thread": cfg.games_per_thread,
    }
    window = Window(first["time"], last["time"])
    return StageResult(
        key=key, title=title, unit="transitions/s", rate=transitions / dt, figures=figures,
        windows=[window],
    )  # fmt: skip
