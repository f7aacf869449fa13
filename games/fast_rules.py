"""The games' compiled rules behind one dispatch, for the tree search's compiled tree.

A game is named by `tag`, an empty array whose dtype stands for the game (`TAGS`), by
`spec` (int64 [4]: the game, its board's side, pass_to_end, prune) and by Go's komi;
positions are int16 [L], the plain rules' positions flattened. The dispatch is chosen
when a kernel is compiled, from the tag's dtype (numba's `overload`), so a kernel is
compiled with one game's rules: a game's first search compiles its own rules only. A
jitted function passed as an argument, or closed over, would not be cached by numba on
disk; an overload is.

A rules class that has a compiled form says so with `compiled(pruned, pass_to_end)`
(`boardq_games.fast_tree.compiled_form`, or None where it has none for that pruning
or pass); the tree search (`boardq.search.fasttree`) asks the rules it is given.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import types
from numba.extending import overload

from boardq_games.connect_four import fast as c4
from boardq_games.go import fast as go
from boardq_games.hex import fast as hx
from boardq_games.othello import fast as oth

__all__ = [
    "CONNECT_FOUR",
    "GO",
    "HEX",
    "OTHELLO",
    "TAGS",
    "CompiledRules",
    "r_apply",
    "r_end",
    "r_legal",
    "r_planes",
]

CONNECT_FOUR, OTHELLO, HEX, GO = 0, 1, 2, 3
TAGS = {CONNECT_FOUR: np.uint8, OTHELLO: np.uint16, HEX: np.uint32, GO: np.uint64}
"""The dtype of each game's tag."""
_GAME_OF = {types.uint8: CONNECT_FOUR, types.uint16: OTHELLO, types.uint32: HEX, types.uint64: GO}
_CACHED = {"cache": True}


def _game(tag) -> int:
    return _GAME_OF[tag.dtype]


def r_legal(tag, spec, komi, pos, mask):
    """Fills bool `mask` [A] with the moves the tree searches; whether one was left out.

    Compiled code only (the overload below), as the other three.
    """
    raise NotImplementedError("compiled code only")


def r_apply(tag, spec, pos, action, out):
    """Writes into `out` the position after the mover's legal `action`."""
    raise NotImplementedError("compiled code only")


def r_end(tag, spec, komi, pos):
    """`tree_node.end_value` of a position: the last mover's exact result, or NaN."""
    raise NotImplementedError("compiled code only")


def r_planes(tag, spec, pos, out):
    """Writes the mover's planes (int8, flattened) into `out`."""
    raise NotImplementedError("compiled code only")


@overload(r_legal, jit_options=_CACHED)
def _legal(tag, spec, komi, pos, mask):
    game = _game(tag)
    if game == CONNECT_FOUR:

        def legal(tag, spec, komi, pos, mask):
            c4.legal(pos, mask)
            return False

    elif game == OTHELLO:

        def legal(tag, spec, komi, pos, mask):
            oth.legal(pos, mask)
            return False

    elif game == HEX:

        def legal(tag, spec, komi, pos, mask):
            hx.legal(pos, spec[1], mask)
            return False

    else:

        def legal(tag, spec, komi, pos, mask):
            return go.legal(pos, spec[1], spec[3] != 0, spec[2] != 0, mask)

    return legal


@overload(r_apply, jit_options=_CACHED)
def _apply(tag, spec, pos, action, out):
    game = _game(tag)
    if game == CONNECT_FOUR:
        return lambda tag, spec, pos, action, out: c4.apply(pos, action, out)
    if game == OTHELLO:
        return lambda tag, spec, pos, action, out: oth.apply(pos, action, out)
    if game == HEX:
        return lambda tag, spec, pos, action, out: hx.apply(pos, spec[1], action, out)
    return lambda tag, spec, pos, action, out: go.apply(pos, spec[1], action, out)


@overload(r_end, jit_options=_CACHED)
def _end(tag, spec, komi, pos):
    game = _game(tag)
    if game == CONNECT_FOUR:
        return lambda tag, spec, komi, pos: c4.end_value(pos)
    if game == OTHELLO:
        return lambda tag, spec, komi, pos: oth.end_value(pos)
    if game == HEX:
        return lambda tag, spec, komi, pos: hx.end_value(pos, spec[1])
    return lambda tag, spec, komi, pos: go.end_value(pos, spec[1], komi)


@overload(r_planes, jit_options=_CACHED)
def _planes(tag, spec, pos, out):
    game = _game(tag)
    if game == CONNECT_FOUR:
        return lambda tag, spec, pos, out: c4.planes(pos, out)
    if game == OTHELLO:
        return lambda tag, spec, pos, out: oth.planes(pos, out)
    if game == HEX:
        return lambda tag, spec, pos, out: hx.planes(pos, spec[1], out)
    return lambda tag, spec, pos, out: go.planes(pos, spec[1], out)


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
        tag: the game's tag (`TAGS`).
    """

    spec: np.ndarray
    komi: float
    shape: tuple[int, ...]
    dtype: np.dtype
    planes_shape: tuple[int, ...]
    num_actions: int
    kernels: Any
    tag: np.ndarray
