"""Many Hex games stepped together in numpy, move for move like OpenSpiel's `hex` through Shimmy.

Each game keeps its cells (+1 the first player's stones, -1 the second's; one more
column off the board, so that every cell has six neighbours to look up) and a label
per stone, the same for the stones of a chain and numbered across the whole batch (a
stone's first label is its index in the batch plus one). Each label carries two bits:
its chain touches the mover's first edge (top for the first player, left for the
second), its far edge (bottom, right). A move relabels every game at once through one
table: the chains next to the new stone take its label and pass on their bits. A
chain with both bits has joined its edges: the game is won and restarts.
"""

from __future__ import annotations

import numpy as np

from boardq.gamebatch import Outcome

__all__ = ["HexVector"]


def _neighbour_table(size: int) -> np.ndarray:
    """Int [N * N, 6]: each cell's neighbours on the rhombus; N * N where there is none."""
    cells = size * size
    steps = ((0, -1), (0, 1), (-1, 0), (-1, 1), (1, -1), (1, 0))
    table = np.full((cells, 6), cells, np.int64)
    for cell in range(cells):
        row, col = divmod(cell, size)
        for k, (dr, dc) in enumerate(steps):
            if 0 <= row + dr < size and 0 <= col + dc < size:
                table[cell, k] = (row + dr) * size + col + dc
    return table


class HexVector:
    """`num_games` games of Hex, observed and stepped like `boardq_games.hex.env` (OpenSpiel's hex).

    The first player (x) moves first in every game and joins the top and bottom rows,
    the second the left and right columns. Observations are the planes of the player
    to move (its stones, the opponent's, ones if it is the second player); action `a`
    is the cell at row `a // N` from the top, column `a % N`.

    Args:
      num_games: the number of games stepped together.
      size: the board's side.
    """

    def __init__(self, num_games: int, size: int = 7):
        if num_games < 1:
            raise ValueError(f"num_games must be at least 1, got {num_games}")
        self.size = int(num_games)
        self.board_size = int(size)
        self._cells = cells = self.board_size * self.board_size
        self.obs_shape = (self.board_size, self.board_size, 3)
        self.num_actions = cells
        self._near = _neighbour_table(self.board_size)
        # Edge bits of each cell for each seat: 1 its first edge, 2 its far edge.
        rows, cols = np.divmod(np.arange(cells), self.board_size)
        last = self.board_size - 1
        self._edge_bits = np.stack([
            (rows == 0) * 1 + (rows == last) * 2,  # the first player: top, bottom
            (cols == 0) * 1 + (cols == last) * 2,  # the second: left, right
        ]).astype(np.int8)  # fmt: skip
        self._games = np.arange(self.size)
        self._board = np.zeros((self.size, cells + 1), np.int8)
        self._colour = np.ones(self.size, np.int8)  # +1 the first player to move
        self._labels = np.zeros((self.size, cells + 1), np.int64)
        self._bits = np.zeros(self._labels.size + 1, np.int8)  # by label
        self._planes = np.zeros((self.size, *self.obs_shape), np.int8)
        self._legal = np.ones((self.size, cells), bool)
        self.reset()

    def reset(self) -> None:
        """Every game back to the empty board, the first player to move."""
        self._restart(self._games)
        self._update()

    def observe(self) -> tuple[np.ndarray, np.ndarray]:
        """int8 planes [M, N, N, 3] and bool legal moves [M, N * N] of the players to move.

        The arrays belong to the batch and are overwritten by the next `step`.
        """
        return self._planes, self._legal

    def step(self, actions: np.ndarray) -> Outcome:
        """Puts the mover's stone on cell `actions[i]` of game i; games that are won restart.

        Raises:
          ValueError: an action is off the board or on a stone (no game changes then).
        """
        actions = np.asarray(actions, np.int64)
        if actions.shape != (self.size,):
            raise ValueError(f"expected {self.size} actions, got shape {actions.shape}")
        if actions.min() < 0 or actions.max() >= self._cells:
            raise ValueError(f"actions must be cells 0..{self._cells - 1}")
        taken = self._board[self._games, actions] != 0
        if taken.any():
            raise ValueError(f"taken cell played in games {np.flatnonzero(taken)}")
        games, colour = self._games, self._colour
        first = colour == 1
        near = self._near[actions]  # [M, 6]
        mine = self._board[games[:, None], near] == colour[:, None]
        joined = np.where(mine, self._labels[games[:, None], near], 0)
        seat = (~first).astype(np.int64)
        bits = self._edge_bits[seat, actions] | np.bitwise_or.reduce(self._bits[joined], axis=1)
        new = games * (self._cells + 1) + actions + 1  # the new stone's own label
        relabel = np.arange(len(self._bits))
        relabel[joined[mine]] = np.broadcast_to(new[:, None], near.shape)[mine]
        self._labels = relabel[self._labels]
        self._labels[games, actions] = new
        self._bits[new] = bits
        self._board[games, actions] = colour
        won = bits == 3
        self._colour = -colour
        if won.any():
            self._restart(np.flatnonzero(won))
        self._update()
        return Outcome(won.astype(np.float32), won, first)

    def _restart(self, games: np.ndarray) -> None:
        self._board[games] = 0
        self._labels[games] = 0
        self._colour[games] = 1

    def _update(self) -> None:
        """The legal moves and the planes of the positions now."""
        stones = self._board[:, : self._cells]
        np.equal(stones, 0, out=self._legal)
        shape = (self.size, self.board_size, self.board_size)
        planes = self._planes
        planes[..., 0] = (stones == self._colour[:, None]).reshape(shape)
        planes[..., 1] = (stones == -self._colour[:, None]).reshape(shape)
        planes[..., 2] = (self._colour == -1)[:, None, None]
