"""Checkpoints that are whole or absent: the networks' files and the replay file, one commit.

A checkpoint is TensorFlow's files (`ckpt-N.index`, `ckpt-N.data-*`: the networks,
Adam, the counters and a token) and the replay file `ckpt-N.replay` (the replay, the
random generators, the opponent pool; `boardq.training.run_state`), which holds the
same token. Saving has two phases, so the learner never waits for the replay:

1. on the learner thread, between train calls: TensorFlow's files (a few MB), and a
   snapshot of the ring that copies nothing yet (`ReplayRing.snapshot`);
2. on the writer thread (`SaveWriter`): the replay file, compressed part by part and
   renamed into place when whole; then the commit: TensorFlow's state file
   `checkpoint`, written atomically, names ckpt-N the newest; then the files of
   checkpoints older than the last `keep` go.

Until the commit the previous checkpoint is the newest, so a crash (kill -9, a full
disk) at any moment leaves the last committed checkpoint and its own replay file;
`tf.train.latest_checkpoint` reads the same state file. Files of a checkpoint that
was never committed are removed at the next commit. Resuming checks that the replay
file holds the checkpoint's token, so a network is never paired with another
checkpoint's replay.

For the tests of that crash: with `BOARDQ_HOLD_SAVE=N,PATH` in the environment, the
writer, in the N-th save of the process, writes PATH and waits an hour after the
first part of its replay file, so a test can kill the process in the middle of the
write.
"""

from __future__ import annotations

import errno
import os
import shutil
import threading
import time
from collections.abc import Callable
from pathlib import Path

import tensorflow as tf

from boardq.errors import RunDirError
from boardq.rundir import atomic_write_text

__all__ = [
    "HOLD_SAVE_ENV",
    "CheckpointStore",
    "CheckpointWriteError",
    "SaveWriter",
    "disk_full_error",
]

HOLD_SAVE_ENV = "BOARDQ_HOLD_SAVE"
REPLAY_SUFFIX = ".replay"
STATE_FILE = "checkpoint"  # TensorFlow's name: tf.train.latest_checkpoint reads it
_DISK_FULL = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)


class CheckpointWriteError(RunDirError):
    """A checkpoint could not be written (a full disk, say); the previous one stands."""


def disk_full_error(error: BaseException, run_dir: Path, latest: Path | None) -> RunDirError | None:
    """One line for a write of the run that found the disk full (None: another error).

    Args:
      error: what a write raised (a file's OSError, or TensorBoard's writer's error).
      run_dir: the run directory.
      latest: the newest committed checkpoint, or None.
    """
    if isinstance(error, OSError) and error.errno in _DISK_FULL:
        reason = error.strerror
    elif isinstance(error, tf.errors.OpError) and "No space left on device" in str(error):
        reason = "No space left on device"
    else:
        return None
    kept = f"its last good checkpoint, {latest.name}, stands" if latest else "it kept none"
    return RunDirError(f"cannot write to {run_dir}: {reason}; the run stopped and {kept}")


class CheckpointStore:
    """The checkpoints of one run directory.

    Args:
      directory: RUN_DIR/checkpoints.
      checkpoint: what TensorFlow's files hold.
      keep: committed checkpoints kept (the newest).
    """

    def __init__(self, directory: Path, checkpoint: tf.train.Checkpoint, keep: int = 3):
        self.directory = Path(directory)
        self._checkpoint = checkpoint
        # `write` saves the counter only once it exists, and a restore asks for it.
        checkpoint.save_counter  # noqa: B018 (creates it)
        self._keep = keep

    def committed(self) -> list[str]:
        """The committed checkpoints' prefixes (file names), oldest first."""
        state = tf.train.get_checkpoint_state(str(self.directory))
        if state is None:
            return []
        return [Path(p).name for p in state.all_model_checkpoint_paths] or [
            Path(state.model_checkpoint_path).name
        ]

    def latest(self) -> Path | None:
        """The newest committed checkpoint's prefix, or None."""
        names = self.committed()
        return self.directory / names[-1] if names else None

    def replay_path(self, prefix: Path) -> Path:
        return prefix.with_name(prefix.name + REPLAY_SUFFIX)

    def write_networks(self, step: int) -> Path:
        """Phase 1: TensorFlow's files of a new checkpoint, not committed yet.

        Raises:
          CheckpointWriteError: the files could not be written.
        """
        self.directory.mkdir(exist_ok=True)
        name, k = f"ckpt-{step}", 0
        while any(self.directory.glob(f"{name}.*")):  # never write over another's files
            k += 1
            name = f"ckpt-{step}.{k}"
        prefix = self.directory / name
        try:
            self._checkpoint.write(str(prefix))
        except (OSError, tf.errors.OpError) as e:
            raise CheckpointWriteError(self.failure(name, e)) from None
        return prefix

    def commit(self, prefix: Path) -> None:
        """Phase 2's end: makes `prefix` the newest checkpoint and drops the oldest."""
        names = [n for n in self.committed() if n != prefix.name] + [prefix.name]
        kept = names[-self._keep :]
        lines = [f'model_checkpoint_path: "{kept[-1]}"']
        lines += [f'all_model_checkpoint_paths: "{n}"' for n in kept]
        try:
            atomic_write_text(self.directory / STATE_FILE, "\n".join(lines) + "\n")
        except OSError as e:
            raise CheckpointWriteError(self.failure(prefix.name, e)) from None
        self.sweep(keep=kept)

    def sweep(self, keep: list[str]) -> None:
        """Removes every checkpoint file but those of `keep` (and the state file)."""
        for path in self.directory.iterdir():
            if path.name == STATE_FILE:
                continue
            name = path.name.lstrip(".")  # an unfinished replay file: .ckpt-N.replay.*.tmp
            prefix = name.split(".index")[0].split(".data-")[0].split(REPLAY_SUFFIX)[0]
            if path.is_dir():  # TensorFlow's unfinished shards: ckpt-N_temp/
                if name.endswith("_temp") and name[: -len("_temp")] not in keep:
                    shutil.rmtree(path, ignore_errors=True)
            elif prefix not in keep:
                path.unlink(missing_ok=True)

    def failure(self, name: str, error: BaseException) -> str:
        """The line for checkpoint `name` that could not be written for `error`."""
        reason = getattr(error, "strerror", None) or str(error).strip().splitlines()[0]
        latest = self.latest()
        kept = f"the last good checkpoint, {latest.name}, stands" if latest else "none was kept"
        return f"cannot write checkpoint {name} in {self.directory}: {reason}; {kept}"


class SaveWriter:
    """One thread that finishes saves (phase 2), one at a time.

    Args:
      on_error: takes the first error of a save run in the background (the trainer
        stops the run with it).
    """

    def __init__(self, on_error: Callable[[BaseException], None] | None = None):
        self._on_error = on_error
        self._thread: threading.Thread | None = None
        self._error: BaseException | None = None
        self.saves = 0
        self.last_sec = 0.0

    @property
    def busy(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def run(self, job: Callable[[Callable[[], None]], None], wait: bool) -> None:
        """Runs `job(checkpoint_hold)` in the writer thread; with `wait`, until it ends.

        `checkpoint_hold` is the test hook (module doc): the job calls it after its
        first part. With `wait`, the job's error is raised here.
        """
        self.wait()
        self.saves += 1
        hold = _hold_hook(self.saves)
        self._error = None

        def body() -> None:
            t0 = time.perf_counter()
            try:
                job(hold)
            except BaseException as e:  # handed to the run: it stops with it
                self._error = e
                if not wait and self._on_error is not None:
                    self._on_error(e)
            self.last_sec = time.perf_counter() - t0

        self._thread = threading.Thread(target=body, name="checkpoint-writer", daemon=True)
        self._thread.start()
        if wait:
            self.wait()
            if self._error is not None:
                raise self._error

    def wait(self) -> None:
        """Waits for the save in the writer thread, if any, to end."""
        if self._thread is not None:
            self._thread.join()


def _hold_hook(save: int) -> Callable[[], None]:
    """The hold of `HOLD_SAVE_ENV` for the save-th save, or a no-op."""
    value = os.environ.get(HOLD_SAVE_ENV, "")
    number, _, path = value.partition(",")
    if not value or not number.isdigit() or int(number) != save:
        return lambda: None

    def hold() -> None:
        Path(path).write_text(f"holding save {save}\n")
        time.sleep(3600)

    return hold
