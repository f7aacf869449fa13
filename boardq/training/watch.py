"""What the main thread does while a run trains: start the threads, then only watch.

`watch(trainer, loggers, say)` starts the actor, learner and evaluator threads of a
built `Trainer`, writes metrics to the loggers every `log_every_sec`, stops the run at
the end of its budget or on Ctrl-C, joins every thread (re-raising the first error of
any), drains what the actors left into the replay and saves the final checkpoint, so
that nothing collected is lost.
"""

from __future__ import annotations

import functools
import resource
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tensorflow as tf

from boardq.dqn.coordination import start_workers
from boardq.dqn.dataset import run_to_end
from boardq.training.loggers import JsonLinesLogger, Logger, TensorBoardLogger
from boardq.training.workers import evaluator_thread, learner_thread

__all__ = ["TrainResult", "watch"]


@dataclass
class TrainResult:
    """What a finished (or interrupted) run leaves behind."""

    run_dir: Path
    metrics: dict[str, Any]
    interrupted: bool


def watch(trainer: Any, extra: Sequence[Logger], say: Callable[[str], None]) -> TrainResult:
    """Runs a built `boardq.training.trainer.Trainer` to its end (the module's docstring)."""
    cfg = trainer.config
    loggers = [
        TensorBoardLogger(trainer.run_dir / "tb"),
        JsonLinesLogger(trainer.run_dir / "metrics.jsonl"),
        *extra,
    ]
    _announce(trainer, say)
    trainer.budget.start()
    learner = functools.partial(learner_thread, trainer)  # boardq.training.workers
    targets = [*trainer.collection.targets(trainer.stop), ("learner", learner)]
    if cfg.eval_games > 0 and cfg.eval_ladder.strip():
        targets.append(("evaluator", functools.partial(evaluator_thread, trainer)))
    interrupted = False
    # Where the run starts (a resumed run: the replay it restored, its counters).
    last = _write(loggers[:2], trainer.metrics())
    threads = start_workers(trainer.coord, targets)
    try:
        try:
            while not trainer.coord.should_stop():
                trainer.coord.wait_for_stop(min(0.25, cfg.log_every_sec))
                if trainer.progress() >= 1.0:
                    trainer.stop.set()
                for event in trainer.collection.events():
                    say(event)
                if time.monotonic() - last["time"] >= cfg.log_every_sec:
                    last = _write(loggers, trainer.metrics(last))
        except KeyboardInterrupt:
            interrupted = True
            trainer.stop.set()
            say("interrupted: stopping threads and saving a checkpoint")
        except BaseException as e:
            trainer.coord.request_stop(e)
        # Re-raises the first exception of any thread (or of the loop above).
        trainer.coord.join(threads, stop_grace_period_secs=30)
        # The input pipeline ends, and what the actors left in the queue goes into
        # the ring, so the checkpoint holds every transition collected.
        run_to_end(trainer.iterator)
        trainer.feed.drain()
        trainer.save(keep=True)
        final = trainer.metrics(last)
        final["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        final["replay_mb"] = trainer.ring.nbytes / 2**20
        _write(loggers[:2], final)
    except BaseException:
        # The error goes on; a logger that cannot write (a full disk) cannot close.
        for logger in loggers:
            try:
                logger.close()
            except (OSError, tf.errors.OpError):
                pass
        raise
    for logger in loggers:
        logger.close()
    return TrainResult(trainer.run_dir, final, interrupted)


def _announce(trainer: Any, say: Callable[[str], None]) -> None:
    """The lines a run prints before it starts: what it does, where, and how."""
    doing = "resuming" if trainer.resume_dir else "training"
    say(f"{doing} {trainer.game.title} in {trainer.run_dir}")
    say(trainer.learner.precision.note)
    for note in trainer.ladder_notes if trainer.config.eval_games > 0 else ():
        say(note)
    if not trainer.config.actor_processes:  # actor processes resolve it where they run
        say(trainer.builder.actor_inference()[1])
    for note in trainer.notes:
        say(note)


def _write(loggers: Sequence[Logger], m: dict[str, Any]) -> dict[str, Any]:
    for logger in loggers:
        logger.write(m)
    return m
