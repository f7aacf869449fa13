"""Boards for people: drawings with move labels, and strict parsing of typed moves.

Each game has a `BoardText`: it labels actions the way its drawing does, turns a typed
label into a PettingZoo action (or a `MoveError` whose message is meant for the
person), and draws a board. Nothing here imports TensorFlow or a terminal library: a
drawing is a list of lines of `Piece`s (text and a `Role`), and the caller styles the
roles.

Boards are int8 arrays in display orientation (row 0 at the top) with +1 for the
first player's pieces, -1 for the second player's and 0 for empty cells, i.e. the
board `games.boards.*.board_from_planes` gives from the first player's observation.

Tic-tac-toe cells are numbered 1-9 in reading order (row by row), while PettingZoo
numbers its actions down the columns; `TicTacToeText` maps between the two.
Connect Four columns are numbered 1-7 from the left; action `a` is column `a + 1`.
"""

from __future__ import annotations

import enum
import re
from typing import NamedTuple, Protocol

import numpy as np

from games.boards import connect_four, tictactoe

__all__ = [
    "BoardText",
    "ConnectFourText",
    "MoveError",
    "Piece",
    "Role",
    "TicTacToeText",
    "board_text",
    "plain",
]

_MAX_SHOWN_CHARS = 20


class MoveError(ValueError):
    """A typed move that cannot be played; the message says why, for the person."""


class Role(enum.Enum):
    """What a piece of a drawing shows; the caller picks a style per role."""

    FRAME = "frame"
    LABEL = "label"
    EMPTY = "empty"
    FIRST = "first"
    SECOND = "second"


class Piece(NamedTuple):
    """A run of characters of a drawing.

    Attributes:
      text: the characters.
      role: what they show.
      last: whether they show the last move played.
    """

    text: str
    role: Role
    last: bool = False


Line = list[Piece]


class BoardText(Protocol):
    """The text side of one game."""

    move_help: str
    """How to type a move, for the help text (lines of at most 80 characters)."""

    action_order: tuple[int, ...]
    """Every action, in the order people read their labels."""

    def mark(self, seat: int, ascii_only: bool = False) -> str:
        """The mark of seat 0 (moves first) or seat 1."""
        ...

    def label(self, action: int) -> str:
        """What a person types for `action`."""
        ...

    def describe(self, action: int) -> str:
        """`action` named in a sentence (e.g. "5 (b2)" or "column 4")."""
        ...

    def parse(self, text: str, legal: np.ndarray) -> int:
        """The action a typed move names; raises MoveError unless it is legal."""
        ...

    def draw(
        self, board: np.ndarray, last: int | None = None, ascii_only: bool = False
    ) -> list[Line]:
        """The board as lines of pieces, labelled so a person can type moves."""
        ...


def plain(lines: list[Line]) -> str:
    """A drawing as plain text, one line per row."""
    return "\n".join("".join(piece.text for piece in line) for line in lines)


def _shown(text: str) -> str:
    """Typed text quoted for a message, shortened and with control characters escaped."""
    short = text if len(text) <= _MAX_SHOWN_CHARS else text[:_MAX_SHOWN_CHARS] + "..."
    return repr(short)


def _lookup(text: str, labels: dict[str, int]) -> tuple[str, int | None]:
    """The stripped text and the action it labels (None if it labels none).

    Only exact ASCII labels count, so nothing that Python's `int()` would also accept
    ("+3", "3 ", "1_0", Arabic-Indic digits) can slip through.
    """
    stripped = text.strip()
    if not stripped.isascii():
        return stripped, None
    return stripped, labels.get(stripped.lower())


def _is_legal(action: int, legal: np.ndarray, num_actions: int) -> bool:
    mask = np.asarray(legal, bool)
    if mask.shape != (num_actions,):
        raise ValueError(f"expected a legal mask of shape ({num_actions},), got {mask.shape}")
    return bool(mask[action])


_WHOLE_NUMBER = re.compile(r"-?[0-9]+")


class TicTacToeText:
    """Tic-tac-toe: cells numbered 1-9 row by row, or coordinates a1..c3."""

    _COLUMN_LETTERS = "abc"
    move_help = (
        "Type a move as a cell number 1-9, as shown in the empty cells (numbered row by\n"
        "row from the top left), or as a coordinate such as b2: the column letter a-c\n"
        "(left to right), then the row number 1-3 (top to bottom)."
    )

    def __init__(self) -> None:
        self.action_order = tuple(
            sorted(range(tictactoe.NUM_ACTIONS), key=lambda a: int(self.label(a)))
        )
        self._labels: dict[str, int] = {}
        for action in range(tictactoe.NUM_ACTIONS):
            self._labels[self.label(action)] = action
            self._labels[self.coordinate(action)] = action

    def mark(self, seat: int, ascii_only: bool = False) -> str:
        """X for the first player, O for the second."""
        return "XO"[seat]

    def label(self, action: int) -> str:
        """The cell number of `action`, 1-9 in reading order."""
        row, col = tictactoe.action_cell(action)
        return str(row * tictactoe.COLS + col + 1)

    def coordinate(self, action: int) -> str:
        """The coordinate of `action`: column letter, then row number (e.g. "b2")."""
        row, col = tictactoe.action_cell(action)
        return f"{self._COLUMN_LETTERS[col]}{row + 1}"

    def describe(self, action: int) -> str:
        """The cell number and coordinate, e.g. "5 (b2)"."""
        return f"{self.label(action)} ({self.coordinate(action)})"

    def parse(self, text: str, legal: np.ndarray) -> int:
        """The action of a typed cell number or coordinate.

        Args:
          text: what the person typed; surrounding whitespace is ignored.
          legal: bool mask of the legal actions.

        Returns:
          The PettingZoo action.

        Raises:
          MoveError: the text names no cell, or the cell is taken.
        """
        stripped, action = _lookup(text, self._labels)
        if action is None:
            raise MoveError(self._not_a_cell(stripped))
        if not _is_legal(action, legal, tictactoe.NUM_ACTIONS):
            raise MoveError(f"cell {self.describe(action)} is taken")
        return action

    def _not_a_cell(self, stripped: str) -> str:
        if not stripped:
            return "no move typed: type a cell number 1-9 or a coordinate such as b2"
        if stripped.isascii() and _WHOLE_NUMBER.fullmatch(stripped):
            return f"there is no cell {stripped}: the cells are numbered 1-9"
        if stripped.isascii() and re.fullmatch(r"[a-z]-?[0-9]+", stripped.lower()):
            return f"there is no cell {stripped}: columns are a-c, rows 1-3"
        return (
            f"{_shown(stripped)} is not a move: type a cell number 1-9 or a coordinate such as b2"
        )

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
        """
        board = np.asarray(board)
        bar, rule, cross = ("|", "-", "+") if ascii_only else ("│", "─", "┼")
        header = "     " + "   ".join(self._COLUMN_LETTERS)
        lines: list[Line] = [[Piece(header, Role.LABEL)]]
        separator = [Piece("    " + cross.join([rule * 3] * tictactoe.COLS), Role.FRAME)]
        for row in range(tictactoe.ROWS):
            if row:
                lines.append(list(separator))
            line: Line = [Piece(f" {row + 1}  ", Role.LABEL)]
            for col in range(tictactoe.COLS):
                if col:
                    line.append(Piece(bar, Role.FRAME))
                action = tictactoe.cell_action(row, col)
                line.append(self._cell(int(board[row, col]), action, action == last))
            lines.append(line)
        return lines

    def _cell(self, value: int, action: int, is_last: bool) -> Piece:
        if value == 0:
            return Piece(f" {self.label(action)} ", Role.EMPTY)
        seat = 0 if value > 0 else 1
        text = f"[{self.mark(seat)}]" if is_last else f" {self.mark(seat)} "
        return Piece(text, Role.FIRST if seat == 0 else Role.SECOND, is_last)


class ConnectFourText:
    """Connect Four: columns numbered 1-7 from the left, shown under the board."""

    move_help = (
        "Type a move as a column number 1-7, as shown under the board (1 is the left\n"
        "column); your piece drops to the lowest empty cell of that column."
    )

    def __init__(self) -> None:
        self.action_order = tuple(range(connect_four.NUM_ACTIONS))
        self._labels = {self.label(action): action for action in range(connect_four.NUM_ACTIONS)}

    def mark(self, seat: int, ascii_only: bool = False) -> str:
        """A filled disc (X) for the first player, a hollow one (O) for the second."""
        return ("XO" if ascii_only else "●○")[seat]

    def label(self, action: int) -> str:
        """The column number of `action`, 1-7 from the left."""
        return str(int(action) + 1)

    def describe(self, action: int) -> str:
        """E.g. "column 4"."""
        return f"column {self.label(action)}"

    def parse(self, text: str, legal: np.ndarray) -> int:
        """The action of a typed column number.

        Args:
          text: what the person typed; surrounding whitespace is ignored.
          legal: bool mask of the legal actions.

        Returns:
          The PettingZoo action (the column index).

        Raises:
          MoveError: the text names no column, or the column is full.
        """
        stripped, action = _lookup(text, self._labels)
        if action is None:
            raise MoveError(self._not_a_column(stripped))
        if not _is_legal(action, legal, connect_four.NUM_ACTIONS):
            raise MoveError(f"{self.describe(action)} is full")
        return action

    def _not_a_column(self, stripped: str) -> str:
        if not stripped:
            return "no move typed: type a column number 1-7"
        if stripped.isascii() and _WHOLE_NUMBER.fullmatch(stripped):
            return f"there is no column {stripped}: the columns are numbered 1-7"
        return f"{_shown(stripped)} is not a move: type a column number 1-7"

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
        """
        board = np.asarray(board)
        side, rule, left, right = ("|", "-", "+", "+") if ascii_only else ("│", "─", "└", "┘")
        empty = "." if ascii_only else "·"
        last_row = self._top_row(board, last)
        lines: list[Line] = []
        for row in range(connect_four.ROWS):
            line: Line = [Piece(side, Role.FRAME)]
            for col in range(connect_four.COLS):
                value = int(board[row, col])
                is_last = col == last and row == last_row
                if value == 0:
                    line.append(Piece(f" {empty} ", Role.EMPTY))
                else:
                    mark = self.mark(0 if value > 0 else 1, ascii_only)
                    text = f"[{mark}]" if is_last else f" {mark} "
                    line.append(Piece(text, Role.FIRST if value > 0 else Role.SECOND, is_last))
            line.append(Piece(side, Role.FRAME))
            lines.append(line)
        lines.append([Piece(left + rule * (3 * connect_four.COLS) + right, Role.FRAME)])
        numbers = "".join(f" {self.label(a)} " for a in range(connect_four.NUM_ACTIONS))
        lines.append([Piece(" " + numbers, Role.LABEL)])
        return lines

    @staticmethod
    def _top_row(board: np.ndarray, column: int | None) -> int | None:
        if column is None:
            return None
        filled = np.flatnonzero(board[:, column] != 0)
        return int(filled[0]) if filled.size else None


_TEXTS: dict[str, BoardText] = {
    "tictactoe": TicTacToeText(),
    "connect_four": ConnectFourText(),
}


def board_text(game_name: str) -> BoardText:
    """The `BoardText` of a game, by the game's name.

    Raises:
      ValueError: no text is defined for the game.
    """
    try:
        return _TEXTS[game_name]
    except KeyError:
        raise ValueError(f"no board text for game {game_name!r}") from None
