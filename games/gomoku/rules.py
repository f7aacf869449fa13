"""Gomoku rules on a 9x9 numpy board (see `boardq_games.lines` for the board convention).

OpenSpiel's `gomoku(size=9)`: five or more in a row wins (an overline counts), a full
board is a draw. Action `a` is the point at row `a // 9` (row 0 at the top), column
`a % 9`, as in OpenSpiel's tensor.
"""

from __future__ import annotations

import numpy as np

from boardq_games.lines import LineRules

__all__ = ["RULES", "SIZE", "GomokuRules"]

SIZE = 9


class GomokuRules(LineRules):
    """Five in a row on 9x9; boards seen by the player to move (+1)."""

    rows = SIZE
    cols = SIZE
    line_length = 5
    num_actions = SIZE * SIZE

    def board_from_planes(self, planes: np.ndarray, legal: np.ndarray | None = None) -> np.ndarray:
        """The board (+1 for the mover) of the mover's (9, 9, 2) planes, row 0 at the top.

        The planes show the whole position: `legal` is not needed.
        """
        return self.signed_planes(planes, (self.rows, self.cols, 2))

    def planes_from_board(self, board: np.ndarray) -> np.ndarray:
        """The mover's planes of a board: the inverse of `board_from_planes`."""
        return self.two_planes(self.checked(board))

    def action_cell(self, action: int) -> tuple[int, int]:
        """The (row, col) of an action, row 0 at the top."""
        return divmod(self.check_action(action), self.cols)

    def legal_mask(self, board: np.ndarray) -> np.ndarray:
        """Bool (81,) by action: the empty points (blind to a finished game)."""
        return (self.checked(board) == 0).reshape(self.num_actions)

    def apply(self, board: np.ndarray, action: int) -> np.ndarray:
        """Places a stone of the mover (+1); returns the board seen by the next mover.

        Raises:
            ValueError: the action is out of range or its point is taken.
        """
        cells = self.checked(board)
        row, col = self.action_cell(action)
        if cells[row, col] != 0:
            raise ValueError(f"action {action}: point {(row, col)} is taken")
        after = cells.copy()
        after[row, col] = 1
        return -after


RULES = GomokuRules()
