"""How each game with an SGF game number writes its moves and results, as the tools do.

SGF (FF[4]) leaves the point notation and the results to each game. boardq writes them
as the programs people open such files with do:

- Go (GM[1]): two letters, column then row counted from the top ("ee" is E5 on 9x9), a
  pass as an empty value (`B[]`), as GNU Go, Sabaki and every Go server write.
- Othello (GM[2]): the same two letters ("aa" is a1, the top-left square; "fe" is f5),
  and no node for a pass (the next move's colour says who played), as Quarry writes;
  read also as "f5" and with `B[]` passes.
- Gomoku (GM[4]): the two letters of Go ("ee" is e5, the centre of 9x9).
- Hex (GM[11]): a column letter and a row number counted from the top ("a1" is the
  top-left cell, "g7" the bottom-right), as HexGui writes; read also in the two
  letters Little Golem uses. Black moves first and joins the top and bottom edges.

The first player is Black (B) in each. Results are as RE writes them: Go by area with
every stone on the board alive and komi for white (`B+3.5`; boardq's Tromp-Taylor
count), Othello by discs (`W+12`), Gomoku and Hex without a score (`B+`); a draw is
`Draw`. Every game boardq plays from the start position: no handicap, no setup.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from boardq.records.record import result_words

__all__ = [
    "SGF_GAMES",
    "Passes",
    "Points",
    "SgfGame",
    "area_score",
    "disc_margin",
    "is_resignation",
    "resignation_text",
    "result_text",
    "settings_of",
    "sgf_game",
]


class Points(enum.Enum):
    """How a point is written."""

    LETTERS = "letters"
    """Column letter, then row letter, both from "a" at the top-left ("ee")."""
    LETTER_NUMBER = "letter-number"
    """Column letter, then row number from 1 at the top ("a1")."""


class Passes(enum.Enum):
    """How a pass is written."""

    NONE = "none"
    """The game has no pass."""
    EMPTY = "empty"
    """A node with an empty move (`B[]`)."""
    OMITTED = "omitted"
    """No node: the next move is the same colour's again."""


def area_score(board: np.ndarray, komi: float) -> float:
    """Black's area minus white's, minus komi (Tromp-Taylor: every stone counts as alive).

    Args:
        board: +1 black, -1 white, 0 empty.
        komi: white's komi.

    Returns:
        The score from black's view: > 0 black won.
    """
    board = np.asarray(board)
    rows, cols = board.shape
    area = {1: int(np.sum(board == 1)), -1: int(np.sum(board == -1))}
    seen = np.zeros(board.shape, bool)
    for start in zip(*np.nonzero(board == 0), strict=True):
        if seen[start]:
            continue
        region, borders, stack = 0, set(), [start]
        seen[start] = True
        while stack:
            r, c = stack.pop()
            region += 1
            for nr, nc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
                if 0 <= nr < rows and 0 <= nc < cols:
                    if board[nr, nc] == 0 and not seen[nr, nc]:
                        seen[nr, nc] = True
                        stack.append((nr, nc))
                    elif board[nr, nc] != 0:
                        borders.add(int(board[nr, nc]))
        if len(borders) == 1:  # reaches one colour only: that colour's territory
            area[borders.pop()] += region
    return float(area[1] - area[-1] - komi)


def disc_margin(board: np.ndarray) -> float:
    """Black's discs minus white's."""
    board = np.asarray(board)
    return float(np.sum(board == 1) - np.sum(board == -1))


@dataclass(frozen=True)
class SgfGame:
    """A game's SGF dialect.

    Attributes:
        number: its SGF game number (GM).
        size: its board size (SZ); actions number the points row by row from the
            top-left, `row * size + col`, and a pass, where there is one, is
            `size * size`.
        points: how points are written.
        passes: how passes are written.
        komi: white's komi (KM), where the game has one.
        rules: the rules' name (RU), where SGF has one for them.
        margin: the winner's margin, from the final board (+1 black's pieces), where
            the game counts one.
        reads_numbers: a LETTERS game whose files may also name points by letter and
            row number from the top ("f5": Othello's own notation).
    """

    number: int
    size: int
    points: Points
    passes: Passes = Passes.NONE
    komi: float | None = None
    rules: str | None = None
    margin: Callable[[np.ndarray], float] | None = None
    reads_numbers: bool = False

    @property
    def pass_action(self) -> int | None:
        return None if self.passes is Passes.NONE else self.size * self.size

    def point(self, action: int) -> tuple[int, int] | None:
        """(row, col) of an action, row 0 at the top; None for a pass."""
        if action == self.pass_action:
            return None
        return divmod(int(action), self.size)

    def action(self, row: int, col: int) -> int:
        return row * self.size + col

    def encode(self, action: int) -> str:
        """The SGF value of a move ("" for a pass)."""
        cell = self.point(action)
        if cell is None:
            return ""
        row, col = cell
        if self.points is Points.LETTERS:
            return _LETTERS[col] + _LETTERS[row]
        return f"{_LETTERS[col]}{row + 1}"

    def decode(self, value: str) -> int | None:
        """The action of an SGF move value; None if it names no point of this board.

        Both notations are read; an empty value (or Go's old "tt" on boards up to 19)
        is a pass where the game has one.
        """
        text = value.strip().lower()
        if self.pass_action is not None and (text == "" or (text == "tt" and self.size <= 19)):
            return self.pass_action
        if re.fullmatch(r"[a-z]{2}", text):
            col, row = _LETTERS.index(text[0]), _LETTERS.index(text[1])
        elif match := re.fullmatch(r"([a-z])([0-9]{1,2})", text):
            col, row = _LETTERS.index(match[1]), int(match[2]) - 1
            if self.points is Points.LETTERS and not self.reads_numbers:
                return None  # Go and Gomoku: only the letters are SGF's
        else:
            return None
        if not (0 <= row < self.size and 0 <= col < self.size):
            return None
        return self.action(row, col)


_LETTERS = "abcdefghijklmnopqrstuvwxyz"

SGF_GAMES: dict[str, SgfGame] = {
    "go": SgfGame(
        1, 9, Points.LETTERS, Passes.EMPTY, komi=7.5, rules="Tromp-Taylor",
        margin=lambda board: area_score(board, 7.5),
    ),
    "othello": SgfGame(
        2, 8, Points.LETTERS, Passes.OMITTED, margin=disc_margin, reads_numbers=True
    ),
    "gomoku": SgfGame(4, 9, Points.LETTERS),
    "hex": SgfGame(11, 7, Points.LETTER_NUMBER),
}  # fmt: skip
"""The games boardq writes as SGF, by name (the others are kept as JSON lines only)."""


def sgf_game(name: str) -> SgfGame | None:
    """The SGF dialect of the game called `name`, or None if it has none."""
    return SGF_GAMES.get(name)


def settings_of(game) -> dict[str, Any]:
    """The settings a record of `game` states: board size and komi, or rows and columns."""
    dialect = sgf_game(game.name)
    if dialect is not None:
        settings: dict[str, Any] = {"board_size": dialect.size}
        if dialect.komi is not None:  # the komi the game is set up with (Go's own: 7.5)
            komi = getattr(getattr(game, "setup", None), "komi", None)
            settings["komi"] = dialect.komi if komi is None else komi
        return settings
    if len(game.obs_shape) == 3:
        return {"rows": int(game.obs_shape[0]), "cols": int(game.obs_shape[1])}
    return {}


def result_text(name: str, result: int | None, board: Any = None, komi: float | None = None) -> str:
    """The result as RE writes it ("B+3.5", "W+", "Draw"), or in words for other games.

    Args:
        name: the game's name.
        result: +1 the first player (black) won, -1 the second, 0 a draw, None unfinished.
        board: the final board (+1 black), for the games that count a margin.
        komi: the komi the game was played with, where not the game's own (Go).
    """
    dialect = sgf_game(name)
    if dialect is None or result is None:
        return result_words(result) if result is not None else ""
    if result == 0:
        return "Draw"
    winner = "B" if result > 0 else "W"
    if dialect.margin is None or board is None:
        return f"{winner}+"
    if komi is not None and dialect.komi is not None:
        margin = area_score(board, komi)
    else:
        margin = dialect.margin(board)
    if np.sign(margin) != result:  # the count disagrees with the env's winner: say no number
        return f"{winner}+"
    return f"{winner}+{abs(margin):g}"


def resignation_text(name: str, result: int) -> str:
    """The result of a game the loser resigned: "B+R", or in words for other games."""
    if sgf_game(name) is None:
        return f"{result_words(result)} (the other resigned)"
    return f"{'B' if result > 0 else 'W'}+R"


def is_resignation(text: str) -> bool:
    """Whether a result text says the loser resigned ("B+R", "W+Resign")."""
    return bool(re.fullmatch(r"[BW]\+R(esign)?", text.strip(), re.IGNORECASE)) or text.endswith(
        "(the other resigned)"
    )
