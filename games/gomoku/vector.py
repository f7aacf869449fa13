"""Many Gomoku games stepped together in numpy, move for move like OpenSpiel's through Shimmy.

Each game keeps its observation planes (int8 [9, 9, 2]: the mover's stones, the
opponent's) and its move count; nothing else. A move sets one cell of channel 0, looks
for five in a row only through the new stone, then swaps the two channels of every
game (the player to move changes in all of them) with one in-place byte swap.

Five in a row through the new stone: for each of the four directions a table holds the
nine points from four before the stone to four after it (points off the board point at
the stone itself and are masked out), so one gather gives [M, 4, 9] cells and a running
sum finds any window of five stones. An overline holds such a window too, so it wins,
as in OpenSpiel's `gomoku`.
"""

from __future__ import annotations

import numpy as np

from boardq.gamebatch import Outcome, PlanesBatch
from boardq_games.gomoku.rules import SIZE

__all__ = ["GomokuVector"]

_CELLS = SIZE * SIZE
_REACH = 4  # points on either side of a new stone that can share its five
_DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))


def _line_tables() -> tuple[np.ndarray, np.ndarray]:
    """Int [81, 4, 9] points along each direction through every point, and where they exist."""
    rows, cols = np.divmod(np.arange(_CELLS), SIZE)
    steps = np.arange(-_REACH, _REACH + 1)
    row = rows[:, None, None] + np.array([d[0] for d in _DIRECTIONS])[None, :, None] * steps
    col = cols[:, None, None] + np.array([d[1] for d in _DIRECTIONS])[None, :, None] * steps
    on_board = (row >= 0) & (row < SIZE) & (col >= 0) & (col < SIZE)
    points = np.where(on_board, row * SIZE + col, np.arange(_CELLS)[:, None, None])
    return points, on_board


_POINTS, _ON_BOARD = _line_tables()


def _five_through(stones: np.ndarray) -> np.ndarray:
    """Bool [M]: the lines [M, 4, 9] (0/1) hold five stones in a row somewhere."""
    runs = np.cumsum(stones, axis=2, dtype=np.int8)
    windows = runs[:, :, 4:].copy()
    windows[:, :, 1:] -= runs[:, :, :-5]
    return (windows == 5).any(axis=(1, 2))


class GomokuVector(PlanesBatch):
    """`num_games` 9x9 Gomoku games, observed and stepped like `boardq_games.gomoku`'s environment.

    The first player (black) moves first in every game. Observations are the planes of
    the player to move, row 0 at the top: channel 0 its stones, channel 1 the
    opponent's. Action `a` is the point at row `a // 9`, column `a % 9`.

    Args:
      num_games: the number of games stepped together.
    """

    obs_shape = (SIZE, SIZE, 2)
    num_actions = _CELLS

    def __init__(self, num_games: int):
        super().__init__(num_games)
        self._plies = np.zeros(self.size, np.int16)
        self._mine = self._planes.reshape(self.size, _CELLS, 2)[:, :, 0]  # channel 0, by point

    def reset(self) -> None:
        """Every game back to the empty board, the first player to move."""
        self._plies[...] = 0
        self._planes[...] = 0
        self._legal[...] = True

    def step(self, actions: np.ndarray) -> Outcome:
        """Places a stone of the mover on point `actions[i]` of game i; games that end restart.

        Args:
          actions: int [M], an empty point in each game.

        Raises:
          ValueError: an action is outside the board or plays a taken point (no game
            changes then).
        """
        actions = np.asarray(actions)
        if actions.min() < 0 or actions.max() >= _CELLS:
            raise ValueError(f"actions must be points 0..{_CELLS - 1}")
        games = self._games
        taken = self._cell_pairs[games, actions] != 0
        if taken.any():
            raise ValueError(f"taken point played in games {np.flatnonzero(taken)}")
        self._mine[games, actions] = 1
        lines = self._mine[games[:, None, None], _POINTS[actions]] & _ON_BOARD[actions]
        won = _five_through(lines)
        first = (self._plies & 1) == 0
        self._plies += 1
        done = won | (self._plies == _CELLS)
        self._cell_pairs.byteswap(inplace=True)
        if done.any():
            finished = np.flatnonzero(done)
            self._plies[finished] = 0
            self._planes[finished] = 0
        np.equal(self._cell_pairs, 0, out=self._legal)
        return Outcome(won.astype(np.float32), done, first)
