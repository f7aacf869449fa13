"""Tic-tac-toe rules on a 3x3 numpy board (see `boardq_games.lines` for the board convention).

PettingZoo's tic-tac-toe numbers its cells down the columns::

    0 | 3 | 6
    1 | 4 | 7
    2 | 5 | 8

so action `a` is the cell at row `a % 3`, column `a // 3`. Its observation is the flat
cell list reshaped to (3, 3), so `planes[i, j]` is cell `3 * i + j`, i.e. column `i`,
row `j`: the planes are the transpose of the display.
"""

from __future__ import annotations

import numpy as np

from boardq_games.lines import LineRules

__all__ = ["RULES", "TicTacToeRules"]


class TicTacToeRules(LineRules):
    """Three in a row on 3x3; boards seen by the player to move (+1)."""

    rows = 3
    cols = 3
    line_length = 3
    num_actions = 9

    def board_from_planes(self, planes: np.ndarray, legal: np.ndarray | None = None) -> np.ndarray:
        """The board (display orientation, +1 for the mover) of the mover's planes.

        Args:
            planes: int array (3, 3, 2); channel 0 holds the mover's pieces, channel 1
                the opponent's, in PettingZoo's column-major cell layout.
            legal: not needed (the planes show the whole position).
        """
        signed = self.signed_planes(planes, (self.cols, self.rows, 2))
        return np.ascontiguousarray(signed.T)

    def planes_from_board(self, board: np.ndarray) -> np.ndarray:
        """The planes PettingZoo gives the mover: the inverse of `board_from_planes`."""
        return self.two_planes(self.checked(board).T)

    def action_cell(self, action: int) -> tuple[int, int]:
        """The (row, col) display cell of a PettingZoo action (row 0 at the top)."""
        action = self.check_action(action)
        return action % self.rows, action // self.rows

    def cell_action(self, row: int, col: int) -> int:
        """The PettingZoo action of a display cell; the inverse of `action_cell`."""
        if not (0 <= row < self.rows and 0 <= col < self.cols):
            raise ValueError(f"cell {(row, col)} is off the board")
        return col * self.rows + row

    def legal_mask(self, board: np.ndarray) -> np.ndarray:
        """Bool (9,) by action: the empty cells (like PettingZoo, blind to a finished game)."""
        return (self.checked(board).T == 0).reshape(self.num_actions)

    def apply(self, board: np.ndarray, action: int) -> np.ndarray:
        """Plays `action` for the mover (+1); returns the board seen by the next mover.

        Raises:
            ValueError: the action is out of range or its cell is taken.
        """
        cells = self.checked(board)
        row, col = self.action_cell(action)
        if cells[row, col] != 0:
            raise ValueError(f"action {action}: cell {(row, col)} is taken")
        after = cells.copy()
        after[row, col] = 1
        return -after


RULES = TicTacToeRules()
