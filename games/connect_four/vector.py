"""Many Connect Four games stepped together in numpy, move for move like PettingZoo's.

Each game keeps two bitboards (int64: the mover's pieces and the opponent's), the
height of every column and its move count. Bit `7 * column + height` is the cell
`height` pieces above the bottom of `column`; the seventh bit of each column stays
empty, so shifting a board by 1, 7, 6 or 8 walks along a column, a row or a diagonal
without wrapping into the next column, and four in a row is four shifted ANDs.

The observation planes are kept up to date rather than rebuilt from the bitboards:
every move swaps the two channels of every game (the player to move changes in all
of them) and sets the one new cell.
"""

from __future__ import annotations

import numpy as np

from boardq.gamebatch import Outcome, PlanesBatch

__all__ = ["ConnectFourVector"]

_ROWS = 6
_COLS = 7
_CELLS = _ROWS * _COLS
# Bits per column in a bitboard: the six cells and an always-empty guard bit.
_STRIDE = _ROWS + 1
# Shifts that step to the next cell up a column, along a row and along both diagonals.
_DIRECTIONS = (1, _STRIDE, _STRIDE - 1, _STRIDE + 1)


def _four_in_a_row(board: np.ndarray) -> np.ndarray:
    """Bool [M]: the int64 bitboards holding four pieces in a line."""
    found = np.zeros_like(board)
    for shift in _DIRECTIONS:
        pairs = board & (board >> shift)
        found |= pairs & (pairs >> (2 * shift))
    return found != 0


class ConnectFourVector(PlanesBatch):
    """`num_games` Connect Four games, observed and stepped like PettingZoo's connect_four-v3.

    `player_0` (PettingZoo's first agent) moves first in every game. Observations are
    the planes of the player to move, row 0 at the top: channel 0 its pieces,
    channel 1 the opponent's. An action is a column.

    Args:
      num_games: the number of games stepped together.
    """

    obs_shape = (_ROWS, _COLS, 2)
    num_actions = _COLS

    def __init__(self, num_games: int):
        super().__init__(num_games)
        self._mover = np.zeros(self.size, np.int64)
        self._other = np.zeros(self.size, np.int64)
        self._heights = np.zeros((self.size, _COLS), np.int8)
        self._plies = np.zeros(self.size, np.int8)
        # The planes seen as a flat list of int8 cells take the new pieces with one scatter.
        self._flat = self._planes.reshape(-1)

    def reset(self) -> None:
        """Every game back to the empty board, the first player to move."""
        for state in (self._mover, self._other, self._heights, self._plies, self._planes):
            state[...] = 0
        self._legal[...] = True

    def step(self, actions: np.ndarray) -> Outcome:
        """Drops a piece in column `actions[i]` of game i; games that end restart.

        Args:
          actions: int [M], a column that is not full in each game.

        Raises:
          ValueError: an action plays a full column (no game changes then).
        """
        games = self._games
        heights = self._heights[games, actions]
        if heights.max() >= _ROWS:  # one reduction over M: cheap next to the rest
            raise ValueError(f"full column played in games {np.flatnonzero(heights >= _ROWS)}")
        self._heights[games, actions] = heights + 1
        placed = np.left_shift(1, actions * _STRIDE + heights, dtype=np.int64)
        mover = self._mover | placed
        won = _four_in_a_row(mover)
        first = (self._plies & 1) == 0
        self._plies += 1
        done = won | (self._plies == _CELLS)
        # The next mover sees the channels swapped; the new piece is its opponent's.
        self._cell_pairs.byteswap(inplace=True)
        cells = (_ROWS - 1 - heights) * _COLS + actions
        self._flat[(games * _CELLS + cells) * 2 + 1] = 1
        self._mover, self._other = self._other, mover
        if done.any():
            self._restart(np.flatnonzero(done))
        np.less(self._heights, _ROWS, out=self._legal)
        return Outcome(won.astype(np.float32), done, first)

    def _restart(self, games: np.ndarray) -> None:
        """Empties the boards of `games` (indices), the first player to move."""
        for state in (self._mover, self._other, self._heights, self._plies, self._planes):
            state[games] = 0
