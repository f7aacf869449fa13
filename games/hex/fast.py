"""Hex's rules compiled (numba), for the tree search's compiled path.

The same rules as `boardq_games.hex.rules` on the same position (the cells, then the
mover's seat) held as int16 [N * N + 1]. The tests hold each function equal to the
plain rules on random positions.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

__all__ = ["apply", "end_value", "legal", "planes"]

_STEPS = ((0, -1), (0, 1), (-1, 0), (-1, 1), (1, -1), (1, 0))


@nb.njit(cache=True)
def legal(pos, size, mask):
    """Fills bool `mask` [N * N]: the empty cells."""
    for i in range(size * size):
        mask[i] = pos[i] == 0


@nb.njit(cache=True)
def apply(pos, size, action, out):
    """Writes into `out` the position after the mover's stone on `action`."""
    cells = size * size
    for i in range(cells):
        out[i] = -pos[i]
    out[action] = -1
    out[cells] = 1 - pos[cells]


@nb.njit(cache=True)
def _joined(pos, size, side):
    """Whether `side`'s stones (+1 the mover) join its two edges (seat 0: top-bottom)."""
    cells = size * size
    seat = pos[cells] if side == 1 else 1 - pos[cells]
    seen = np.zeros(cells, np.bool_)
    stack = np.empty(cells, np.int64)
    top = 0
    for k in range(size):
        cell = k if seat == 0 else k * size
        if pos[cell] == side:
            seen[cell] = True
            stack[top] = cell
            top += 1
    while top > 0:
        top -= 1
        cell = stack[top]
        row, col = cell // size, cell % size
        if (row if seat == 0 else col) == size - 1:
            return True
        for dr, dc in _STEPS:
            r, c = row + dr, col + dc
            if 0 <= r < size and 0 <= c < size:
                n = r * size + c
                if pos[n] == side and not seen[n]:
                    seen[n] = True
                    stack[top] = n
                    top += 1
    return False


@nb.njit(cache=True)
def end_value(pos, size):
    """The exact value of the move that led to `pos` for its mover, or NaN: play goes on."""
    if _joined(pos, size, -1):
        return 1.0
    if _joined(pos, size, 1):
        return -1.0
    return math.nan


@nb.njit(cache=True)
def planes(pos, size, out):
    """Writes the mover's planes, int8 (N, N, 3) flattened, into `out`."""
    seat = pos[size * size]
    for i in range(size * size):
        out[3 * i] = pos[i] == 1
        out[3 * i + 1] = pos[i] == -1
        out[3 * i + 2] = seat
