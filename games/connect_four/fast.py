"""Connect Four's rules compiled (numba), for the tree search's compiled path.

The same rules as `boardq_games.connect_four.rules` on a position flattened to int16
[42] (row 0 at the top, row by row), seen by the mover: the tree search's array tree
(`boardq.search.fasttree`) keeps positions so. The tests hold each function equal to
the plain rules on random positions.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

__all__ = ["apply", "end_value", "legal", "planes"]

ROWS, COLS = 6, 7
_LINES = ((0, 1), (1, 0), (1, 1), (1, -1))


@nb.njit(cache=True)
def legal(pos, mask):
    """Fills bool `mask` [7]: the columns whose top cell is empty."""
    for c in range(COLS):
        mask[c] = pos[c] == 0


@nb.njit(cache=True)
def apply(pos, action, out):
    """Writes into `out` the position after the mover drops a piece in column `action`."""
    row = ROWS - 1
    while pos[row * COLS + action] != 0:
        row -= 1
    for i in range(ROWS * COLS):
        out[i] = -pos[i]
    out[row * COLS + action] = -1


@nb.njit(cache=True)
def _four(pos, side):
    for r in range(ROWS):
        for c in range(COLS):
            if pos[r * COLS + c] != side:
                continue
            for dr, dc in _LINES:
                er, ec = r + 3 * dr, c + 3 * dc
                if er >= ROWS or ec < 0 or ec >= COLS:
                    continue
                k = 1
                while k < 4 and pos[(r + k * dr) * COLS + c + k * dc] == side:
                    k += 1
                if k == 4:
                    return True
    return False


@nb.njit(cache=True)
def end_value(pos):
    """The exact value of the move that led to `pos` for its mover, or NaN: play goes on."""
    if _four(pos, 1):
        return -1.0
    if _four(pos, -1):
        return 1.0
    for i in range(ROWS * COLS):
        if pos[i] == 0:
            return math.nan
    return 0.0


@nb.njit(cache=True)
def planes(pos, out):
    """Writes the mover's planes, int8 (6, 7, 2) flattened, into `out`."""
    for i in range(ROWS * COLS):
        out[2 * i] = pos[i] == 1
        out[2 * i + 1] = pos[i] == -1


def position(board: np.ndarray) -> np.ndarray:
    """The compiled position (int16 [42]) of a plain board."""
    return np.asarray(board, np.int16).reshape(-1).copy()
