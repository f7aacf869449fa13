"""What a run keeps across restarts.

The learner's checkpoint, the run's counters, the replay file beside each checkpoint
(the replay ring and what `boardq.training.resume` gathers: random generators, the
opponent pool, the ladder's count; the file itself in `boardq.training.checkpoint_replay`)
and the exported agent (TensorFlow; the run directory's layout is in `boardq.rundir`,
how a checkpoint is committed in `boardq.training.checkpoints`).
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tensorflow as tf

from boardq.config import TrainConfig
from boardq.dqn.learner import Learner
from boardq.dqn.replay_file import ReplayFileError, ReplayFileReader
from boardq.errors import RunDirError
from boardq.game import Game
from boardq.players.agentfile import SYMMETRIC_KEY, export_agent
from boardq.pruning import INFO_KEY
from boardq.rundir import AGENT_FILE, CHECKPOINT_DIR, KEPT_AGENT_GLOB, KEPT_AGENTS_DIR
from boardq.training.checkpoint_replay import (
    WITHOUT_REPLAY_HINT,
    Extras,
    open_checked,
    replay_header,
    write_replay,
)
from boardq.training.checkpoints import CheckpointStore, CheckpointWriteError, SaveWriter

__all__ = ["Restored", "RunState"]

_TOKEN = "replay_token"


@dataclass
class Restored:
    """What a resume found beside the checkpoint.

    Attributes:
      reader: the checkpoint's replay file, checked (its token, game and shapes), or None.
      replay: whether the ring is to be filled from it.
      note: a line for people about what was not restored, or None.
    """

    reader: ReplayFileReader | None
    replay: bool
    note: str | None = None


class RunState:
    """Checkpoints of a learner and the run's counters (transitions, games, seconds).

    After `restore` (or for a new run, at once) the `base_*` attributes hold what the
    run had done before this process started.

    Args:
      learner: the learner whose networks, optimizer and step are saved.
      game: the game (for the exported agent).
      config: the run's settings (for the exported agent's network).
      run_dir: the run directory.
    """

    def __init__(
        self,
        learner: Learner,
        game: Game,
        config: TrainConfig,
        run_dir: Path,
        on_error: Callable[[BaseException], None] | None = None,
    ):
        self._learner = learner
        self._game = game
        self._config = config
        self.run_dir = Path(run_dir)
        self._transitions = tf.Variable(0, dtype=tf.int64, trainable=False)
        self._games = tf.Variable(0, dtype=tf.int64, trainable=False)
        self._elapsed = tf.Variable(0.0, dtype=tf.float64, trainable=False)
        self._token = tf.Variable("", dtype=tf.string, trainable=False)
        self._objects = {
            **learner.checkpoint_objects(),
            "transitions": self._transitions,
            "games": self._games,
            "elapsed_sec": self._elapsed,
        }
        self._checkpoint = tf.train.Checkpoint(**self._objects, **{_TOKEN: self._token})
        self.store = CheckpointStore(self.run_dir / CHECKPOINT_DIR, self._checkpoint)
        self.writer = SaveWriter(on_error)
        self.last_save: dict[str, float] = {}
        self._read_bases()

    def _read_bases(self) -> None:
        self.base_steps = int(self._learner.step.numpy())
        self.base_transitions = int(self._transitions.numpy())
        self.base_games = int(self._games.numpy())
        self.base_elapsed = float(self._elapsed.numpy())

    def restore(self, replay: bool = True) -> Restored:
        """Restores the newest checkpoint and checks its replay file.

        Args:
          replay: whether the replay is wanted (False: `--resume-without-replay`; a
            replay file that cannot be used is then passed over with a note).

        Raises:
          RunDirError: there is no checkpoint, or it does not fit this game and
            network; or (with `replay`) its replay file is missing, cut short, of
            another checkpoint or game (`ReplayFileError`).
        """
        latest = self.store.latest()
        if latest is None:
            raise RunDirError(f"{self.run_dir} has no checkpoint to resume from")
        try:
            names = {name.split("/")[0] for name, _ in tf.train.list_variables(str(latest))}
            heads = self._learner.heads
            if heads is not None and not set(heads.checkpoint_objects()) <= names:
                raise RunDirError(
                    f"checkpoint {latest} was saved without ownership targets: resume with "
                    "--ownership-targets false"
                )
            # A checkpoint of an earlier boardq has no token (and no replay file).
            has_token = _TOKEN in names
            objects = {**self._objects, **({_TOKEN: self._token} if has_token else {})}
            tf.train.Checkpoint(**objects).restore(str(latest)).assert_existing_objects_matched()
        except (ValueError, AssertionError, tf.errors.OpError) as e:
            first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            raise RunDirError(
                f"checkpoint {latest} does not fit this game and network: {first}"
            ) from None
        self._read_bases()
        try:
            reader = self._open_replay(latest, has_token)
        except ReplayFileError as e:
            if replay:
                raise ReplayFileError(f"{e}; {WITHOUT_REPLAY_HINT}") from None
            return Restored(None, False, f"{e}: going on with an empty replay")
        if not reader.header.get("replay"):
            note = f"checkpoint {latest.name} holds no replay (--no-save-replay)"
            return Restored(reader, False, f"{note}: collecting a fresh warm-up")
        if not replay:
            return Restored(reader, False, "--resume-without-replay: going on with an empty replay")
        return Restored(reader, True)

    def _open_replay(self, prefix: Path, has_token: bool) -> ReplayFileReader:
        """The checkpoint's replay file, checked against the checkpoint and the game."""
        path = self.store.replay_path(prefix)
        if not has_token:
            raise ReplayFileError(
                f"checkpoint {prefix.name} has no replay file (written by an earlier boardq)"
            )
        return open_checked(path, self._game, self._token.numpy().decode())

    @property
    def saving(self) -> bool:
        """Whether a save is still being written in the background."""
        return self.writer.busy

    def save(
        self,
        transitions: int,
        games: int,
        elapsed_sec: float,
        extras: Extras | None = None,
        wait: bool = True,
    ) -> Path:
        """Writes a checkpoint and the exported agent; call where no train step runs.

        TensorFlow's files and the agent are written here; the replay file (with
        `extras`) and the commit in the writer thread (`boardq.training.checkpoints`).

        Args:
          transitions: transitions collected over the whole run.
          games: games played over the whole run.
          elapsed_sec: training time over the whole run.
          extras: what the replay file holds besides its header.
          wait: wait until the checkpoint is committed (else return at once; an error
            goes to `on_error`).

        Returns:
          The checkpoint's prefix (committed once the writer is done).

        Raises:
          CheckpointWriteError: a file could not be written; the last committed
            checkpoint stands.
        """
        self.writer.wait()
        t0 = time.perf_counter()
        extras = extras or Extras()
        self._transitions.assign(transitions)
        self._games.assign(games)
        self._elapsed.assign(elapsed_sec)
        step = int(self._learner.step.numpy())
        token = f"{step}-{secrets.token_hex(8)}"
        self._token.assign(token)
        try:
            prefix = self.store.write_networks(step)
            self.export(self.run_dir / AGENT_FILE, transitions, elapsed_sec)
        except BaseException as e:
            if extras.ring is not None:
                extras.ring.close()  # the writer thread, which closes it, never gets it
            if isinstance(e, OSError):
                raise CheckpointWriteError(self.store.failure(f"ckpt-{step}", e)) from None
            raise
        header = replay_header(token, self._game, step, extras)

        pause = time.perf_counter() - t0  # what the calling (learner) thread waits

        def job(hold: Callable[[], None]) -> None:
            self._write_replay(prefix, header, extras, hold)
            self.last_save["checkpoint_pause_sec"] = pause

        self.writer.run(job, wait)
        return prefix

    def _write_replay(
        self, prefix: Path, header: dict[str, Any], extras: Extras, hold: Callable[[], None]
    ) -> None:
        """Phase 2 (the writer thread): the replay file, then the commit."""
        path = self.store.replay_path(prefix)
        try:
            figures = write_replay(path, header, extras, hold)
            self.store.commit(prefix)
        except OSError as e:
            raise CheckpointWriteError(self.store.failure(prefix.name, e)) from None
        self.last_save = figures

    def close(self) -> None:
        """Waits for a save still being written (its error went to `on_error`)."""
        self.writer.wait()

    def keep_agent(self, transitions: int, elapsed_sec: float) -> Path:
        """Keeps a copy of the agent as it is now: RUN_DIR/agents/agent-<train step>.npz.

        The kept agents show how strength grew over training (`boardq league --run`).
        """
        step = int(self._learner.step.numpy())
        folder = self.run_dir / KEPT_AGENTS_DIR
        folder.mkdir(exist_ok=True)
        return self.export(folder / f"agent-{step:09d}.npz", transitions, elapsed_sec)

    def kept_agent_files(self) -> list[Path]:
        """The agents kept so far (`keep_agent`), oldest first."""
        # Train steps are zero-padded in the names, so names sort by step.
        return sorted((self.run_dir / KEPT_AGENTS_DIR).glob(KEPT_AGENT_GLOB))

    def export(self, path: Path, transitions: int, elapsed_sec: float) -> Path:
        """Writes the online network as an agent file; call where no train step runs."""
        step = int(self._learner.step.numpy())
        info = {
            "train_step": step,
            "transitions": transitions,
            "elapsed_sec": elapsed_sec,
            "saved": time.time(),
            "discount": self._config.discount,
            INFO_KEY: self._config.prune_moves,
            SYMMETRIC_KEY: self._config.eval_symmetric,
        }
        return export_agent(
            path,
            self._game.name,
            self._config.network,
            self._game.obs_shape,
            self._game.num_actions,
            self._learner.online.get_weights(),
            info=info,
        )
