"""Othello's rules compiled (numba), for the tree search's compiled path.

The same rules as `boardq_games.othello.rules` (the same bitboards: bit 8r + c for
square (r, c), shifted a square a step in the 8 directions) on the board flattened to
int16 [64], seen by the mover. The tests hold each function equal to the plain rules
on random positions.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

__all__ = ["apply", "end_value", "legal", "planes"]

PASS = 64
_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)
_COLUMN_A = np.uint64(sum(1 << (8 * r) for r in range(8)))
_ONE = np.uint64(1)
_DIRECTIONS = ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1))
# A step to the right must not land in column a (it came round from h), nor one to the left in h.
_KEEP = np.array(
    [
        _ALL & ~(_COLUMN_A if dc == 1 else _COLUMN_A << np.uint64(7) if dc == -1 else np.uint64(0))
        for _, dc in _DIRECTIONS
    ],
    np.uint64,
)
_UP = np.array([max(0, 8 * dr + dc) for dr, dc in _DIRECTIONS], np.uint64)
_DOWN = np.array([max(0, -(8 * dr + dc)) for dr, dc in _DIRECTIONS], np.uint64)


@nb.njit(cache=True)
def _step(bits, d):
    return ((bits << _UP[d]) >> _DOWN[d]) & _KEEP[d]


@nb.njit(cache=True)
def _bits(pos):
    mine = np.uint64(0)
    theirs = np.uint64(0)
    for i in range(64):
        if pos[i] == 1:
            mine |= _ONE << np.uint64(i)
        elif pos[i] == -1:
            theirs |= _ONE << np.uint64(i)
    return mine, theirs


@nb.njit(cache=True)
def _moves(mine, theirs):
    empty = ~(mine | theirs)
    moves = np.uint64(0)
    for d in range(8):
        run = _step(mine, d) & theirs
        for _ in range(5):
            run |= _step(run, d) & theirs
        moves |= _step(run, d) & empty
    return moves


@nb.njit(cache=True)
def _flipped(mine, theirs, square):
    flipped = np.uint64(0)
    for d in range(8):
        run = np.uint64(0)
        at = _step(_ONE << np.uint64(square), d)
        while at & theirs:
            run |= at
            at = _step(at, d)
        if at & mine:
            flipped |= run
    return flipped


@nb.njit(cache=True)
def legal(pos, mask):
    """Fills bool `mask` [65]: the placements, else a pass if the opponent can move."""
    mine, theirs = _bits(pos)
    moves = _moves(mine, theirs)
    for i in range(64):
        mask[i] = (moves >> np.uint64(i)) & _ONE != 0
    mask[PASS] = moves == 0 and _moves(theirs, mine) != 0


@nb.njit(cache=True)
def apply(pos, action, out):
    """Writes into `out` the position after the mover's `action` (legal), seen by the next."""
    if action == PASS:
        for i in range(64):
            out[i] = -pos[i]
        return
    mine, theirs = _bits(pos)
    flipped = _flipped(mine, theirs, action) | (_ONE << np.uint64(action))
    ahead = theirs & ~flipped
    behind = mine | flipped
    for i in range(64):
        bit = _ONE << np.uint64(i)
        out[i] = 1 if ahead & bit else (-1 if behind & bit else 0)


@nb.njit(cache=True)
def end_value(pos):
    """The exact value of the move that led to `pos` for its mover, or NaN: play goes on."""
    mine, theirs = _bits(pos)
    if _moves(mine, theirs) != 0 or _moves(theirs, mine) != 0:
        return math.nan
    total = 0
    for i in range(64):
        total += pos[i]
    return -1.0 if total > 0 else (1.0 if total < 0 else 0.0)


@nb.njit(cache=True)
def planes(pos, out):
    """Writes the mover's planes, int8 (8, 8, 2) flattened, into `out`."""
    for i in range(64):
        out[2 * i] = pos[i] == 1
        out[2 * i + 1] = pos[i] == -1
