"""The replay file beside a checkpoint: what it holds, written and checked.

A checkpoint (`boardq.training.run_state`) keeps the networks and counters in
TensorFlow's files; beside it, one replay file (`boardq.dqn.replay_file`) holds the
replay ring's columns and what `boardq.training.resume` gathers (`Extras`). Its header
names the checkpoint by a token both keep, so a replay file is never read with another
checkpoint, another game or other board shapes.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from boardq.dqn.replay import RingSnapshot
from boardq.dqn.replay_file import ReplayFileError, ReplayFileReader, ReplayFileWriter
from boardq.game import Game

__all__ = [
    "FORMAT",
    "REPLAY_PREFIX",
    "WITHOUT_REPLAY_HINT",
    "Extras",
    "open_checked",
    "replay_header",
    "write_replay",
]

REPLAY_PREFIX = "replay/"
"""The replay ring's columns in a replay file: replay/obs, replay/action, ..."""
FORMAT = 1
WITHOUT_REPLAY_HINT = "resume with --resume-without-replay to go on with an empty replay"


@dataclass
class Extras:
    """What a checkpoint keeps besides the networks (`boardq.training.resume` gathers it).

    Attributes:
      meta: JSON-ready state: random generators, counters.
      arrays: named small arrays (the opponent pool's weights).
      ring: the replay ring's snapshot, or None (`--no-save-replay`).
    """

    meta: dict[str, Any] = field(default_factory=dict)
    arrays: dict[str, np.ndarray] = field(default_factory=dict)
    ring: RingSnapshot | None = None


def replay_header(token: str, game: Game, step: int, extras: Extras) -> dict[str, Any]:
    """The header of the replay file of the checkpoint with this token."""
    return {
        "format": FORMAT,
        "token": token,
        "game": game.name,
        "obs_shape": list(game.obs_shape),
        "num_actions": int(game.num_actions),
        "step": step,
        "replay": extras.ring is not None,
        "meta": extras.meta,
    }


def open_checked(path: Path, game: Game, token: str) -> ReplayFileReader:
    """The replay file at `path`, checked against its checkpoint's token and the game.

    Raises:
      ReplayFileError: missing, cut short, of another checkpoint, game or board shapes.
    """
    reader = ReplayFileReader(path)
    header = reader.header
    try:
        if header.get("game") != game.name:
            raise ReplayFileError(f"replay file {path} is of a {header.get('game')} run")
        if header.get("token") != token:
            raise ReplayFileError(f"replay file {path} belongs to another checkpoint")
        shapes = (tuple(header.get("obs_shape", ())), header.get("num_actions"))
        if shapes != (tuple(game.obs_shape), int(game.num_actions)):
            raise ReplayFileError(f"replay file {path} has other board shapes than {game.name}")
    except BaseException:
        reader.close()
        raise
    return reader


def write_replay(
    path: Path, header: dict[str, Any], extras: Extras, hold: Callable[[], None]
) -> dict[str, float]:
    """Writes the replay file (the ring's snapshot is closed after, written or not).

    `hold` is called after the small arrays, before the ring's rows (a test's pause).
    Returns the file's figures for the run's metrics.

    Raises:
      OSError: the file could not be written.
    """
    t0 = time.perf_counter()
    try:
        with ReplayFileWriter(path) as out:
            for name, array in extras.arrays.items():
                out.write(name, array)
            hold()
            if extras.ring is not None:
                total = extras.ring.size
                for start, rows in extras.ring.blocks():
                    for key, column in rows.items():
                        out.write(REPLAY_PREFIX + key, column, start, total)
                    del rows
            size = out.close(header)
    finally:
        if extras.ring is not None:
            extras.ring.close()
    return {
        "checkpoint_sec": time.perf_counter() - t0,
        "checkpoint_mb": size / 2**20,
        "checkpoint_replay_mb": out.raw_bytes / 2**20,
    }
