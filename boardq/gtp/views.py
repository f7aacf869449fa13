"""The engine's settings and views: `boardsize`, `showboard`, `printsgf`.

- `boardsize N` (GTP), or `boardsize W H` (HTP, as HexGui sends it): the game's own
  board, or GoGui's square board around it (Connect Four: 7); it clears the board.
- `showboard`: the text board, the last move bracketed.
- `printsgf [FILE]`: the game so far as an SGF file, as GNU Go and KataGo answer it: in
  the answer, or written to the file it names.
"""

from __future__ import annotations

from pathlib import Path

from boardq.boardtext import plain
from boardq.gtp.protocol import GtpSyntaxError, parse_number
from boardq.records import to_sgf
from boardq.rundir import atomic_write_bytes

__all__ = ["EngineViews"]


class EngineViews:
    """The commands over an engine's game that set its board or show it."""

    def __init__(self, engine) -> None:
        self.engine = engine

    def handlers(self) -> dict:
        """The GTP commands it answers, by name."""
        return {
            "boardsize": self._boardsize,
            "showboard": self._showboard,
            "printsgf": self._printsgf,
        }

    def _boardsize(self, args: list[str]) -> str:
        """`boardsize N`, or HTP's `boardsize W H`: the game's board (GoGui's side too)."""
        if len(args) not in (1, 2):
            raise GtpSyntaxError("boardsize takes one number (or width and height)")
        sizes = tuple(int(parse_number(a, int, 0, 1000, "boardsize")) for a in args)
        dialect = self.engine.dialect
        known = {(dialect.size, dialect.height), (max(dialect.size, dialect.height),) * 2}
        if (sizes * 2)[:2] not in known:
            raise self.engine.Error("unacceptable size")
        return self.engine.clear()

    def _showboard(self, args: list[str]) -> str:
        last = self.engine.moves[-1].action if self.engine.moves else None
        board = plain(self.engine.game.text.draw(self.engine.match.board(), last, ascii_only=True))
        return "\n" + board

    def _printsgf(self, args: list[str]) -> str:
        """The game as an SGF file: the answer's text, or written to the file named."""
        if len(args) > 1:
            raise GtpSyntaxError("printsgf takes at most a file name")
        data = to_sgf(self.engine.record())
        if not args:
            return data.decode("utf-8").strip()
        try:
            atomic_write_bytes(Path(args[0]), data)
        except OSError as e:
            raise self.engine.Error(f"cannot write {args[0]}: {e.strerror or e}") from None
        return ""
