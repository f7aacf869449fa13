"""Hex rules as OpenSpiel's `hex` plays them (no swap), on positions seen by the player to move.

The board is an N x N rhombus: each row sits half a cell right of the one above, so
cell (r, c) touches (r, c - 1), (r, c + 1), (r - 1, c), (r - 1, c + 1), (r + 1, c - 1)
and (r + 1, c). The first player (OpenSpiel's x) joins the top and bottom rows, the
second (o) the left and right columns; the first chain across wins, and there are no
draws.

A position is an int8 array [N * N + 1]:

- `[0, N * N)`: the cells, row by row from the top left (action `a` is cell `a`): +1
  the mover's stones, -1 the opponent's, 0 empty;
- `[N * N]` (`SEAT`): which edges the mover joins: 0 top and bottom (the first
  player), 1 left and right.

The planes show all of it (their third plane is the seat).
"""

from __future__ import annotations

import numpy as np

__all__ = ["SEAT", "HexRules"]

SEAT = -1
"""Where a position keeps the mover's seat."""


def _neighbours(size: int) -> tuple[tuple[int, ...], ...]:
    """The cells next to each cell on the rhombus."""
    steps = ((0, -1), (0, 1), (-1, 0), (-1, 1), (1, -1), (1, 0))
    table = []
    for cell in range(size * size):
        row, col = divmod(cell, size)
        near = [(row + dr, col + dc) for dr, dc in steps]
        table.append(tuple(r * size + c for r, c in near if 0 <= r < size and 0 <= c < size))
    return tuple(table)


class HexRules:
    """Hex on an N x N rhombus, as OpenSpiel's `hex(board_size=N)` plays it (see the module).

    Args:
        size: the board's side (boardq's Hex is 7).
    """

    def __init__(self, size: int) -> None:
        if int(size) != size or size < 1:
            raise ValueError(f"a Hex board is at least 1 x 1, got size {size!r}")
        self.size = int(size)
        self.cells = self.size * self.size
        self.num_actions = self.cells
        self._near = _neighbours(self.size)
        # The edges each seat joins: (start cells, the flag of the cells at the far edge).
        top = tuple(range(self.size))
        left = tuple(range(0, self.cells, self.size))
        bottom = [False] * self.cells
        right = [False] * self.cells
        for k in range(self.size):
            bottom[self.cells - self.size + k] = True
            right[k * self.size + self.size - 1] = True
        self._edges = ((top, tuple(bottom)), (left, tuple(right)))

    def compiled(self, pruned=None, pass_to_end: bool = False):
        """These rules compiled for the tree search (`boardq_games.fast_tree`).

        None with a pruning or a pass, which Hex has not.
        """
        if pruned is not None or pass_to_end:
            return None
        from boardq_games.fast_rules import HEX
        from boardq_games.fast_tree import compiled_form

        n = self.size
        return compiled_form(HEX, n, (self.cells + 1,), np.int8, (n, n, 3), self.cells)

    # -- positions ------------------------------------------------------------------
    def start(self) -> np.ndarray:
        """The empty board, the first player to move."""
        return np.zeros(self.cells + 1, np.int8)

    def checked(self, position: np.ndarray) -> np.ndarray:
        """The position as int8, or ValueError if it is not one of this board."""
        position = np.asarray(position)
        if position.shape != (self.cells + 1,):
            raise ValueError(
                f"expected a {self.size}x{self.size} Hex position of shape {(self.cells + 1,)}, "
                f"got {position.shape}"
            )
        return position.astype(np.int8, copy=False)

    def board_from_planes(self, planes: np.ndarray, legal: np.ndarray | None = None) -> np.ndarray:
        """The position of the mover's planes (its stones, the opponent's, its seat).

        `legal` is not needed: the planes show the whole position.

        Raises:
            ValueError: the planes have the wrong shape.
        """
        planes = np.asarray(planes)
        if planes.shape != (self.size, self.size, 3):
            raise ValueError(
                f"expected Hex planes of shape {(self.size, self.size, 3)}, got {planes.shape}"
            )
        position = self.start()
        position[: self.cells] = (planes[..., 0] != 0).ravel().astype(np.int8) - (
            planes[..., 1] != 0
        ).ravel()
        position[SEAT] = int(planes[0, 0, 2] != 0)
        return position

    def planes_from_board(self, position: np.ndarray) -> np.ndarray:
        """The mover's planes of a position: the inverse of `board_from_planes`."""
        position = self.checked(position)
        cells = position[: self.cells].reshape(self.size, self.size)
        planes = np.empty((self.size, self.size, 3), np.int8)
        planes[..., 0] = cells == 1
        planes[..., 1] = cells == -1
        planes[..., 2] = position[SEAT]
        return planes

    def key(self, position: np.ndarray) -> bytes:
        """A hashable key of the position, for memo tables."""
        return self.checked(position).tobytes()

    # -- moves ----------------------------------------------------------------------
    def legal_mask(self, position: np.ndarray) -> np.ndarray:
        """Bool [N * N]: the empty cells (like the line games, blind to a finished game)."""
        return self.checked(position)[: self.cells] == 0

    def apply(self, position: np.ndarray, action: int) -> np.ndarray:
        """Plays `action` for the mover; returns the position seen by the next mover.

        Raises:
            ValueError: the action is off the board or its cell is taken.
        """
        position = self.checked(position)
        action = int(action)
        if not 0 <= action < self.cells:
            raise ValueError(f"action {action} is outside [0, {self.cells})")
        if position[action] != 0:
            raise ValueError(f"action {action} is not legal here: taken")
        after = -position
        after[action] = -1
        after[SEAT] = 1 - position[SEAT]
        return after

    # -- the end --------------------------------------------------------------------
    def joined(self, position: np.ndarray, side: int) -> bool:
        """Whether `side`'s stones (+1 the mover, -1 the opponent) join its two edges."""
        position = self.checked(position)
        cells = position[: self.cells].tolist()
        seat = int(position[SEAT]) if side == 1 else 1 - int(position[SEAT])
        start, far = self._edges[seat]
        frontier = [cell for cell in start if cells[cell] == side]
        reached = set(frontier)
        near = self._near
        while frontier:
            cell = frontier.pop()
            if far[cell]:
                return True
            for n in near[cell]:
                if cells[n] == side and n not in reached:
                    reached.add(n)
                    frontier.append(n)
        return False

    def winner(self, position: np.ndarray) -> int:
        """+1 if the mover's stones join its edges, -1 if the opponent's do; else 0."""
        if self.joined(position, -1):
            return -1  # in play, only the last move can have won
        return 1 if self.joined(position, 1) else 0

    def is_full(self, position: np.ndarray) -> bool:
        """Whether the game ended without a winner: never in Hex."""
        self.checked(position)
        return False

    def board(self, position: np.ndarray) -> np.ndarray:
        """The cells as the text board draws them: int8 [N, N], +1 the first player's."""
        position = self.checked(position)
        first = 1 if position[SEAT] == 0 else -1
        return (first * position[: self.cells]).reshape(self.size, self.size).astype(np.int8)
