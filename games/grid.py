"""Text boards of games played on the points of a grid (Othello, Gomoku, Hex, Go).

A point is named by its column letter and row number ("d3"), as each game's players
name them; a pass, where the game has one, is "pass". Every game here numbers its
actions row by row from the top-left point, `action = row * cols + col` (row 0 at the
top), with the pass after the points. Typed moves are matched without regard to case
("D4" and "d4" are the same point); boards are drawn with the case the game uses.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from boardq.boardtext import Line, MoveText, Piece, Role, piece_text, shown

__all__ = ["Grid", "GridText"]


@dataclass(frozen=True)
class Grid:
    """How a game's grid is named and drawn.

    Attributes:
        rows, cols: the grid's size.
        letters: the column letters, left to right (Go skips I).
        bottom_up: rows are numbered from the bottom (Go, Gomoku), else from the top.
        pass_action: the action that passes, or None.
        marks: the first and second player's pieces; `ascii_marks` in ASCII.
        empty: an empty point; `ascii_empty` in ASCII.
        shift: each row is drawn half a point right of the one above (Hex's rhombus).
    """

    rows: int
    cols: int
    letters: str
    bottom_up: bool = False
    pass_action: int | None = None
    marks: tuple[str, str] = ("●", "○")
    ascii_marks: tuple[str, str] = ("X", "O")
    empty: str = "·"
    ascii_empty: str = "."
    shift: bool = False

    @property
    def num_actions(self) -> int:
        return self.rows * self.cols + (self.pass_action is not None)

    def row_number(self, row: int) -> int:
        """The number people call display row `row` (0 at the top)."""
        return self.rows - row if self.bottom_up else row + 1


class GridText(MoveText):
    """A grid game's text board.

    Args:
        grid: the grid.
        move_help: how to type a move (lines of at most 80 characters).
        example: a point to name in messages, e.g. "d3".
        winning: the cells that won the game on a board (bool, the board's shape; all
          False before the end), drawn in parentheses; None: the game has no such cells.
    """

    def __init__(
        self,
        grid: Grid,
        move_help: str,
        example: str,
        winning: Callable[[np.ndarray], np.ndarray] | None = None,
    ) -> None:
        self.grid = grid
        self.winning = winning
        self.num_actions = grid.num_actions
        self.move_help = move_help
        self.example = example
        self.action_order = tuple(range(self.num_actions))
        self.labels = {self.label(a).lower(): a for a in range(self.num_actions)}

    def cell(self, action: int) -> tuple[int, int] | None:
        """The (row, col) of a point's action (row 0 at the top); None for a pass."""
        action = int(action)
        if action == self.grid.pass_action:
            return None
        return divmod(action, self.grid.cols)

    def mark(self, seat: int, ascii_only: bool = False) -> str:
        """The first player's piece or the second's."""
        return (self.grid.ascii_marks if ascii_only else self.grid.marks)[seat]

    def label(self, action: int) -> str:
        """The point's name ("d3"), or "pass"."""
        cell = self.cell(action)
        if cell is None:
            return "pass"
        return f"{self.grid.letters[cell[1]]}{self.grid.row_number(cell[0])}"

    def describe(self, action: int) -> str:
        """The point's name, or "pass"."""
        return self.label(action)

    def not_legal(self, action: int) -> str:
        if self.cell(action) is None:
            return "you cannot pass while you have a move"
        return f"{self.label(action)} is not a legal move here"

    def not_a_move(self, stripped: str) -> str:
        grid = self.grid
        passing = ", or pass" if grid.pass_action is not None else ""
        if not stripped:
            return f"no move typed: type a point such as {self.example}{passing}"
        if stripped.isascii() and re.fullmatch(r"[a-z]-?[0-9]+", stripped.lower()):
            letters = f"{grid.letters[0]}-{grid.letters[-1]}"
            span = range(ord(grid.letters[0]), ord(grid.letters[-1]) + 1)
            skipped = [chr(c) for c in span if chr(c) not in grid.letters]
            letters += f" (no {', '.join(skipped)})" if skipped else ""
            return f"there is no point {stripped}: columns are {letters}, rows 1-{grid.rows}"
        return f"{shown(stripped)} is not a move: type a point such as {self.example}{passing}"

    def draw(
        self, board: np.ndarray, last: int | None = None, ascii_only: bool = False
    ) -> list[Line]:
        """The grid with column letters above and below, row numbers at both sides.

        Args:
            board: int (rows, cols): +1 the first player's pieces, -1 the second's.
            last: the action played last; its point is drawn in brackets (and the
                stones that won, if the game has such, in parentheses).
            ascii_only: draw with ASCII characters only.

        Returns:
            Lines of pieces; `plain` gives text such as::

                    a  b  c  d
                 1  ·  ·  ·  ·   1
                 2  ·  ● [○] ·   2
        """
        grid = self.grid
        board = np.asarray(board)
        width = len(str(grid.rows))
        last_cell = None if last is None else self.cell(last)
        won = self.winning(board) if self.winning else np.zeros(board.shape, bool)
        letters = "".join(f" {letter} " for letter in grid.letters)
        lines: list[Line] = [[Piece(" " * (width + 2) + letters, Role.LABEL)]]
        for row in range(grid.rows):
            indent = " " * ((3 * row) // 2 if grid.shift else 0)
            number = grid.row_number(row)
            line: Line = [Piece(f" {number:>{width}} {indent}", Role.LABEL)]
            for col in range(grid.cols):
                is_last = (row, col) == last_cell
                line.append(self._point(int(board[row, col]), is_last, won[row, col], ascii_only))
            line.append(Piece(f"  {number}", Role.LABEL))
            lines.append(line)
        indent = " " * ((3 * (grid.rows - 1)) // 2 if grid.shift else 0)
        lines.append([Piece(" " * (width + 2) + indent + letters, Role.LABEL)])
        return lines

    def _point(self, value: int, is_last: bool, won: bool, ascii_only: bool) -> Piece:
        if value == 0:
            empty = self.grid.ascii_empty if ascii_only else self.grid.empty
            return Piece(f" {empty} ", Role.EMPTY)
        seat = 0 if value > 0 else 1
        text = piece_text(self.mark(seat, ascii_only), is_last, won)
        return Piece(text, Role.FIRST if seat == 0 else Role.SECOND, is_last, bool(won))
