"""The composition root: builds every part through the `Builder`, runs training, saves.

Threads: actor threads (`Actor.run`; or, with actor processes, one collector thread
per process), one learner thread (`LearnerLoop`, the only writer of weights), one
evaluator thread (starts the evaluation ladder in a low-priority child process, see
`boardq.ladder`), and tf.data's own thread
running the replay generator. The main thread builds and traces everything first
(`build`), then only watches: it writes metrics to the loggers, enforces the time
budget, turns Ctrl-C into a stop, and saves the final checkpoint after every thread
ended.
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

from boardq.agent import averaged_weights
from boardq.builder import Builder
from boardq.checkpointing import CONFIG_FILE, RunLock, atomic_write_text, new_run_dir
from boardq.config import TrainConfig
from boardq.coordination import CoordStop, start_workers
from boardq.errors import RunDirError
from boardq.ladder import Ladder
from boardq.loggers import JsonLinesLogger, Logger, TensorBoardLogger
from boardq.policies import linear_epsilon
from boardq.run_state import RunState
from boardq.specs import check_spec, check_symmetric
from games.game import Game

__all__ = ["TrainResult", "Trainer"]


@dataclass
class TrainResult:
    """What a finished (or interrupted) run leaves behind."""

    run_dir: Path
    metrics: dict[str, Any]
    interrupted: bool


class Trainer:
    """Trains one game from a fresh run directory or resumes one.

    Args:
      config: validated settings (config.game must be game.name).
      game: the game.
      resume_dir: an existing run directory to continue, or None for a new run.
    """

    def __init__(self, config: TrainConfig, game: Game, resume_dir: str | Path | None = None):
        self.config = config.validate()
        self.game = game
        if config.game != game.name:
            raise RunDirError(f"the settings are for {config.game!r}, not for {game.name!r}")
        # What cannot play this game is refused here, before a run directory is made.
        for spec in config.ladder_specs():  # a player that cannot play this game: one line
            check_spec(spec, game)
        if config.eval_symmetric:
            check_symmetric(game, "eval_symmetric")
        self.resume_dir = Path(resume_dir) if resume_dir else None
        self.run_dir: Path | None = None
        self.built = False
        self._eval_metrics: dict[str, float] = {}

    # -- building --------------------------------------------------------------------------
    def build(self) -> None:
        """Builds every part in order on this (the main) thread; restores a resumed run.

        Raises:
          RunDirError: the run directory is in use, has no checkpoint, or its
            checkpoint does not fit this game and network.
        """
        self.run_dir = self.resume_dir or new_run_dir(self.config.out_dir, self.game.dir_name)
        self.lock = RunLock(self.run_dir)  # refuses a second training on this directory
        try:
            self._build()
        except BaseException:
            if hasattr(self, "collection"):
                self.collection.close()
            self.lock.release()
            raise
        self.built = True

    def _build(self) -> None:
        cfg, builder = self.config, Builder(self.config, self.game)
        self.builder = builder
        if self.resume_dir is None:
            atomic_write_text(self.run_dir / CONFIG_FILE, cfg.to_json())
        self.learner = builder.make_learner()
        self.state = RunState(self.learner, self.game, cfg, self.run_dir)
        if self.resume_dir is not None:
            self.state.restore()
        self.learner.publish()  # the first snapshot: restored weights when resuming

        self.queue = builder.make_queue()
        self.ring, self.limiter = builder.make_replay()
        self.coord = tf.train.Coordinator()
        self.stop = CoordStop(self.coord)
        self.feed = builder.make_feed(self.queue, self.ring, self.limiter, self.stop)
        self._iterator = builder.make_dataset_iterator(self.feed, self.learner)
        self.act_fn = builder.make_policy(self.learner.q_function, self.learner.snapshots)
        admit = functools.partial(self.limiter.await_insert, timeout=0.1)
        self.collection = builder.make_collection(self.learner, self.queue, self.epsilon, admit)
        self.loop = builder.make_learner_loop(
            self.learner,
            {"replay": functools.partial(self.learner.train, self._iterator)},
            start_step=self.state.base_steps,
        )

    # -- what the threads share ------------------------------------------------------------
    def collected(self) -> int:
        """Transitions collected over the whole run, resumes included."""
        return self.state.base_transitions + self.collection.transitions()

    def epsilon(self) -> float:
        cfg = self.config
        moves = self.state.base_transitions + self.limiter.inserted
        return linear_epsilon(
            moves, cfg.epsilon_start, cfg.epsilon_end, cfg.epsilon_decay_transitions
        )

    def elapsed(self) -> float:
        return self.state.base_elapsed + (time.monotonic() - self._t_start)

    def progress(self) -> float:
        """Share of the budget spent (the larger of the step and the time budget's)."""
        cfg = self.config
        shares = [0.0]
        if cfg.budget_steps:
            shares.append(self.loop.steps / cfg.budget_steps)
        if cfg.budget_minutes:
            shares.append(self.elapsed() / (60.0 * cfg.budget_minutes))
        return min(1.0, max(shares))

    def budget_reached(self) -> bool:
        return self.progress() >= 1.0

    # -- workers ---------------------------------------------------------------------------
    def _learner_thread(self) -> None:
        cfg = self.config
        last = {"checkpoint": time.monotonic(), "kept": time.monotonic()}

        def after_call() -> None:  # between calls: no train step runs now
            now = time.monotonic()
            if cfg.lr_final != 1.0:
                self.learner.anneal(self.progress())
            if self.budget_reached():
                self.stop.set()
            elif now - last["checkpoint"] >= cfg.checkpoint_every_sec:
                self.save()
                last["checkpoint"] = now
            if cfg.keep_agent_every_sec and now - last["kept"] >= cfg.keep_agent_every_sec:
                self.state.keep_agent(self.collected(), self.elapsed())
                last["kept"] = now

        self.loop.run(self.stop, after_call)

    def _evaluator_thread(self) -> None:
        """Starts the ladder on the newest snapshot every `eval_every_sec`.

        With `eval_average_agents` N, on the mean of the last N kept agents instead,
        once per newly kept agent. One evaluation at a time, in a low-priority child
        process; its results are taken when it ends.
        """
        cfg, ladder = self.config, Ladder(self.config, self.game, self.run_dir)
        started, rated = -float("inf"), None
        try:
            while not self.stop.wait(0.5):
                result = ladder.poll()
                if result is not None:
                    self._eval_metrics = result
                if ladder.busy or time.monotonic() - started < cfg.eval_every_sec:
                    continue
                if cfg.eval_average_agents:
                    kept = self.state.kept_agent_files()[-cfg.eval_average_agents :]
                    if not kept or kept[-1] == rated:
                        continue  # wait for the next kept agent
                    weights, info = averaged_weights(kept)
                    version, rated = int(info["train_step"]), kept[-1]
                else:
                    snap = self.learner.snapshots.get()
                    weights, version = snap.weights, snap.version
                    info = {"train_step": snap.version, "elapsed_sec": self.elapsed()}
                ladder.start(version, weights, info)
                started = time.monotonic()
        finally:
            ladder.close()

    # -- saving ----------------------------------------------------------------------------
    def save(self, keep: bool = False) -> Path:
        """Checkpoint and exported agent (and a kept copy); call where no train step runs."""
        if keep and self.config.keep_agent_every_sec:
            self.state.keep_agent(self.collected(), self.elapsed())
        return self.state.save(
            transitions=self.collected(),
            games=self.state.base_games + self.collection.games(),
            elapsed_sec=self.elapsed(),
        )

    # -- metrics ---------------------------------------------------------------------------
    def metrics(self, last: dict[str, Any] | None = None) -> dict[str, Any]:
        """One flat dict of every figure; rates over the time since `last`."""
        now = time.monotonic()
        loop = self.loop
        train = {k: float(v) for k, v in loop.metrics.items()}
        busy, wait = sum(loop.busy_sec.values()), sum(loop.wait_sec.values())
        steps = loop.steps
        m: dict[str, Any] = {
            "time": now,
            "elapsed_sec": self.elapsed(),
            "train_steps": steps,
            "transitions": self.collected(),
            "games": self.state.base_games + self.collection.games(),
            "replay_size": self.ring.size,
            "queue_depth": self.queue.qsize(),
            "epsilon": self.epsilon(),
            "learning_rate": float(self.learner.optimizer.learning_rate.numpy()),
            # Samples trained per transition collected after the warm-up.
            "replay_ratio_measured": self.limiter.sampled
            / max(1, self.limiter.inserted - self.limiter.warmup),
            "policy_lag": steps - self.collection.mean_version(),
            "learner_busy_sec": busy,
            "learner_wait_sec": wait,
            **self.collection.metrics(),
            **train,
            **self._eval_metrics,
        }
        if last is not None:
            dt = max(1e-9, now - last["time"])
            m["transitions_per_sec"] = (m["transitions"] - last["transitions"]) / dt
            m["train_steps_per_sec"] = (steps - last["train_steps"]) / dt
            m["learner_duty"] = (busy - last["learner_busy_sec"]) / dt
            m["data_wait_share"] = (wait - last["learner_wait_sec"]) / dt
        return m

    # -- the run ---------------------------------------------------------------------------
    def run(
        self, loggers: Sequence[Logger] = (), say: Callable[[str], None] | None = None
    ) -> TrainResult:
        """Trains until the budget is spent, Ctrl-C, or an error in any thread.

        Args:
          loggers: where metrics go besides the run directory's TensorBoard and JSON
            lines (say, the terminal progress).
          say: prints one line of news for people (default: nothing).

        Returns:
          The run directory and the final metrics; `interrupted` after Ctrl-C.

        Raises:
          KeyboardInterrupt is not raised: it becomes `interrupted=True` after the
          final checkpoint. The first exception of any thread is re-raised here.
        """
        if not self.built:
            self.build()
        say = say or (lambda text: None)
        try:
            return self._run(loggers, say)
        finally:
            self.close()

    def close(self) -> None:
        """Releases the run directory and the actor processes.

        `run` does this itself; call it after a `build` that is not followed by `run`.
        """
        if self.built:
            self.collection.close()
            self._end_input_pipeline()
            self.lock.release()

    def _end_input_pipeline(self) -> None:
        """Runs the feed's generator to its end, here on the main thread.

        With the stop set, the generator returns at its next call, so this takes at
        most the elements already prefetched. `from_generator` then runs its Python
        finalizer now, while the interpreter runs, instead of when the iterator is
        destroyed, which for a run left to the interpreter's exit is during
        finalization, when TensorFlow's threads can no longer call Python.
        """
        self.stop.set()
        try:
            for _ in self._iterator:
                pass
        except Exception:  # the pipeline failed: its error was already raised, or is moot
            pass

    def _run(self, extra: Sequence[Logger], say: Callable[[str], None]) -> TrainResult:
        cfg = self.config
        loggers = [
            TensorBoardLogger(self.run_dir / "tb"),
            JsonLinesLogger(self.run_dir / "metrics.jsonl"),
            *extra,
        ]
        say(f"{'resuming' if self.resume_dir else 'training'} {self.game.title} in {self.run_dir}")
        say(self.learner.precision.note)
        self._t_start = time.monotonic()
        targets = [*self.collection.targets(self.stop), ("learner", self._learner_thread)]
        if cfg.eval_games > 0 and cfg.eval_ladder.strip():
            targets.append(("evaluator", self._evaluator_thread))
        interrupted = False
        last = self.metrics()
        threads = start_workers(self.coord, targets)
        try:
            try:
                while not self.coord.should_stop():
                    self.coord.wait_for_stop(min(0.25, cfg.log_every_sec))
                    if self.budget_reached():
                        self.stop.set()
                    for event in self.collection.events():
                        say(event)
                    if time.monotonic() - last["time"] >= cfg.log_every_sec:
                        last = self._write(loggers, self.metrics(last))
            except KeyboardInterrupt:
                interrupted = True
                self.stop.set()
                say("interrupted: stopping threads and saving a checkpoint")
            except BaseException as e:
                self.coord.request_stop(e)
            # Re-raises the first exception of any thread (or of the loop above).
            self.coord.join(threads, stop_grace_period_secs=30)
            self.save(keep=True)
            final = self.metrics(last)
            final["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            final["replay_mb"] = self.ring.nbytes / 2**20
            self._write(loggers[:2], final)
        finally:
            for logger in loggers:
                logger.close()
        return TrainResult(self.run_dir, final, interrupted)

    @staticmethod
    def _write(loggers: Sequence[Logger], m: dict[str, Any]) -> dict[str, Any]:
        for logger in loggers:
            logger.write(m)
        return m
