"""Where each move is clicked: a game's board geometry, read from its text board.

The browser board (`boardq.web.server`) draws the same board the terminal does, so its
geometry comes from the game's own drawing (`Game.text.draw`) rather than from a
table per game: on a board full of pieces, the piece the drawing marks as the last
move of action `a` is the cell `a` is played on. Rows are the drawing's lines of
cells, columns the order of the cells in a line, and how far each line is indented
(Hex's rhombus) is the row's shift. An action whose marked cell moves when the top row
is emptied lands where the pieces below it stop (Connect Four): it is played on its
whole column. An action the drawing never marks (a pass) is a button beside the board. The pieces
a drawing marks as the line that won (`Piece.win`) are the cells the page rings.

Games whose position is not a grid of pieces (those built on the fly from OpenSpiel or
PettingZoo, drawn as the game's own text) get a text layout: the drawing, and a button
per move.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from boardq.boardtext import BoardText, Line, Role, plain

__all__ = ["BoardLayout", "ActionPlace", "marked_cell", "winning_cells"]

_CELL_ROLES = (Role.EMPTY, Role.FIRST, Role.SECOND)

CELL, COLUMN, BUTTON = "cell", "column", "button"


@dataclass(frozen=True)
class ActionPlace:
    """Where an action is clicked.

    Attributes:
      action: the action.
      label: what the board calls it (`BoardText.label`).
      kind: "cell" (one cell), "column" (any cell of a column) or "button" (no cell:
        a pass, or every move of a game drawn as text).
      cells: the (row, col) cells that play it.
    """

    action: int
    label: str
    kind: str
    cells: tuple[tuple[int, int], ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "action": self.action,
            "label": self.label,
            "kind": self.kind,
            "cells": [list(cell) for cell in self.cells],
        }


def _cell_rows(lines: list[Line]) -> list[list[tuple[int, Any]]]:
    """For each line with cells: (character offset, piece) of each cell in it."""
    rows = []
    for line in lines:
        offset, cells = 0, []
        for piece in line:
            if piece.role in _CELL_ROLES:
                cells.append((offset, piece))
            offset += len(piece.text)
        if cells:
            rows.append(cells)
    return rows


def marked_cell(lines: list[Line]) -> tuple[int, int] | None:
    """The (row, col) of the piece a drawing marks as the last move, if any."""
    for r, cells in enumerate(_cell_rows(lines)):
        for c, (_, piece) in enumerate(cells):
            if piece.last:
                return r, c
    return None


def winning_cells(lines: list[Line]) -> list[tuple[int, int]]:
    """The (row, col) of every piece a drawing marks as part of the line that won."""
    return [
        (r, c)
        for r, cells in enumerate(_cell_rows(lines))
        for c, (_, piece) in enumerate(cells)
        if piece.win
    ]


def _axes(lines: list[Line], cols: int) -> tuple[list[str] | None, list[str] | None]:
    """Column labels (the first line of labels alone with one per column) and row labels."""
    col_labels = None
    for line in lines:
        if all(piece.role == Role.LABEL for piece in line):
            words = plain([line]).split()
            if len(words) == cols:
                col_labels = words
                break
    row_labels: list[str] = []
    for line in lines:
        if any(piece.role in _CELL_ROLES for piece in line):
            head = ""
            for piece in line:
                if piece.role in _CELL_ROLES:
                    break
                if piece.role == Role.LABEL:
                    head += piece.text
            row_labels.append(head.strip())
    return col_labels, (row_labels if all(row_labels) else None)


class BoardLayout:
    """A game's board geometry for the browser; see the module docstring.

    Args:
      text: the game's text board.
      num_actions: the game's action count.
      board: a position as the game's `Game.board` gives it (its shape is used).
    """

    @classmethod
    def of_game(cls, game) -> BoardLayout:
        """A game's layout, from the board of a fresh match of it."""
        from boardq.play.match import Match

        match = Match(game)
        try:
            return cls(game.text, game.num_actions, match.board())
        finally:
            match.close()

    def __init__(self, text: BoardText, num_actions: int, board: Any) -> None:
        self.text = text
        self.num_actions = num_actions
        self.kind = "text"
        self.rows = self.cols = 0
        self.shift: list[float] = []
        self.col_labels: list[str] | None = None
        self.row_labels: list[str] | None = None
        self.places = [ActionPlace(a, text.label(a), BUTTON) for a in range(num_actions)]
        grid = np.asarray(board) if isinstance(board, np.ndarray) else None
        if grid is not None and grid.ndim == 2 and self._read_grid(grid.shape):
            self.kind = "grid"

    def _read_grid(self, shape: tuple[int, int]) -> bool:
        """Reads the geometry from drawings of full boards; False if they do not fit."""
        rows, cols = shape
        full = np.ones(shape, np.int8)
        lines = self.text.draw(full)
        cell_rows = _cell_rows(lines)
        if len(cell_rows) != rows or any(len(cells) != cols for cells in cell_rows):
            return False
        self.rows, self.cols = rows, cols
        step = (cell_rows[0][1][0] - cell_rows[0][0][0]) if cols > 1 else 1
        start = cell_rows[0][0][0]
        # Half-cell steps: Hex indents rows by 1.5 characters of 3-character cells.
        self.shift = [round(2 * (cells[0][0] - start) / step) / 2 for cells in cell_rows]
        self.col_labels, self.row_labels = _axes(lines, cols)
        below = full.copy()
        below[0] = 0
        self.places = [self._place(a, full, below) for a in range(self.num_actions)]
        return True

    def _place(self, action: int, full: np.ndarray, below: np.ndarray) -> ActionPlace:
        label = self.text.label(action)
        on_full = marked_cell(self.text.draw(full, action))
        if on_full is None:
            return ActionPlace(action, label, BUTTON)
        on_below = marked_cell(self.text.draw(below, action))
        if on_below is not None and on_below != on_full:
            column = on_full[1]
            return ActionPlace(action, label, COLUMN, tuple((r, column) for r in range(self.rows)))
        return ActionPlace(action, label, CELL, (on_full,))

    def last_cell(self, board: Any, action: int | None) -> tuple[int, int] | None:
        """The cell where `action`, just played, shows on `board` (None: a pass, text)."""
        if action is None or self.kind != "grid":
            return None
        return marked_cell(self.text.draw(np.asarray(board), action))

    def winning(self, board: Any) -> list[tuple[int, int]]:
        """The cells of the line (or chain) that won on `board`, as its drawing marks them."""
        if self.kind != "grid":
            return []
        return winning_cells(self.text.draw(np.asarray(board)))

    def pieces(self, board: Any) -> list[list[int | None]] | str:
        """The position for the browser, row by row, or a text layout's drawing.

        Each cell is its owner's seat (0 moves first, 1 second), or None when empty.
        """
        if self.kind != "grid":
            return plain(self.text.draw(board))
        grid = np.sign(np.asarray(board)).astype(int)
        return [[None if v == 0 else (0 if v > 0 else 1) for v in row] for row in grid]

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "rows": self.rows,
            "cols": self.cols,
            "shift": self.shift,
            "col_labels": self.col_labels,
            "row_labels": self.row_labels,
            "actions": [place.to_json() for place in self.places],
        }
