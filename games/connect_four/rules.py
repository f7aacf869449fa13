"""Connect Four rules on a 6x7 numpy board (see `boardq_games.lines` for the board convention).

Row 0 is the top row, where PettingZoo's observation also puts it. An action is a
column; the piece lands in the lowest empty cell of that column.
"""

from __future__ import annotations

import numpy as np

from boardq_games.lines import LineRules

__all__ = ["RULES", "ConnectFourRules"]


class ConnectFourRules(LineRules):
    """Four in a row on 6x7 with gravity; boards seen by the player to move (+1)."""

    rows = 6
    cols = 7
    line_length = 4
    num_actions = 7

    def board_from_planes(self, planes: np.ndarray, legal: np.ndarray | None = None) -> np.ndarray:
        """The board (+1 for the mover) of the mover's (6, 7, 2) planes, row 0 at the top.

        The planes show the whole position: `legal` is not needed.
        """
        return self.signed_planes(planes, (self.rows, self.cols, 2))

    def planes_from_board(self, board: np.ndarray) -> np.ndarray:
        """The planes PettingZoo gives the mover: the inverse of `board_from_planes`."""
        return self.two_planes(self.checked(board))

    def landing_row(self, board: np.ndarray, action: int) -> int:
        """The display row where a piece dropped in column `action` lands.

        Raises:
            ValueError: the column is out of range or full.
        """
        cells = self.checked(board)
        action = self.check_action(action)
        empty_rows = np.flatnonzero(cells[:, action] == 0)
        if empty_rows.size == 0:
            raise ValueError(f"action {action}: the column is full")
        return int(empty_rows[-1])

    def legal_mask(self, board: np.ndarray) -> np.ndarray:
        """Bool (7,) by action: the columns whose top cell is empty."""
        return self.checked(board)[0] == 0

    def apply(self, board: np.ndarray, action: int) -> np.ndarray:
        """Drops a piece of the mover (+1) in column `action`.

        Returns the board seen by the next mover.

        Raises:
            ValueError: the column is out of range or full.
        """
        row = self.landing_row(board, action)
        after = self.checked(board).copy()
        after[row, int(action)] = 1
        return -after


RULES = ConnectFourRules()
