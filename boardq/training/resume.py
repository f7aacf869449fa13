"""A run's state beyond the networks: what a checkpoint's replay file keeps, and putting it back.

`gather` takes, between two train calls, what the networks' checkpoint does not hold:
a snapshot of the replay ring (copied block by block later, in the writer thread), the
random generators (the input pipeline's, each actor thread's and its pool opponent's),
the opponent pool, the evaluation ladder's count and best score, the exploration
schedule's position and the rate limiter's counters. `apply` puts them back on a
resume, before any thread starts, so the run goes on with the replay it had and
without a fresh warm-up.

Actor processes on Ray keep their generators in their own processes: those are not
saved (a resumed run's processes start from their seeds again).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import tensorflow as tf

from boardq.config import TrainConfig
from boardq.dqn.dataset import ReplayFeed
from boardq.dqn.replay import RateLimiter, ReplayRing
from boardq.dqn.replay_file import ReplayFileError
from boardq.dqn.snapshot import Snapshot, SnapshotPool
from boardq.training.checkpoint_replay import REPLAY_PREFIX, WITHOUT_REPLAY_HINT, Extras
from boardq.training.ladder import Ladder
from boardq.training.run_state import Restored

__all__ = ["Parts", "apply", "gather", "rng_state", "set_rng_state"]


def rng_state(rng: np.random.Generator) -> dict[str, Any]:
    """A generator's state, read under its lock (another thread may be drawing)."""
    with rng.bit_generator.lock:
        return rng.bit_generator.state


def set_rng_state(rng: np.random.Generator, state: dict[str, Any]) -> None:
    with rng.bit_generator.lock:
        rng.bit_generator.state = state


@dataclass
class Parts:
    """The parts of a run whose state a checkpoint keeps (the trainer's)."""

    ring: ReplayRing
    limiter: RateLimiter
    feed: ReplayFeed
    actors: list[Any]  # the actor threads of this process (none with actor processes)
    pool: SnapshotPool | None
    ladder: Ladder


def gather(parts: Parts, explored: int, replay: bool) -> Extras:
    """The state to save now (call between train calls, on the learner or main thread).

    Args:
      parts: the run's parts.
      explored: transitions the exploration schedule has counted over the whole run.
      replay: whether to save the replay ring (`--no-save-replay`: not).
    """
    lim = parts.limiter
    meta: dict[str, Any] = {
        "explored": int(explored),
        "limiter": {"inserted": lim.inserted, "sampled": lim.sampled, "warmup": lim.warmup},
        "ladder": {"evaluations": parts.ladder.evaluations, "best_score": parts.ladder.best_score},
        "rng": {
            "feed": rng_state(parts.feed.rng),
            "actors": [rng_state(a.rng) for a in parts.actors],
            "pool_opponents": [rng_state(a.pool.rng) for a in parts.actors if a.pool is not None],
        },
    }
    arrays: dict[str, np.ndarray] = {}
    if parts.pool is not None:
        kept = parts.pool.kept()
        meta["pool"] = [s.version for s in kept]
        for i, snap in enumerate(kept):
            for j, w in enumerate(snap.weights):
                arrays[f"pool/{i}/{j}"] = np.asarray(w)
    if not np.isfinite(meta["ladder"]["best_score"]):
        meta["ladder"]["best_score"] = None  # JSON has no infinity
    ring = parts.ring.snapshot() if replay else None
    if ring is not None:
        meta["replay"] = {"size": ring.size, "added": ring.added}
    return Extras(meta=meta, arrays=arrays, ring=ring)


def apply(restored: Restored, parts: Parts, config: TrainConfig) -> dict[str, Any]:
    """Puts a checkpoint's replay file back into the parts; returns its meta.

    The ring is filled (with `restored.replay`) and the limiter's warm-up shrinks by
    the transitions it holds, so a whole replay trains at once. The generators, the
    pool and the ladder's count come back whenever the file is readable.

    Raises:
      ReplayFileError: a part of the file is damaged or a column missing.
    """
    reader = restored.reader
    if reader is None:
        return {}
    meta = dict(reader.header.get("meta", {}))
    if restored.replay:
        try:
            _fill(reader, parts.ring)
        except ReplayFileError as e:
            reader.close()
            raise ReplayFileError(f"{e}; {WITHOUT_REPLAY_HINT}") from None
    parts.limiter.warmup = max(0, config.warmup_transitions - parts.ring.size)
    rngs = meta.get("rng", {})
    if "feed" in rngs:
        set_rng_state(parts.feed.rng, rngs["feed"])
    for actor, state in zip(parts.actors, rngs.get("actors", []), strict=False):
        set_rng_state(actor.rng, state)
    opponents = [a.pool for a in parts.actors if a.pool is not None]
    for opponent, state in zip(opponents, rngs.get("pool_opponents", []), strict=False):
        set_rng_state(opponent.rng, state)
    if parts.pool is not None and meta.get("pool"):
        snapshots = []
        for i, version in enumerate(meta["pool"]):
            count = sum(1 for name in reader.arrays if name.startswith(f"pool/{i}/"))
            arrays = tuple(reader.array(f"pool/{i}/{j}") for j in range(count))
            weights = tuple(tf.constant(a) for a in arrays)
            snapshots.append(Snapshot(int(version), weights, arrays))
        parts.pool.restore(snapshots)
    parts.ladder.evaluations = int(meta.get("ladder", {}).get("evaluations", 0))
    reader.close()
    return meta


def _fill(reader, ring: ReplayRing) -> None:
    """The ring's rows from the file, oldest first, one part in memory at a time.

    The ring's columns are what the run needs (`SCHEMA`'s, and more with ownership
    targets): a file without one of them is refused; a column the ring has not (a
    lever turned off since) is left out.
    """
    names = [REPLAY_PREFIX + f for f in ring.columns]
    missing = [n for n in names if n not in reader.arrays]
    saved = [n for n in reader.arrays if n.startswith(REPLAY_PREFIX)]
    if not saved:
        return  # an empty replay was saved
    if missing:
        raise ReplayFileError(f"replay file {reader.path} lacks {', '.join(missing)}")
    total = reader.shape(names[0])[0]
    for name, start, rows in reader.parts(REPLAY_PREFIX):
        if name in names:
            ring.restore_rows(name[len(REPLAY_PREFIX) :], start, rows, total)
    ring.restored(total)
