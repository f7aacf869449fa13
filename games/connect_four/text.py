"""Connect Four for people: columns numbered 1-7 from the left, shown under the board."""

from __future__ import annotations

import numpy as np

from boardq.boardtext import WHOLE_NUMBER, Line, MoveText, Piece, Role, piece_text, shown
from boardq_games.connect_four.rules import RULES
from boardq_games.lines import winning_cells

__all__ = ["ConnectFourText"]


class ConnectFourText(MoveText):
    """Connect Four: action `a` is column `a + 1`, counted from the left."""

    num_actions = RULES.num_actions
    move_help = (
        "Type a move as a column number 1-7, as shown under the board (1 is the left\n"
        "column); your piece drops to the lowest empty cell of that column."
    )

    def __init__(self) -> None:
        self.action_order = tuple(range(self.num_actions))
        self.labels = {self.label(action): action for action in range(self.num_actions)}

    def mark(self, seat: int, ascii_only: bool = False) -> str:
        """A filled disc (X) for the first player, a hollow one (O) for the second."""
        return ("XO" if ascii_only else "●○")[seat]

    def label(self, action: int) -> str:
        """The column number of `action`, 1-7 from the left."""
        return str(int(action) + 1)

    def describe(self, action: int) -> str:
        """E.g. "column 4"."""
        return f"column {self.label(action)}"

    def not_legal(self, action: int) -> str:
        return f"{self.describe(action)} is full"

    def not_a_move(self, stripped: str) -> str:
        if not stripped:
            return "no move typed: type a column number 1-7"
        if stripped.isascii() and WHOLE_NUMBER.fullmatch(stripped):
            return f"there is no column {stripped}: the columns are numbered 1-7"
        return f"{shown(stripped)} is not a move: type a column number 1-7"

    def draw(
        self, board: np.ndarray, last: int | None = None, ascii_only: bool = False
    ) -> list[Line]:
        """The board in a frame, the column numbers under it.

        Args:
          board: int (6, 7), +1 first player, -1 second, 0 empty; row 0 at the top.
          last: the column played last; its top piece is drawn in brackets.
          ascii_only: draw with ASCII characters only.

        Returns:
          Lines of pieces; `plain` gives text such as::

            | .  .  X [O] .  .  . |
            +---------------------+
              1  2  3  4  5  6  7

          A line of four that won is drawn in parentheses, `(X)`.
        """
        board = np.asarray(board)
        won = winning_cells(board, RULES.line_length)
        side, rule, left, right = ("|", "-", "+", "+") if ascii_only else ("│", "─", "└", "┘")
        empty = "." if ascii_only else "·"
        last_row = self._top_row(board, last)
        lines: list[Line] = []
        for row in range(RULES.rows):
            line: Line = [Piece(side, Role.FRAME)]
            for col in range(RULES.cols):
                value = int(board[row, col])
                is_last = col == last and row == last_row
                if value == 0:
                    line.append(Piece(f" {empty} ", Role.EMPTY))
                else:
                    mark = self.mark(0 if value > 0 else 1, ascii_only)
                    text = piece_text(mark, is_last, won[row, col])
                    role = Role.FIRST if value > 0 else Role.SECOND
                    line.append(Piece(text, role, is_last, bool(won[row, col])))
            line.append(Piece(side, Role.FRAME))
            lines.append(line)
        lines.append([Piece(left + rule * (3 * RULES.cols) + right, Role.FRAME)])
        numbers = "".join(f" {self.label(a)} " for a in range(self.num_actions))
        lines.append([Piece(" " + numbers, Role.LABEL)])
        return lines

    @staticmethod
    def _top_row(board: np.ndarray, column: int | None) -> int | None:
        if column is None:
            return None
        filled = np.flatnonzero(board[:, column] != 0)
        return int(filled[0]) if filled.size else None
