"""What a run keeps across restarts.

The learner's checkpoint, the run's counters and the exported agent (TensorFlow; the
run directory's layout is in `boardq.rundir`).
"""

from __future__ import annotations

import time
from pathlib import Path

import tensorflow as tf

from boardq.config import TrainConfig
from boardq.dqn.learner import Learner
from boardq.errors import RunDirError
from boardq.game import Game
from boardq.players.agentfile import export_agent
from boardq.rundir import AGENT_FILE, CHECKPOINT_DIR, KEPT_AGENT_GLOB, KEPT_AGENTS_DIR

__all__ = ["RunState"]


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

    def __init__(self, learner: Learner, game: Game, config: TrainConfig, run_dir: Path):
        self._learner = learner
        self._game = game
        self._config = config
        self.run_dir = Path(run_dir)
        self._transitions = tf.Variable(0, dtype=tf.int64, trainable=False)
        self._games = tf.Variable(0, dtype=tf.int64, trainable=False)
        self._elapsed = tf.Variable(0.0, dtype=tf.float64, trainable=False)
        self._checkpoint = tf.train.Checkpoint(
            **learner.checkpoint_objects(),
            transitions=self._transitions,
            games=self._games,
            elapsed_sec=self._elapsed,
        )
        self._manager = tf.train.CheckpointManager(
            self._checkpoint, str(self.run_dir / CHECKPOINT_DIR), max_to_keep=3
        )
        self._read_bases()

    def _read_bases(self) -> None:
        self.base_steps = int(self._learner.step.numpy())
        self.base_transitions = int(self._transitions.numpy())
        self.base_games = int(self._games.numpy())
        self.base_elapsed = float(self._elapsed.numpy())

    def restore(self) -> None:
        """Restores the newest checkpoint.

        Raises:
          RunDirError: there is none, or it does not fit this game and network.
        """
        latest = self._manager.latest_checkpoint
        if latest is None:
            raise RunDirError(f"{self.run_dir} has no checkpoint to resume from")
        try:
            self._checkpoint.restore(latest).assert_existing_objects_matched()
        except (ValueError, AssertionError, tf.errors.OpError) as e:
            first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            raise RunDirError(
                f"checkpoint {latest} does not fit this game and network: {first}"
            ) from None
        self._read_bases()

    def save(self, transitions: int, games: int, elapsed_sec: float) -> Path:
        """Writes a checkpoint and the exported agent; call where no train step runs."""
        self._transitions.assign(transitions)
        self._games.assign(games)
        self._elapsed.assign(elapsed_sec)
        step = int(self._learner.step.numpy())
        path = self._manager.save(checkpoint_number=step)
        self.export(self.run_dir / AGENT_FILE, transitions, elapsed_sec)
        return Path(path)

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
