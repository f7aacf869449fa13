"""Tic-tac-toe for people: cells numbered 1-9 row by row, or coordinates a1..c3.

PettingZoo numbers its actions down the columns; the labels here follow reading order.
"""

from __future__ import annotations

import re

import numpy as np

from boardq.boardtext import WHOLE_NUMBER, Line, MoveText, Piece, Role, piece_text, shown
from boardq_games.lines import winning_cells
from boardq_games.tictactoe.rules import RULES

__all__ = ["TicTacToeText"]


class TicTacToeText(MoveText):
    """Tic-tac-toe: cells numbered 1-9 row by row, or coordinates a1..c3."""

    _COLUMN_LETTERS = "abc"
    num_actions = RULES.num_actions
    move_help = (
        "Type a move as a cell number 1-9, as shown in the empty cells (numbered row by\n"
        "row from the top left), or as a coordinate such as b2: the column letter a-c\n"
        "(left to right), then the row number 1-3 (top to bottom)."
    )

    def __init__(self) -> None:
        self.action_order = tuple(sorted(range(self.num_actions), key=lambda a: int(self.label(a))))
        self.labels: dict[str, int] = {}
        for action in range(self.num_actions):
            self.labels[self.label(action)] = action
            self.labels[self.coordinate(action)] = action

    def mark(self, seat: int, ascii_only: bool = False) -> str:
        """X for the first player, O for the second."""
        return "XO"[seat]

    def label(self, action: int) -> str:
        """The cell number of `action`, 1-9 in reading order."""
        row, col = RULES.action_cell(action)
        return str(row * RULES.cols + col + 1)

    def coordinate(self, action: int) -> str:
        """The coordinate of `action`: column letter, then row number (e.g. "b2")."""
        row, col = RULES.action_cell(action)
        return f"{self._COLUMN_LETTERS[col]}{row + 1}"

    def describe(self, action: int) -> str:
        """The cell number and coordinate, e.g. "5 (b2)"."""
        return f"{self.label(action)} ({self.coordinate(action)})"

    def not_legal(self, action: int) -> str:
        return f"cell {self.describe(action)} is taken"

    def not_a_move(self, stripped: str) -> str:
        if not stripped:
            return "no move typed: type a cell number 1-9 or a coordinate such as b2"
        if stripped.isascii() and WHOLE_NUMBER.fullmatch(stripped):
            return f"there is no cell {stripped}: the cells are numbered 1-9"
        if stripped.isascii() and re.fullmatch(r"[a-z]-?[0-9]+", stripped.lower()):
            return f"there is no cell {stripped}: columns are a-c, rows 1-3"
        return f"{shown(stripped)} is not a move: type a cell number 1-9 or a coordinate such as b2"

    def draw(
        self, board: np.ndarray, last: int | None = None, ascii_only: bool = False
    ) -> list[Line]:
        """The grid with column letters above, row numbers left, numbers in empty cells.

        Args:
          board: int (3, 3), +1 first player, -1 second, 0 empty.
          last: the action played last, drawn in brackets; None for none.
          ascii_only: draw with ASCII characters only.

        Returns:
          Lines of pieces; `plain` gives text such as::

                 a   b   c
             1   X | 2 | 3
                ---+---+---

          A line of three that won is drawn in parentheses, `(X)`.
        """
        board = np.asarray(board)
        won = winning_cells(board, RULES.line_length)
        bar, rule, cross = ("|", "-", "+") if ascii_only else ("│", "─", "┼")
        header = "     " + "   ".join(self._COLUMN_LETTERS)
        lines: list[Line] = [[Piece(header, Role.LABEL)]]
        separator = [Piece("    " + cross.join([rule * 3] * RULES.cols), Role.FRAME)]
        for row in range(RULES.rows):
            if row:
                lines.append(list(separator))
            line: Line = [Piece(f" {row + 1}  ", Role.LABEL)]
            for col in range(RULES.cols):
                if col:
                    line.append(Piece(bar, Role.FRAME))
                action = RULES.cell_action(row, col)
                cell = self._cell(int(board[row, col]), action, action == last, won[row, col])
                line.append(cell)
            lines.append(line)
        return lines

    def _cell(self, value: int, action: int, is_last: bool, won: bool) -> Piece:
        if value == 0:
            return Piece(f" {self.label(action)} ", Role.EMPTY)
        seat = 0 if value > 0 else 1
        text = piece_text(self.mark(seat), is_last, won)
        return Piece(text, Role.FIRST if seat == 0 else Role.SECOND, is_last, bool(won))
