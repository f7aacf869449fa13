"""Boards for people: the parts every game's text board shares.

Each game has a `BoardText` (in its folder, `games/<name>/text.py`): it labels actions
the way its drawing does, turns a typed label into a PettingZoo action (or a
`MoveError` whose message is meant for the person), and draws a board. Nothing here
imports TensorFlow or a terminal library: a drawing is a list of lines of `Piece`s
(text and a `Role`), and the caller styles the roles.

Boards are int8 arrays in display orientation (row 0 at the top) with +1 for the
first player's pieces, -1 for the second player's and 0 for empty cells, i.e. the
board the game's `rules.board_from_planes` gives from the first player's observation.
"""

from __future__ import annotations

import enum
import re
from typing import NamedTuple, Protocol

import numpy as np

__all__ = [
    "WHOLE_NUMBER",
    "BoardText",
    "Line",
    "MoveError",
    "MoveText",
    "Piece",
    "Role",
    "board_from_rows",
    "piece_text",
    "plain",
    "shown",
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
      win: whether they show a piece of the line (or chain) that won the game.
    """

    text: str
    role: Role
    last: bool = False
    win: bool = False


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


def piece_text(mark: str, last: bool, win: bool) -> str:
    """A piece three characters wide: `[X]` the last move, `(X)` a winning piece, ` X `."""
    if last:
        return f"[{mark}]"
    return f"({mark})" if win else f" {mark} "


def plain(lines: list[Line]) -> str:
    """A drawing as plain text, one line per row."""
    return "\n".join("".join(piece.text for piece in line) for line in lines)


def board_from_rows(rows: list[str]) -> np.ndarray:
    """A board written as text rows, top row first: `X` = +1, `O` = -1, `.` = empty.

    For positions in tests and examples, e.g. `board_from_rows(["X..", ".O.", "..."])`.
    Which player +1 stands for is the caller's (the first player's pieces in this
    module's boards; the mover's in the rules' boards).
    """
    return np.array([["O.X".index(cell) - 1 for cell in row] for row in rows], dtype=np.int8)


def shown(text: str) -> str:
    """Typed text quoted for a message, shortened and with control characters escaped."""
    short = text if len(text) <= _MAX_SHOWN_CHARS else text[:_MAX_SHOWN_CHARS] + "..."
    return repr(short)


WHOLE_NUMBER = re.compile(r"-?[0-9]+")


class MoveText:
    """Strict parsing of typed moves, shared by the games' `BoardText`s.

    Only exact ASCII labels count (case-insensitive), so nothing that Python's `int()`
    would also accept ("+3", "1_0", Arabic-Indic digits) can slip through. Subclasses
    fill `labels` and say what is wrong with a typed text or an illegal move.
    """

    num_actions: int
    labels: dict[str, int]

    def not_a_move(self, stripped: str) -> str:
        """Why `stripped` (the typed text without surrounding blanks) names no move."""
        raise NotImplementedError

    def not_legal(self, action: int) -> str:
        """Why `action` cannot be played here."""
        raise NotImplementedError

    def parse(self, text: str, legal: np.ndarray) -> int:
        """The action a typed move names.

        Args:
          text: what the person typed; surrounding whitespace is ignored.
          legal: bool mask of the legal actions.

        Raises:
          MoveError: the text names no move, or the move is not legal here.
        """
        stripped = text.strip()
        action = self.labels.get(stripped.lower()) if stripped.isascii() else None
        if action is None:
            raise MoveError(self.not_a_move(stripped))
        mask = np.asarray(legal, bool)
        if mask.shape != (self.num_actions,):
            raise ValueError(
                f"expected a legal mask of shape ({self.num_actions},), got {mask.shape}"
            )
        if not mask[action]:
            raise MoveError(self.not_legal(action))
        return action
