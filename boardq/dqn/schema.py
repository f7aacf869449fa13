"""The batch schema: the columns of a transition, their dtypes and shapes (numpy only).

`SCHEMA` is the one description of a transition's columns (name, dtype, shape): the
replay ring, chunks, the learner's tensor signatures and the naive baseline all derive
theirs from it. A lever that stores more per transition extends it with columns of its
own (`boardq.dqn.ownership.AUX_COLUMNS`), and the helpers here take such a schema too.
What fills the columns is the turn bookkeeping (`boardq.dqn.transitions`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = [
    "FIELDS",
    "SCHEMA",
    "Chunk",
    "Column",
    "column_shapes",
    "empty_columns",
]

Chunk = dict[str, np.ndarray]


@dataclass(frozen=True)
class Column:
    """One column of a batch of transitions.

    Attributes:
      name: the key in chunks, batches and tensor signatures.
      dtype: the compact numpy dtype it is stored and fed in.
      per_row: "obs" (the observation's shape), "actions" ([num_actions]), "points"
        ([H * W], a value per cell of the planes, row by row) or "scalar".
      doc: what it holds.
    """

    name: str
    dtype: type
    per_row: str
    doc: str

    def shape(self, obs_shape: Sequence[int], num_actions: int) -> tuple[int, ...]:
        """The shape of one row of this column."""
        if self.per_row == "points":
            return (int(np.prod(obs_shape[:-1])),)
        return {"obs": tuple(obs_shape), "actions": (int(num_actions),), "scalar": ()}[self.per_row]


SCHEMA: tuple[Column, ...] = (
    Column("obs", np.int8, "obs", "planes of the mover's view before its move"),
    Column("action", np.int16, "scalar", "the move"),
    Column("reward", np.float32, "scalar", "the n-step negamax return G (lambda-weighted)"),
    Column("discount", np.float32, "scalar", "(-gamma)^n, or 0 if the game ended"),
    Column("next_obs", np.int8, "obs", "planes of the player to move n moves later"),
    Column("next_mask", np.bool_, "actions", "legal moves there (none at the end)"),
)
FIELDS = tuple(c.name for c in SCHEMA)


def column_shapes(
    obs_shape: Sequence[int], num_actions: int, columns: Sequence[Column] = SCHEMA
) -> dict[str, tuple[tuple[int, ...], type]]:
    """Each column's (row shape, dtype), of `SCHEMA` or a schema extended from it."""
    return {c.name: (c.shape(obs_shape, num_actions), c.dtype) for c in columns}


def empty_columns(
    n: int, obs_shape: Sequence[int], num_actions: int, columns: Sequence[Column] = SCHEMA
) -> Chunk:
    """Zeroed column arrays for n transitions."""
    return {
        name: np.zeros((n, *shape), dtype)
        for name, (shape, dtype) in column_shapes(obs_shape, num_actions, columns).items()
    }
