"""The terminal side of `boardq play`: line input and the drawn board.

`LineReader` reads the person's lines: from a terminal with line editing, or, when
stdin is not a terminal, from the pipe, each line echoed after its prompt so a
scripted game reads like a session. `View` draws boards and messages on a rich
Console, styling the pieces of a game's text board by their roles.
"""

from __future__ import annotations

import contextlib
import sys
from typing import Any, TextIO

import numpy as np
from rich.console import Console
from rich.text import Text

from boardq.boardtext import BoardText, Role

__all__ = ["LineReader", "View"]

_ROLE_STYLES = {
    Role.FRAME: "dim",
    Role.LABEL: "dim",
    Role.EMPTY: "dim",
    Role.FIRST: "bold red",
    Role.SECOND: "bold yellow",
}
_LAST_MOVE_STYLE = "reverse"
_WIN_STYLE = "underline"  # and the drawing puts the line that won in parentheses


class LineReader:
    """Reads one line per prompt from a terminal or a pipe."""

    def __init__(self, console: Console, stream: TextIO | None = None) -> None:
        self._console = console
        self._stream = stream if stream is not None else sys.stdin
        if hasattr(self._stream, "reconfigure"):
            # Undecodable bytes become U+FFFD, which no move or command matches.
            self._stream.reconfigure(errors="replace")
        self.interactive = self._stream is sys.stdin and self._stream.isatty()
        if self.interactive:
            with contextlib.suppress(ImportError):
                import readline  # noqa: F401  (line editing and history for input())

    def read(self, prompt: str) -> str:
        """The next line, without its line ending.

        Raises:
          EOFError: at the end of input (Ctrl-D in a terminal).
        """
        if self.interactive:
            return self._read_terminal(prompt)
        self._console.print(Text(prompt, style="bold"), end="")
        line = self._stream.readline()
        if not line:
            self._console.print()
            raise EOFError
        line = line.rstrip("\r\n")
        self._console.print(Text(line))  # echoed, so a scripted game reads like a session
        return line

    def _read_terminal(self, prompt: str) -> str:
        # input() writes the prompt itself, so line editing knows where the line starts.
        self._console.file.flush()
        try:
            return input(prompt)
        except EOFError:
            self._console.print()  # Ctrl-D leaves the cursor after the prompt
            raise


class View:
    """Draws boards and messages on a rich Console."""

    def __init__(self, console: Console, text: BoardText, ascii_only: bool = False) -> None:
        self.console = console
        self.text = text
        self.ascii_only = ascii_only

    def board(self, board: Any, last: int | None) -> None:
        """Draws the board (`Game.board`) with its labels, the last move highlighted.

        The pieces of a line that won (tic-tac-toe, Connect Four, Gomoku; Hex's chain)
        are drawn in parentheses by the game's text board, and underlined here.
        """
        self.console.print()
        for line in self.text.draw(board, last, self.ascii_only):
            row = Text()
            for piece in line:
                style = _ROLE_STYLES[piece.role]
                style += f" {_LAST_MOVE_STYLE}" if piece.last else ""
                style += f" {_WIN_STYLE}" if piece.win else ""
                row.append(piece.text, style)
            row.rstrip()
            self.console.print(row)
        self.console.print()

    def say(self, message: str, style: str = "") -> None:
        """Prints one message (never parsed as markup)."""
        self.console.print(Text(message, style=style))

    def error(self, message: str) -> None:
        """Prints why a line was refused."""
        self.console.print(Text(message, style="red"))

    def mark(self, seat: int) -> str:
        """The mark of a seat as drawn on this board."""
        return self.text.mark(seat, self.ascii_only)

    def values(self, title: str, values: np.ndarray) -> None:
        """Lists the legal actions' values, best first."""
        legal = [a for a in self.text.action_order if not np.isnan(values[a])]
        ranked = sorted(legal, key=lambda a: -values[a])
        listed = ", ".join(f"{self.text.label(a)} {values[a]:+.2f}" for a in ranked)
        self.say(f"{title}: {listed}", "cyan")

    def legal_moves(self, legal: np.ndarray) -> None:
        """Lists the legal moves by their labels, in reading order."""
        labels = " ".join(self.text.label(a) for a in self.text.action_order if legal[a])
        self.say(f"legal moves: {labels}")


# -- the game loop ------------------------------------------------------------------------
