"""The games' compiled rules behind one dispatch, for the tree search's compiled tree.

A game is named by `spec` (int64 [4]: the game, its board's side, pass_to_end, prune)
and Go's komi; positions are int16 [L], the plain rules' positions flattened. Every
game's rules are compiled into the tree's kernels once (numba caches them on disk):
a first-class function as an argument would not be cached by numba, a branch is.

A rules class that has a compiled form says so with `compiled(pruned, pass_to_end)`
(`boardq_games.fast_tree.compiled_form`, or None where it has none for that pruning
or pass); the tree
search (`boardq.players.fasttree`) asks the rules it is given.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numba as nb
import numpy as np

from boardq_games.connect_four import fast as c4
from boardq_games.go import fast as go
from boardq_games.hex import fast as hx
from boardq_games.othello import fast as oth

__all__ = [
    "CONNECT_FOUR",
    "GO",
    "HEX",
    "OTHELLO",
    "CompiledRules",
    "r_apply",
    "r_end",
    "r_legal",
    "r_planes",
]

CONNECT_FOUR, OTHELLO, HEX, GO = 0, 1, 2, 3


@nb.njit(cache=True)
def r_legal(spec, komi, pos, mask):
    """Fills bool `mask` [A] with the moves the tree searches; whether one was left out."""
    game = spec[0]
    if game == CONNECT_FOUR:
        c4.legal(pos, mask)
    elif game == OTHELLO:
        oth.legal(pos, mask)
    elif game == HEX:
        hx.legal(pos, spec[1], mask)
    else:
        return go.legal(pos, spec[1], spec[3] != 0, spec[2] != 0, mask)
    return False


@nb.njit(cache=True)
def r_apply(spec, pos, action, out):
    """Writes into `out` the position after the mover's legal `action`."""
    game = spec[0]
    if game == CONNECT_FOUR:
        c4.apply(pos, action, out)
    elif game == OTHELLO:
        oth.apply(pos, action, out)
    elif game == HEX:
        hx.apply(pos, spec[1], action, out)
    else:
        go.apply(pos, spec[1], action, out)


@nb.njit(cache=True)
def r_end(spec, komi, pos):
    """`tree_node.end_value` of a position: the last mover's exact result, or NaN."""
    game = spec[0]
    if game == CONNECT_FOUR:
        return c4.end_value(pos)
    if game == OTHELLO:
        return oth.end_value(pos)
    if game == HEX:
        return hx.end_value(pos, spec[1])
    return go.end_value(pos, spec[1], komi)


@nb.njit(cache=True)
def r_planes(spec, pos, out):
    """Writes the mover's planes (int8, flattened) into `out`."""
    game = spec[0]
    if game == CONNECT_FOUR:
        c4.planes(pos, out)
    elif game == OTHELLO:
        oth.planes(pos, out)
    elif game == HEX:
        hx.planes(pos, spec[1], out)
    else:
        go.planes(pos, spec[1], out)


@dataclass(frozen=True)
class CompiledRules:
    """How a tree search's rules run compiled.

    Attributes:
        spec: int64 [4]: the game, its board's side, pass_to_end, prune.
        komi: Go's komi (0 elsewhere).
        shape, dtype: the plain rules' positions.
        planes_shape: the mover's planes.
        num_actions: the actions.
        kernels: the tree's kernels (`boardq_games.fast_tree`).
    """

    spec: np.ndarray
    komi: float
    shape: tuple[int, ...]
    dtype: np.dtype
    planes_shape: tuple[int, ...]
    num_actions: int
    kernels: Any
