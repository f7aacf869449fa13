"""Many tic-tac-toe games stepped together in numpy, move for move like PettingZoo's.

Tic-tac-toe has only 3**9 boards, so every answer a step needs is looked up in tables
built once: a board is a base-3 number seen by the player to move (cell digit 0 empty,
1 the mover's piece, 2 the opponent's; digit `a` is PettingZoo's cell `a`), and
`(board, action)` indexes the next board, the mover's reward and whether the game
ended. A step is a handful of gathers over the batch, with no loop over games.
"""

from __future__ import annotations

from functools import cache
from typing import NamedTuple

import numpy as np

from boardq.gamebatch import Outcome

__all__ = ["TicTacToeVector"]

_CELLS = 9
_BOARDS = 3**_CELLS
# PettingZoo's winning lines, as cell numbers (its cells run down the columns).
_LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))


class _Tables(NamedTuple):
    """Lookups by board b (the mover's view) and by move index b * 9 + action.

    Attributes:
      planes: int8 [3**9, 3, 3, 2], the mover's observation of board b.
      legal: bool [3**9, 9], the empty cells of board b.
      first: bool [3**9], the first player is to move (an even number of pieces).
      after: int32 [3**9 * 9], the board the next mover sees; 0 (the empty board)
        where the move ends the game, so finished games restart by the same gather.
        Occupied cells map to 3**9, out of range, so an illegal move raises
        IndexError in the planes gather instead of corrupting a game.
      reward: float32 [3**9 * 9], the mover's reward: 1 where the move wins.
      done: bool [3**9 * 9], the move ends the game (a win or the last empty cell).
    """

    planes: np.ndarray
    legal: np.ndarray
    first: np.ndarray
    after: np.ndarray
    reward: np.ndarray
    done: np.ndarray


@cache
def _tables() -> _Tables:
    """Builds the lookup tables (a few milliseconds; shared by every batch)."""
    place = 3 ** np.arange(_CELLS)
    digits = (np.arange(_BOARDS)[:, None] // place) % 3
    mine, theirs, empty = digits == 1, digits == 2, digits == 0
    planes = np.stack([mine, theirs], axis=-1).astype(np.int8).reshape(_BOARDS, 3, 3, 2)
    first = mine.sum(axis=1) == theirs.sum(axis=1)
    # The next mover sees the pieces swapped (digits 1 <-> 2), plus the new one as a 2.
    swapped = (np.where(empty, 0, 3 - digits) * place).sum(axis=1)
    after = swapped[:, None] + 2 * place[None, :]
    # Whether the mover holds a full line once its piece is in cell a.
    bits = mine.astype(np.int64) @ (1 << np.arange(_CELLS))
    moved = bits[:, None] | (1 << np.arange(_CELLS))[None, :]
    line_masks = [sum(1 << cell for cell in line) for line in _LINES]
    won = np.zeros(moved.shape, bool)
    for line in line_masks:
        won |= (moved & line) == line
    filled = (empty.sum(axis=1) == 1)[:, None] & empty
    done = (won | filled) & empty
    after = np.where(done, 0, after)
    after = np.where(empty, after, _BOARDS)
    return _Tables(
        planes=planes,
        legal=empty,
        first=first,
        after=after.astype(np.int32).ravel(),
        reward=(won & empty).astype(np.float32).ravel(),
        done=done.ravel(),
    )


class TicTacToeVector:
    """`num_games` tic-tac-toe games, observed and stepped like PettingZoo's tictactoe-v3.

    `player_1` (PettingZoo's first agent) moves first in every game. Observations are
    the planes of the player to move: channel 0 its pieces, channel 1 the opponent's,
    plane cell (i, j) being PettingZoo's cell (and action) 3 * i + j.

    Args:
      num_games: the number of games stepped together.
    """

    obs_shape = (3, 3, 2)
    num_actions = _CELLS

    def __init__(self, num_games: int):
        if num_games < 1:
            raise ValueError(f"num_games must be at least 1, got {num_games}")
        self.size = int(num_games)
        self._tables = _tables()
        self._boards = np.zeros(self.size, np.int32)
        self._planes = np.zeros((self.size, *self.obs_shape), np.int8)
        self._legal = np.zeros((self.size, self.num_actions), bool)
        self.reset()

    def reset(self) -> None:
        """Every game back to the empty board, the first player to move."""
        self._boards[:] = 0
        self._observe_boards()

    def observe(self) -> tuple[np.ndarray, np.ndarray]:
        """int8 planes [M, 3, 3, 2] and bool legal moves [M, 9] of the players to move.

        The arrays belong to the batch and are overwritten by the next `step`.
        """
        return self._planes, self._legal

    def step(self, actions: np.ndarray) -> Outcome:
        """Plays `actions[i]` in game i; games that end restart.

        Args:
          actions: int [M], a legal move (an empty cell) in each game.

        Raises:
          IndexError: an action plays a taken cell (no game changes then).
        """
        tables = self._tables
        moves = self._boards * self.num_actions + actions
        after = tables.after[moves]
        first = tables.first[self._boards]
        # The planes gather goes first: it raises on an illegal move's out-of-range
        # board before any state changes (mode="raise" buffers `out`).
        np.take(tables.planes, after, axis=0, out=self._planes)
        np.take(tables.legal, after, axis=0, out=self._legal)
        self._boards = after
        return Outcome(tables.reward[moves], tables.done[moves], first)

    def _observe_boards(self) -> None:
        np.take(self._tables.planes, self._boards, axis=0, out=self._planes)
        np.take(self._tables.legal, self._boards, axis=0, out=self._legal)
