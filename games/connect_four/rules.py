"""Connect Four rules on a 6x7 numpy board (see `boardq_games.lines` for the board convention).

Row 0 is the top row, where PettingZoo's observation also puts it. An action is a
column; the piece lands in the lowest empty cell of that column.

Who holds four in a row is read on each side's pieces as a 49-bit Python int, the
usual Connect Four bitboard (a column a 7-bit group, its bottom cell first, the seventh
bit always empty, so that no line runs from the top of one column into the bottom of
the next): four shifts and masks, where summing every run of four cells of the numpy
board (`boardq_games.lines.line_winner`) took four times as long in the tree search's
moves.
"""

from __future__ import annotations

import numpy as np

from boardq_games.lines import LineRules

__all__ = ["RULES", "ConnectFourRules"]

ROWS, COLS = 6, 7
# Cell (row, col) of the board, row 0 at the top, is bit 7 * col + (5 - row).
_BIT = np.array(
    [[1 << (7 * col + ROWS - 1 - row) for col in range(COLS)] for row in range(ROWS)], np.int64
).reshape(-1)
_STEPS = (1, 7, 6, 8)  # up a column, along a row, and the two diagonals


def _bits(cells: np.ndarray, side: int) -> int:
    """The cells of `side` (+1 or -1) as a bitboard."""
    return int(_BIT[cells.reshape(-1) == side].sum())


def _four(bits: int) -> bool:
    """Whether a bitboard holds four in a row (a pair of pairs, each step's way)."""
    for step in _STEPS:
        pairs = bits & (bits >> step)
        if pairs & (pairs >> (2 * step)):
            return True
    return False


class ConnectFourRules(LineRules):
    """Four in a row on 6x7 with gravity; boards seen by the player to move (+1)."""

    rows = ROWS
    cols = COLS
    line_length = 4
    num_actions = COLS

    def compiled(self, pruned=None, pass_to_end: bool = False):
        """These rules compiled for the tree search (`boardq_games.fast_tree`).

        None with a pruning or a pass, which Connect Four has not.
        """
        if pruned is not None or pass_to_end:
            return None
        from boardq_games.fast_rules import CONNECT_FOUR
        from boardq_games.fast_tree import compiled_form

        return compiled_form(CONNECT_FOUR, COLS, (ROWS, COLS), np.int8, (ROWS, COLS, 2), COLS)

    def winner(self, board: np.ndarray) -> int:
        """+1 if the +1 pieces hold four in a row, -1 if the -1 pieces do, else 0.

        A hand-made board where both sides hold a line (impossible in play) reports +1,
        as `LineRules.winner` does.
        """
        cells = self.checked(board)
        if _four(_bits(cells, 1)):
            return 1
        return -1 if _four(_bits(cells, -1)) else 0

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
