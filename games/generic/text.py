"""The text board of a game built on the fly: the environment's own move names and drawing.

Moves are typed as OpenSpiel names them (`action_to_string`, e.g. "e3f4" in
Breakthrough) where those names are fixed, distinct and plain; otherwise, and for
PettingZoo environments, as action numbers. The board is whatever text the game
draws of itself (OpenSpiel's state string), handed over as a string by `Game.board`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from boardq.boardtext import WHOLE_NUMBER, Line, MoveText, Piece, Role, shown

__all__ = ["GenericText", "numbers_board", "usable_names"]


def usable_names(names: Sequence[str]) -> list[str] | None:
    """Names people can type: lowercase-distinct, ASCII, no blanks inside; else None."""
    lowered = [n.strip().lower() for n in names]
    plain = all(n and n.isascii() and n.isprintable() and " " not in n for n in lowered)
    if not plain or len(set(lowered)) != len(lowered):
        return None
    return [n.strip() for n in names]


class GenericText(MoveText):
    """Moves by name, or by number; the board as the game draws itself.

    Args:
        num_actions: the size of the action space.
        names: the names of the actions that have one; the others are numbered.
    """

    def __init__(self, num_actions: int, names: Mapping[int, str] | None = None) -> None:
        self.num_actions = int(num_actions)
        names = dict(names or {})
        self.numbered = not names
        self._names = [names.get(a, str(a)) for a in range(self.num_actions)]
        self.action_order = tuple(range(self.num_actions))
        self.labels = {name.lower(): a for a, name in enumerate(self._names)}
        example = next(iter(names.values()), "")
        self.move_help = (
            f"Type a move as its action number 0-{self.num_actions - 1}; moves lists the legal "
            "ones."
            if self.numbered
            else f"Type a move as the game names it (such as {example}), or by its number\n"
            "where it has no name; moves lists the legal ones."
        )

    def mark(self, seat: int, ascii_only: bool = False) -> str:
        """Player 1 (moves first) or player 2."""
        return f"player {seat + 1}"

    def label(self, action: int) -> str:
        """The action's name, or its number."""
        return self._names[int(action)]

    def describe(self, action: int) -> str:
        """E.g. "e3f4" or "move 12"."""
        return f"move {self.label(action)}" if self.numbered else self.label(action)

    def not_legal(self, action: int) -> str:
        return f"{self.describe(action)} is not legal here"

    def not_a_move(self, stripped: str) -> str:
        if not stripped:
            return "no move typed: type a move, or moves to list them"
        if self.numbered and stripped.isascii() and WHOLE_NUMBER.fullmatch(stripped):
            return f"there is no move {stripped}: moves are numbered 0-{self.num_actions - 1}"
        return f"{shown(stripped)} is not a move: type one that moves lists"

    def draw(self, board: str, last: int | None = None, ascii_only: bool = False) -> list[Line]:
        """The game's own drawing, line by line, and the last move by name.

        Args:
            board: the text the game draws of the position (`Game.board`).
            last: the action played last, or None.
            ascii_only: replace characters outside ASCII by "?".
        """
        text = str(board)
        if ascii_only:
            text = text.encode("ascii", "replace").decode("ascii")
        lines: list[Line] = [[Piece(row, Role.FRAME)] for row in text.rstrip("\n").split("\n")]
        if last is not None:
            lines.append([Piece(f"last move: {self.label(last)}", Role.LABEL, True)])
        return lines


def numbers_board(planes: np.ndarray) -> str:
    """A drawing of planes for environments that draw nothing themselves.

    Each cell shows the first plane (0-9, then a-z) that is not zero there, "." for none.
    """
    planes = np.asarray(planes)
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    rows = []
    for row in planes:
        cells = []
        for cell in row:
            nonzero = np.flatnonzero(cell)
            cells.append(digits[nonzero[0]] if nonzero.size and nonzero[0] < 36 else ".")
        rows.append(" ".join(cells))
    return "\n".join(rows)
