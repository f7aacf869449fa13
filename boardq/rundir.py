"""Run directories: config.json, TensorFlow checkpoints and the exported agent.

Layout of a run directory::

    RUN_DIR/config.json        the TrainConfig of the run
    RUN_DIR/checkpoints/       ckpt-N.* (networks, optimizer, counters) and ckpt-N.replay
                               (the replay and the rest; boardq.training.checkpoints)
    RUN_DIR/agent.npz          the exported agent (greedy player), see boardq.players.agent
    RUN_DIR/agents/            agent-<train step>.npz: the agent kept every few minutes
    RUN_DIR/games/             ladder-<version>/: the games of the last evaluations
                               (games.jsonl and SGF files, boardq.records)
    RUN_DIR/metrics.jsonl      one JSON line of metrics per progress tick
    RUN_DIR/tb/                TensorBoard event files
    RUN_DIR/.lock              held (flock) by the process training in the directory
"""

from __future__ import annotations

import fcntl
import os
import tempfile
import time
import tomllib
from pathlib import Path
from typing import Any

from boardq import bounded
from boardq.bounded import NumberTextError
from boardq.config import ConfigError, TrainConfig
from boardq.errors import RunDirError

__all__ = [
    "RunLock",
    "atomic_write_bytes",
    "atomic_write_text",
    "new_run_dir",
    "read_run_config",
    "read_settings_file",
]

CONFIG_FILE = "config.json"
KEPT_AGENTS_DIR = "agents"
KEPT_AGENT_GLOB = "agent-*.npz"  # agent-<train step, 9 digits>.npz
LOCK_FILE = ".lock"
CHECKPOINT_DIR = "checkpoints"
AGENT_FILE = "agent.npz"
BEST_AGENT_FILE = "best-agent.npz"  # the best by the evaluation ladder
GAMES_DIR = "games"  # the evaluation ladder's games, one folder per evaluation


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Writes a file so that readers see the old or the new content, never a part."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        # mkstemp creates 0600; give the file the mode a plain open() would.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def new_run_dir(out_dir: str | Path, game: str) -> Path:
    """A new, empty directory OUT_DIR/GAME/YYYYmmdd-HHMMSS[-k]."""
    base = Path(out_dir) / game
    try:
        base.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise RunDirError(f"cannot create output directory {base}: {e.strerror}") from None
    stamp = time.strftime("%Y%m%d-%H%M%S")
    for k in range(1000):
        path = base / (stamp if k == 0 else f"{stamp}-{k}")
        try:
            path.mkdir()
            return path
        except FileExistsError:
            continue
    raise RunDirError(f"cannot find a free run directory name in {base}")


def read_run_config(run_dir: str | Path) -> TrainConfig:
    """The config a run directory was started with; RunDirError if unusable."""
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise RunDirError(f"run directory {run_dir} does not exist")
    path = run_dir / CONFIG_FILE
    try:
        data = bounded.loads(path.read_text("utf-8"))
        return TrainConfig.from_dict(data)
    except FileNotFoundError:
        raise RunDirError(f"{run_dir} is not a boardq run directory (no {CONFIG_FILE})") from None
    except (OSError, ValueError, TypeError, ConfigError) as e:
        raise RunDirError(f"cannot read {path}: {e}") from None


def read_settings_file(path: str | Path) -> dict[str, Any]:
    """The settings in a JSON file (a run's config.json) or a TOML file (.toml).

    Raises:
      ConfigError: missing, unreadable, not JSON or TOML, or not a table of settings.
    """
    path = Path(path)
    try:
        text = path.read_text("utf-8")
    except FileNotFoundError:
        raise ConfigError(f"settings file {path} does not exist") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"cannot read settings file {path}: {e}") from None
    try:
        if path.suffix.lower() == ".toml":
            data = bounded.toml_loads(text)
        else:
            data = bounded.loads(text)
    except NumberTextError as e:
        raise ConfigError(f"{path}: {e}") from None
    except (ValueError, tomllib.TOMLDecodeError) as e:
        kind = "TOML" if path.suffix.lower() == ".toml" else "JSON"
        raise ConfigError(f"{path} is not valid {kind}: {e}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path} does not hold a table of settings")
    return data


class RunLock:
    """An exclusive lock on a run directory while one process trains in it.

    `flock` on RUN_DIR/.lock: the kernel drops it when the process ends, even by
    kill -9, so a crashed run can be resumed at once and a live one cannot be entered
    twice.

    Raises:
      RunDirError: another process holds the lock (the message names its pid).
    """

    def __init__(self, run_dir: str | Path):
        path = Path(run_dir) / LOCK_FILE
        self._fd: int | None = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(self._fd, 32, 0).decode("ascii", "replace").strip() or "?"
            os.close(self._fd)
            self._fd = None
            raise RunDirError(
                f"{run_dir} is in use by another training (pid {holder}); "
                "wait for it to end or stop it first"
            ) from None
        os.ftruncate(self._fd, 0)
        os.pwrite(self._fd, f"{os.getpid()}\n".encode(), 0)

    def release(self) -> None:
        """Unlocks (safe to call twice)."""
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None
