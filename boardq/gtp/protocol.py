"""GTP, the Go Text Protocol (version 2): a game's GTP names and the protocol's lines.

Both sides of the protocol build on this: `boardq.gtp.player` drives an engine
(GNU Go, GRhino) as an opponent, and `boardq.gtp.engine` answers as one (`boardq
gtp GAME`). Nothing here starts a process or imports a game.

A game whose moves have GTP names declares a `GtpDialect` (`Game.gtp`): the size of its
board and how its points are named (its komi, count and handicap live in its
`boardq.setup.Setup`). Go names a point by a column letter, skipping I,
and a row counted from the bottom (`E5`); Othello engines such as GRhino by a column
letter and a row counted from the top (`d3`, a1 the top-left square). A vertex is read
in either case; `pass` passes.

The line format (GTP v2, sections 2.4-2.6 and 3): a command is `[id] name [arguments]`;
the answer is `=[id] text` or `?[id] message`, then an empty line. Control characters
but tab and newline are dropped, a tab is a space, `#` starts a comment, and a line of
only blanks is no command.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NamedTuple

__all__ = [
    "COLOURS",
    "PASS",
    "RESIGN",
    "Command",
    "GtpDialect",
    "GtpSyntaxError",
    "clean_line",
    "parse_number",
    "format_response",
    "parse_colour",
    "parse_command",
    "parse_score",
    "score_text",
]

PASS = "pass"
RESIGN = "resign"
COLOURS = ("black", "white")
"""The colour of seat 0 (it moves first) and of seat 1."""


class GtpSyntaxError(ValueError):
    """A command's argument, or an engine's answer, that is not what GTP allows."""


@dataclass(frozen=True)
class GtpDialect:
    """How a game's moves are named over GTP, and what its engines are told.

    Attributes:
        size: the board's side (`boardsize`).
        letters: the column letters, left to right (Go skips I).
        bottom_up: rows are counted from the bottom (Go), else from the top (Othello).
        pass_action: the action that passes (named `pass`), or None.
        passes_implied: a pass happens only when it is the only move, and engines are
            not told of it (GRhino refuses `play COLOUR pass`): the next `play` or
            `genmove` names the colour to move anyway.
        rows: the board's rows where they are not `size` (Connect Four: 6 rows of 7).
        drop: a move names a column (Connect Four): any point of the column names it,
            and the move's vertex is the point its piece lands on (`vertex(action, row)`).
        column_major: actions number the points column by column (PettingZoo's
            tic-tac-toe: 0 1 2 down the left column), not row by row.
    """

    size: int
    letters: str
    bottom_up: bool
    pass_action: int | None
    passes_implied: bool = False
    rows: int | None = None
    drop: bool = False
    column_major: bool = False

    @property
    def height(self) -> int:
        """The board's rows."""
        return self.size if self.rows is None else self.rows

    @property
    def points(self) -> int:
        """The board's points (rows times columns)."""
        return self.size * self.height

    def vertex(self, action: int, row: int | None = None) -> str:
        """The GTP vertex of an action: "E5", "d3" or "pass".

        Args:
            action: the game's action.
            row: where a move names a column (`drop`), the row (0 the top) its piece
                lands on.
        """
        action = int(action)
        if action == self.pass_action:
            return PASS
        if self.drop:
            if not 0 <= action < self.size or row is None:
                raise ValueError(f"action {action} is no column of {self.size} with a landing row")
            col = action
        elif not 0 <= action < self.points:
            raise ValueError(f"action {action} is no point of a {self.size}x{self.height} board")
        elif self.column_major:
            col, row = divmod(action, self.height)
        else:
            row, col = divmod(action, self.size)
        return self.point(row, col)

    def point(self, row: int, col: int) -> str:
        """The vertex of the point in `row` (0 the top) and `col` (0 the left)."""
        number = self.height - row if self.bottom_up else row + 1
        return f"{self.letters[col]}{number}"

    def action(self, vertex: str) -> int:
        """The action of a vertex (either case), or the pass.

        Raises:
            GtpSyntaxError: not a vertex of this board.
        """
        text = vertex.strip().lower()
        if text == PASS:
            if self.pass_action is None:
                raise GtpSyntaxError("this game has no pass")
            return self.pass_action
        match = re.fullmatch(r"([a-z])([0-9]{1,2})", text)
        letters = self.letters.lower()
        if match is None or match[1] not in letters:
            raise GtpSyntaxError(f"invalid vertex {vertex!r}")
        number = int(match[2])
        if not 1 <= number <= self.height:
            raise GtpSyntaxError(f"invalid vertex {vertex!r}: rows are 1-{self.height}")
        col = letters.index(match[1])
        if self.drop:
            return col
        row = self.height - number if self.bottom_up else number - 1
        return col * self.height + row if self.column_major else row * self.size + col


def parse_colour(text: str) -> int:
    """The seat of a GTP colour: b or black 0, w or white 1 (either case).

    Raises:
        GtpSyntaxError: not a colour.
    """
    seat = {"b": 0, "black": 0, "w": 1, "white": 1}.get(text.strip().lower())
    if seat is None:
        raise GtpSyntaxError(f"invalid color {text!r}")
    return seat


def parse_number(text: str, kind: type, low: float, high: float, what: str) -> int | float:
    """A GTP number, bounded before it is converted (a 5,000-digit one is refused).

    Args:
        text: the argument.
        kind: int or float.
        low: the least value allowed.
        high: the greatest value allowed.
        what: what the number is, for the message ("komi").

    Raises:
        GtpSyntaxError: not a number of that kind, or outside the bounds.
    """
    pattern = (
        r"[+-]?[0-9]{1,12}" if kind is int else r"[+-]?([0-9]{1,12}(\.[0-9]{0,9})?|\.[0-9]{1,9})"
    )
    if re.fullmatch(pattern, text.strip()) is None:
        raise GtpSyntaxError(f"{what} not {'an integer' if kind is int else 'a float'}")
    value = kind(text)
    if not low <= value <= high:
        raise GtpSyntaxError(f"{what} out of range ({low:g} to {high:g})")
    return value


def clean_line(line: str) -> str:
    """A line as GTP reads it: control characters dropped, tabs as spaces, no comment."""
    line = line.replace("\t", " ").partition("#")[0]
    return "".join(c for c in line if c >= " " and c != "\x7f").strip()


class Command(NamedTuple):
    """One command: its id (None without one), its name and its arguments."""

    id: int | None
    name: str
    args: list[str]


def parse_command(line: str) -> Command | None:
    """The command of a line, or None for a line that holds none (blank, a comment)."""
    words = clean_line(line).split()
    if not words:
        return None
    ident = None
    if re.fullmatch(r"[0-9]{1,9}", words[0]):  # a longer number is no id: unknown command
        ident = int(words.pop(0))
        if not words:
            return Command(ident, "", [])
    return Command(ident, words[0], words[1:])


def format_response(ident: int | None, ok: bool, text: str = "") -> str:
    """An answer: `=[id] text` or `?[id] message`, ended by the empty line."""
    head = ("=" if ok else "?") + ("" if ident is None else str(ident))
    body = f" {text}" if text else ""
    if "\n" in body:  # a multi-line answer: its lines, none of them empty
        body = "\n".join(ln if ln.strip() else " " for ln in body.split("\n"))
    return f"{head}{body}\n\n"


def score_text(black_minus_white: float) -> str:
    """A final score as GTP writes it: "B+3.5", "W+10", or "0" for a tie."""
    if black_minus_white == 0:
        return "0"
    side = "B" if black_minus_white > 0 else "W"
    return f"{side}+{abs(black_minus_white):g}"


def parse_score(text: str) -> float | None:
    """Black's lead in a GTP score ("B+3.5" 3.5, "W+10" -10, "0" 0); None if unreadable.

    A win by resignation or on time ("B+R", "W+T") is +-inf.
    """
    text = text.strip().upper()
    if text in {"0", "DRAW", "JIGO"}:
        return 0.0
    match = re.fullmatch(r"([BW])\+([0-9]+(?:\.[0-9]+)?|R|RESIGN|T|TIME)?", text)
    if match is None:
        return None
    if match[2] is None:
        return None
    sign = 1.0 if match[1] == "B" else -1.0
    if match[2][0].isdigit():
        return sign * float(match[2])
    return sign * float("inf")
