"""What the learner and evaluator threads of a `boardq.training.trainer.Trainer` run.

The learner thread runs the `LearnerLoop`, the only writer of the weights; between its
calls (no train step running) it anneals the learning rate, ends the run when the budget
is spent, saves checkpoints and keeps copies of the agent. The evaluator thread runs the
ladder (`Ladder.run`) on the newest snapshot and hands its figures to the metrics.
"""

from __future__ import annotations

import time
from typing import Any

__all__ = ["evaluator_thread", "learner_thread"]


def learner_thread(trainer: Any) -> None:
    """Trains until the stop is set; saves and keeps agents between calls."""
    cfg = trainer.config
    last = {"checkpoint": time.monotonic(), "kept": time.monotonic()}

    def after_call() -> None:  # between calls: no train step runs now
        now = time.monotonic()
        if cfg.lr_final != 1.0:
            trainer.learner.anneal(trainer.progress())
        if trainer.progress() >= 1.0:
            trainer.stop.set()
        elif now - last["checkpoint"] >= cfg.checkpoint_every_sec:
            # The replay is written in the background; a save still being written
            # puts the next one off to a later call.
            if trainer.save(wait=False) is not None:
                last["checkpoint"] = now
        if cfg.keep_agent_every_sec and now - last["kept"] >= cfg.keep_agent_every_sec:
            trainer.state.keep_agent(trainer.collected(), trainer.elapsed())
            last["kept"] = now

    trainer.loop.run(trainer.stop, after_call)


def evaluator_thread(trainer: Any) -> None:
    """The evaluation ladder on the newest snapshot (`Ladder.run`).

    Its last figures go to `trainer.eval_metrics`.
    """

    def newest() -> tuple[int, Any, dict[str, Any]]:
        snap = trainer.learner.snapshots.get()
        return (
            snap.version,
            snap.weights,
            {"train_step": snap.version, "elapsed_sec": trainer.elapsed()},
        )

    def took(result: dict[str, float]) -> None:
        trainer.eval_metrics = result

    trainer.ladder.run(trainer.stop, newest, trainer.state.kept_agent_files, took)
