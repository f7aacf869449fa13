"""The composition root: builds every part through the `Builder`, runs training, saves.

Threads: actor threads (`Actor.run`; or, with actor processes, one collector thread
per process), one learner thread (`LearnerLoop`, the only writer of weights), one
evaluator thread (starts the evaluation ladder in a low-priority child process, see
`boardq.training.ladder`); what these two run is `boardq.training.workers`. And
tf.data's own thread running the replay generator. The main thread builds and traces
everything first (`build`), then only watches (`boardq.training.watch`): it writes
metrics to the loggers (`boardq.training.run_metrics`), enforces the time budget, turns
Ctrl-C into a stop, and saves the final checkpoint after every thread ended.
"""

from __future__ import annotations

import functools
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import tensorflow as tf

from boardq.config import TrainConfig
from boardq.dqn.builder import Builder
from boardq.dqn.coordination import CoordStop
from boardq.dqn.dataset import run_to_end
from boardq.dqn.ownership import check_ownership
from boardq.dqn.policies import linear_epsilon
from boardq.errors import RunDirError
from boardq.game import Game
from boardq.players.factory import check_symmetric, ladder_specs
from boardq.rundir import CONFIG_FILE, RunLock, atomic_write_text, new_run_dir
from boardq.search.selfplay import make_search_moves
from boardq.training.budget import Budget
from boardq.training.checkpoints import disk_full_error
from boardq.training.cluster import check_address
from boardq.training.ladder import Ladder, check_handicap, check_visits
from boardq.training.loggers import Logger
from boardq.training.remote import make_collection
from boardq.training.resume import Parts, apply, gather
from boardq.training.run_metrics import run_metrics
from boardq.training.run_state import Restored, RunState
from boardq.training.watch import TrainResult, watch

__all__ = ["TrainResult", "Trainer"]


class Trainer:
    """Trains one game from a fresh run directory or resumes one.

    Args:
      config: validated settings (config.game must be game.name).
      game: the game.
      resume_dir: an existing run directory to continue, or None for a new run.
      resume_replay: resume with the replay saved in the checkpoint (False: with an
        empty replay and a fresh warm-up, `--resume-without-replay`).
    """

    def __init__(
        self,
        config: TrainConfig,
        game: Game,
        resume_dir: str | Path | None = None,
        resume_replay: bool = True,
    ):
        self.config = config.validate()
        self.game = game
        if config.game != game.name:
            raise RunDirError(f"the settings are for {config.game!r}, not for {game.name!r}")
        # A player that cannot play this game is refused in one line, before a run
        # directory is made.
        _, self.ladder_notes = ladder_specs(config.eval_ladder, game)
        if config.eval_symmetric:
            check_symmetric(game, "eval_symmetric")
        check_handicap(config, game)
        check_visits(config, game)
        check_ownership(config.ownership_targets, game)
        if config.actor_processes:
            check_address(config.ray_address)
        self.resume_dir = Path(resume_dir) if resume_dir else None
        self.resume_replay = resume_replay
        self.notes: list[str] = []  # lines for people about the resume
        self.run_dir: Path | None = None
        self.built = False
        self.eval_metrics: dict[str, float] = {}  # the ladder's last figures

    # -- building --------------------------------------------------------------------------
    def build(self) -> None:
        """Builds every part in order on this (the main) thread; restores a resumed run.

        A new run whose build fails removes the directory it made.

        Raises:
          RunDirError: the run directory is in use, has no checkpoint, or its
            checkpoint does not fit this game and network, or its replay file cannot
            be used (unless `resume_replay` is False).
        """
        self.run_dir = self.resume_dir or new_run_dir(self.config.out_dir, self.game.dir_name)
        self.lock = RunLock(self.run_dir)  # refuses a second training on this directory
        try:
            self._build()
        except BaseException:
            if hasattr(self, "collection"):
                self.collection.close()
            self.lock.release()
            if self.resume_dir is None:  # a new run that never started leaves nothing
                shutil.rmtree(self.run_dir, ignore_errors=True)
            raise
        self.built = True

    def _build(self) -> None:
        cfg, builder = self.config, Builder(self.config, self.game, make_search_moves)
        self.builder = builder
        self.learner = builder.make_learner()
        self.coord = tf.train.Coordinator()
        # A save that fails in the writer thread stops the run as a thread's error does.
        self.state = RunState(self.learner, self.game, cfg, self.run_dir, self.coord.request_stop)
        restored = Restored(None, False)
        if self.resume_dir is not None:
            restored = self.state.restore(self.resume_replay)
        try:
            self._build_parts(builder, restored)
        finally:
            if restored.reader is not None:
                restored.reader.close()
        # The run's settings; a resume's, with what it changed, once its checkpoint fits.
        atomic_write_text(self.run_dir / CONFIG_FILE, cfg.to_json())
        self.learner.publish()  # the first snapshot: restored weights when resuming
        self.budget = Budget(cfg.budget_steps, cfg.budget_minutes, self.state.base_elapsed)

    def _build_parts(self, builder: Builder, restored: Restored) -> None:
        cfg = self.config
        self.queue = builder.make_queue()
        self.ring, self.limiter = builder.make_replay()
        self.stop = CoordStop(self.coord)
        self.feed = builder.make_feed(self.queue, self.ring, self.limiter, self.stop)
        self.iterator = builder.make_dataset_iterator(self.feed, self.learner)
        admit = functools.partial(self.limiter.await_insert, timeout=0.1)
        self.collection = make_collection(
            builder, self.learner, self.queue, self.epsilon, admit, self.limiter.refund
        )
        self.ladder = Ladder(cfg, self.game, self.run_dir)
        self.parts = Parts(
            ring=self.ring,
            limiter=self.limiter,
            feed=self.feed,
            actors=list(getattr(self.collection, "actors", [])),
            pool=self.learner.pool,
            ladder=self.ladder,
        )
        meta = apply(restored, self.parts, cfg)  # the replay, generators, pool, ladder
        self._explored_base = int(meta.get("explored", self.state.base_transitions))
        if restored.note:
            self.notes.append(restored.note)
        if restored.replay:
            left = self.limiter.warmup  # the warm-up less what the replay holds
            then = f"{left:,} more before training" if left else "no warm-up"
            self.notes.append(f"replay restored: {self.ring.size:,} transitions, {then}")
        self.loop = builder.make_learner_loop(
            self.learner,
            {"replay": functools.partial(self.learner.train, self.iterator)},
            start_step=self.state.base_steps,
        )

    # -- what the threads share ------------------------------------------------------------
    def collected(self) -> int:
        """Transitions collected over the whole run, resumes included."""
        return self.state.base_transitions + self.collection.transitions()

    def explored(self) -> int:
        """Transitions the exploration schedule has counted over the whole run."""
        return self._explored_base + self.limiter.inserted

    def epsilon(self) -> float:
        cfg = self.config
        moves = self.explored()
        return linear_epsilon(
            moves, cfg.epsilon_start, cfg.epsilon_end, cfg.epsilon_decay_transitions
        )

    def elapsed(self) -> float:
        return self.budget.elapsed()

    def progress(self) -> float:
        """Share of the budget spent (the larger of the step and the time budget's)."""
        return self.budget.progress(self.loop.steps)

    # -- saving ----------------------------------------------------------------------------
    def save(self, keep: bool = False, wait: bool = True) -> Path | None:
        """Checkpoint and exported agent (and a kept copy); call where no train step runs.

        Args:
          keep: keep a copy of the agent too (`keep_agent_every_sec`).
          wait: until the checkpoint, replay included, is committed; else the replay
            is written in the background, and None is returned (nothing saved) while
            the previous save is still being written.
        """
        if not wait and self.state.saving:
            return None
        if keep and self.config.keep_agent_every_sec:
            self.state.keep_agent(self.collected(), self.elapsed())
        return self.state.save(
            transitions=self.collected(),
            games=self.state.base_games + self.collection.games(),
            elapsed_sec=self.elapsed(),
            extras=gather(self.parts, self.explored(), self.config.save_replay),
            wait=wait,
        )

    # -- metrics --------------------------------------------------------------------------
    def metrics(self, last: dict[str, Any] | None = None) -> dict[str, Any]:
        """One flat dict of every figure; rates since `last` (`run_metrics`)."""
        return run_metrics(self, last)

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
          RunDirError: the disk is full (or the quota spent): the run stops, and its
            last committed checkpoint stands.
          KeyboardInterrupt is not raised: it becomes `interrupted=True` after the
          final checkpoint. The first exception of any thread is re-raised here.
        """
        if not self.built:
            self.build()
        say = say or (lambda text: None)
        try:
            return watch(self, loggers, say)
        except (OSError, tf.errors.OpError) as e:
            full = disk_full_error(e, self.run_dir, self.state.store.latest())
            if full is None:
                raise
            raise full from None
        finally:
            self.close()

    def close(self) -> None:
        """Releases the run directory and the actor processes.

        `run` does this itself; call it after a `build` that is not followed by `run`.
        """
        if self.built:
            self.collection.close()
            self.stop.set()
            run_to_end(self.iterator)
            self.state.close()
            self.lock.release()
