"""The composition root: builds every part in order, runs training, saves the run.

Threads: N agent threads (`Actor.run`), one learner thread (the train loop, the only
writer of weights), one evaluator thread (greedy play against a random player), and
tf.data's own thread running the replay generator. The main thread builds and traces
everything first, then only watches: it shows progress, enforces the time budget,
turns Ctrl-C into a stop, and saves the final checkpoint after every thread ended.
"""

from __future__ import annotations

import functools
import json
import queue
import resource
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import tensorflow as tf

from boardq.actor import Actor
from boardq.agent import export_agent
from boardq.checkpointing import (
    AGENT_FILE,
    CHECKPOINT_DIR,
    CONFIG_FILE,
    atomic_write_text,
    new_run_dir,
)
from boardq.config import TrainConfig
from boardq.coordination import CoordStop, start_workers
from boardq.dataset import ReplayFeed, make_dataset
from boardq.errors import RunDirError
from boardq.learner import Learner, configure_threads, publish_due
from boardq.policies import linear_epsilon, masked_argmax
from boardq.progress import Progress
from boardq.replay import RateLimiter, ReplayRing
from games.base import Game

__all__ = ["SnapshotPlayer", "TrainResult", "Trainer"]


@dataclass
class TrainResult:
    """What a finished (or interrupted) run leaves behind."""

    run_dir: Path
    metrics: dict[str, Any]
    interrupted: bool


class SnapshotPlayer:
    """A greedy player over the newest published snapshot (read-only)."""

    def __init__(self, learner: Learner):
        self._q = learner.q_function
        self._box = learner.snapshots

    def act(self, observation: dict) -> int:
        snap = self._box.get()
        q = self._q(np.asarray(observation["observation"], np.int8)[None], snap.weights)
        return int(masked_argmax(q.numpy()[0], observation["action_mask"]))


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
        self.resume_dir = Path(resume_dir) if resume_dir else None
        self.run_dir: Path | None = None
        self._lock = threading.Lock()
        self._train_metrics: dict[str, tf.Tensor] = {}
        self._eval_metrics: dict[str, float] = {}
        self._learner_busy_sec = 0.0
        self._learner_wait_sec = 0.0

    # -- building --------------------------------------------------------------
    def _build(self) -> None:
        cfg, game = self.config, self.game
        configure_threads(cfg)
        self.learner = Learner(cfg, game.obs_shape, game.num_actions)
        self._transitions_var = tf.Variable(0, dtype=tf.int64, trainable=False)
        self._games_var = tf.Variable(0, dtype=tf.int64, trainable=False)
        self._elapsed_var = tf.Variable(0.0, dtype=tf.float64, trainable=False)
        self.checkpoint = tf.train.Checkpoint(
            **self.learner.checkpoint_objects(),
            transitions=self._transitions_var,
            games=self._games_var,
            elapsed_sec=self._elapsed_var,
        )
        if self.resume_dir is not None:
            self.run_dir = self.resume_dir
        else:
            self.run_dir = new_run_dir(cfg.out_dir, game.name)
            atomic_write_text(self.run_dir / CONFIG_FILE, cfg.to_json())
        self.manager = tf.train.CheckpointManager(
            self.checkpoint, str(self.run_dir / CHECKPOINT_DIR), max_to_keep=3
        )
        if self.resume_dir is not None:
            self._restore()
        # Counted in Python: reading the step variable every step would wait for the
        # device to finish each step before the next is dispatched.
        self.updates = int(self.learner.step.numpy())
        self.base_transitions = int(self._transitions_var.numpy())
        self.base_games = int(self._games_var.numpy())
        self.base_elapsed = float(self._elapsed_var.numpy())
        self.learner.publish()
        self.learner.warm_up()

        self.queue: queue.Queue = queue.Queue(maxsize=cfg.queue_chunks)
        self.ring = ReplayRing(cfg.replay_capacity, game.obs_shape, game.num_actions)
        self.limiter = RateLimiter(cfg.replay_ratio, cfg.warmup_transitions, cfg.replay_tolerance())
        self.coord = tf.train.Coordinator()
        self.stop = CoordStop(self.coord)
        symmetries = game.symmetries if cfg.augment_symmetries else ()
        self.feed = ReplayFeed(
            self.queue,
            self.ring,
            self.limiter,
            cfg.batch_size,
            self.stop,
            cfg.seed,
            symmetries,
            batches_per_element=cfg.steps_per_call,
        )
        self.dataset = make_dataset(self.feed, self.learner.spec)
        self.actors = [
            Actor(
                envs=[game.make_env() for _ in range(cfg.games_per_thread)],
                act_fn=self._act,
                out_queue=self.queue,
                epsilon_fn=self.epsilon,
                n_step=cfg.n_step,
                discount=cfg.discount,
                seed=cfg.seed * 1000 + 17 * (i + 1),
                admit=self._admit,
                name=f"actor-{i}",
            )
            for i in range(cfg.actor_threads)
        ]

    def _restore(self) -> None:
        latest = self.manager.latest_checkpoint
        if latest is None:
            raise RunDirError(f"{self.run_dir} has no checkpoint to resume from")
        try:
            self.checkpoint.restore(latest).assert_existing_objects_matched()
        except (ValueError, AssertionError, tf.errors.OpError) as e:
            first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            raise RunDirError(
                f"checkpoint {latest} does not fit this game and network: {first}"
            ) from None

    # -- what the threads share ------------------------------------------------
    def _act(self, obs: np.ndarray) -> tuple[np.ndarray, int]:
        snap = self.learner.snapshots.get()
        q = self.learner.q_function(obs, snap.weights)
        return q.numpy(), snap.version

    def _admit(self, n: int, stop) -> bool:
        return self.limiter.await_insert(n, stop, timeout=0.1)

    def collected(self) -> int:
        """Transitions collected over the whole run, resumes included."""
        return self.base_transitions + sum(a.stats.transitions for a in self.actors)

    def epsilon(self) -> float:
        cfg = self.config
        moves = self.base_transitions + self.limiter.inserted
        return linear_epsilon(
            moves, cfg.epsilon_start, cfg.epsilon_end, cfg.epsilon_decay_transitions
        )

    def elapsed(self) -> float:
        return self.base_elapsed + (time.monotonic() - self._t_start)

    def budget_reached(self) -> bool:
        cfg = self.config
        if cfg.budget_steps and self.updates >= cfg.budget_steps:
            return True
        return bool(cfg.budget_minutes) and self.elapsed() >= 60.0 * cfg.budget_minutes

    # -- workers -----------------------------------------------------------------
    def _learner_loop(self) -> None:
        cfg = self.config
        learner = self.learner
        iterator = iter(self.dataset)
        last_ckpt = time.monotonic()
        try:
            while not self.stop.is_set():
                if self.budget_reached():
                    self.coord.request_stop()
                    break
                steps = cfg.steps_per_call
                if cfg.budget_steps:
                    steps = min(steps, cfg.budget_steps - self.updates)
                t0 = time.perf_counter()
                try:
                    metrics = learner.train(iterator, steps)
                except tf.errors.OutOfRangeError:  # the pipeline ended (shutdown)
                    break
                elapsed = time.perf_counter() - t0
                # Seconds the graph waited for batches: read now, it is on the host.
                wait = float(metrics.pop("data_wait_sec"))
                self.updates += steps
                if publish_due(self.updates - steps, self.updates, cfg.publish_every_steps):
                    learner.publish()
                with self._lock:
                    self._learner_wait_sec += wait
                    self._learner_busy_sec += elapsed - wait
                    self._train_metrics = metrics
                if time.monotonic() - last_ckpt >= cfg.checkpoint_every_sec:
                    self.save()
                    last_ckpt = time.monotonic()
        finally:
            del iterator

    def _evaluator_loop(self) -> None:
        from boardq.evaluation import RandomPlayer, evaluate

        cfg = self.config
        player = SnapshotPlayer(self.learner)
        k = 0
        while not self.stop.wait(cfg.eval_every_sec):
            version = self.learner.snapshots.version
            result = evaluate(
                player,
                RandomPlayer(seed=cfg.seed + k),
                self.game.make_env,
                games_per_seat=cfg.eval_games,
                seed=cfg.seed + k,
                should_stop=self.stop.is_set,
            )
            k += 1
            if not result:
                break
            with self._lock:
                self._eval_metrics = {f"eval/random/{key}": v for key, v in result.items()}
                self._eval_metrics["eval/version"] = version

    # -- saving ------------------------------------------------------------------
    def save(self) -> Path:
        """Checkpoint and exported agent; call only where no train step runs."""
        self._transitions_var.assign(self.collected())
        self._games_var.assign(self.base_games + sum(a.stats.games for a in self.actors))
        self._elapsed_var.assign(self.elapsed())
        step = int(self.learner.step.numpy())
        path = self.manager.save(checkpoint_number=step)
        export_agent(
            self.run_dir / AGENT_FILE,
            self.game.name,
            self.config.network,
            self.game.obs_shape,
            self.game.num_actions,
            self.learner.online.get_weights(),
            info={"train_step": step, "transitions": self.collected(), "saved": time.time()},
        )
        return Path(path)

    # -- metrics -------------------------------------------------------------------
    def metrics(self, last: dict[str, Any] | None = None) -> dict[str, Any]:
        """One flat dict of every figure; rates over the time since `last`."""
        now = time.monotonic()
        with self._lock:
            train = {k: float(v.numpy()) for k, v in self._train_metrics.items()}
            evals = dict(self._eval_metrics)
            busy, wait = self._learner_busy_sec, self._learner_wait_sec
        stats = [a.stats for a in self.actors]
        updates = self.updates
        m: dict[str, Any] = {
            "time": now,
            "elapsed_sec": self.elapsed(),
            "updates": updates,
            "transitions": self.collected(),
            "games": self.base_games + sum(s.games for s in stats),
            "replay_size": self.ring.size,
            "queue_depth": self.queue.qsize(),
            "epsilon": self.epsilon(),
            # Samples trained per transition collected after the warm-up.
            "replay_ratio_measured": self.limiter.sampled
            / max(1, self.limiter.inserted - self.limiter.warmup),
            "policy_lag": float(np.mean([updates - s.version for s in stats])),
            "learner_busy_sec": busy,
            "learner_wait_sec": wait,
            "actor_infer_sec": sum(s.infer_sec for s in stats),
            "actor_step_sec": sum(s.step_sec for s in stats),
            "actor_queue_sec": sum(s.queue_sec for s in stats),
            **train,
            **evals,
        }
        if last is not None:
            dt = max(1e-9, now - last["time"])
            m["transitions_per_sec"] = (m["transitions"] - last["transitions"]) / dt
            m["updates_per_sec"] = (updates - last["updates"]) / dt
            m["learner_duty"] = (busy - last["learner_busy_sec"]) / dt
            m["data_wait_share"] = (wait - last["learner_wait_sec"]) / dt
        return m

    def _log(self, writer, m: dict[str, Any], progress: Progress | None, jsonl) -> None:
        step = m["updates"]
        with writer.as_default(step=step):
            for key, value in m.items():
                if key != "time" and isinstance(value, int | float):
                    tf.summary.scalar(key, value)
        writer.flush()
        jsonl.write(json.dumps({k: v for k, v in m.items() if k != "time"}) + "\n")
        jsonl.flush()
        if progress is not None:
            progress.update(m)

    # -- the run -----------------------------------------------------------------
    def run(self, progress: Progress | None = None) -> TrainResult:
        """Trains until the budget is spent, Ctrl-C, or an error in any thread.

        Returns:
          The run directory and the final metrics; `interrupted` after Ctrl-C.

        Raises:
          KeyboardInterrupt is not raised: it becomes `interrupted=True` after the
          final checkpoint. The first exception of any thread is re-raised here.
        """
        self._build()
        cfg = self.config
        interrupted = False
        writer = tf.summary.create_file_writer(str(self.run_dir / "tb"))
        jsonl = open(self.run_dir / "metrics.jsonl", "a", encoding="utf-8")  # noqa: SIM115
        if progress is not None:
            verb = "resuming" if self.resume_dir else "training"
            progress.message(f"{verb} {self.game.title} in {self.run_dir}")
        self._t_start = time.monotonic()
        targets = [(a.name, functools.partial(a.run, self.stop)) for a in self.actors]
        targets.append(("learner", self._learner_loop))
        if cfg.eval_games > 0:
            targets.append(("evaluator", self._evaluator_loop))
        last = self.metrics()
        threads = start_workers(self.coord, targets)
        try:
            try:
                while not self.coord.should_stop():
                    self.coord.wait_for_stop(min(0.25, cfg.log_every_sec))
                    if self.budget_reached():
                        self.coord.request_stop()
                    if time.monotonic() - last["time"] >= cfg.log_every_sec:
                        m = self.metrics(last)
                        self._log(writer, m, progress, jsonl)
                        last = m
            except KeyboardInterrupt:
                interrupted = True
                self.coord.request_stop()
                if progress is not None:
                    progress.message("interrupted: stopping threads and saving a checkpoint")
            except BaseException as e:
                self.coord.request_stop(e)
            # Re-raises the first exception of any thread (or of the loop above).
            self.coord.join(threads, stop_grace_period_secs=30)
            self.save()
            final = self.metrics(last)
            final["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            final["replay_mb"] = self.ring.nbytes / 2**20
            self._log(writer, final, None, jsonl)
        finally:
            jsonl.close()
            writer.close()
        return TrainResult(self.run_dir, final, interrupted)
