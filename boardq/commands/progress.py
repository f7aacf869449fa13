"""Games played out of the total, on stderr, while `evaluate` and `league` play.

On a terminal, a progress bar (rich's), gone once the games are; otherwise (stderr piped
or sent to a file) a plain line at most every few seconds, such as
`120/400 games (vs winblock)`: `BOARDQ_PROGRESS_EVERY_SEC` seconds (default 5; 0 writes
one after every game). stdout is left to the results, so `--json` stays clean.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from typing import TextIO

from boardq.errors import BoardqError

__all__ = ["DEFAULT_EVERY_SEC", "EVERY_SEC_VARIABLE", "GameProgress"]

EVERY_SEC_VARIABLE = "BOARDQ_PROGRESS_EVERY_SEC"
DEFAULT_EVERY_SEC = 5.0


def _every_sec() -> float:
    """Seconds between two plain lines, from the environment."""
    text = os.environ.get(EVERY_SEC_VARIABLE, "").strip()
    if not text:
        return DEFAULT_EVERY_SEC
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value >= 0.0:  # NaN too
        raise BoardqError(f"{EVERY_SEC_VARIABLE} must be a number of seconds >= 0, got {text!r}")
    return value


class GameProgress:
    """Counts finished games as a `MoveObserver` of `play_game` and shows the count.

    Use it as a context manager around the games, and pass it among the observers.

    Args:
      total: the games to be played.
      stream: where progress goes (default stderr).
      live: a progress bar, or plain lines (default: a bar where `stream` is a terminal).
      every_sec: seconds between plain lines (default: `BOARDQ_PROGRESS_EVERY_SEC`, or 5).
      clock: the clock plain lines are timed by.

    Attributes:
      label: what is being played (say "vs winblock"), shown beside the count.
    """

    def __init__(
        self,
        total: int,
        stream: TextIO | None = None,
        live: bool | None = None,
        every_sec: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ):
        from rich.console import Console

        self.total, self.done, self.label = total, 0, ""
        self.stream = stream or sys.stderr
        self.every_sec = _every_sec() if every_sec is None else every_sec
        self._clock = clock
        self._last = clock()
        self._console = Console(file=self.stream)
        self._live = self._console.is_terminal if live is None else live
        self._bar = None
        self._task = None

    def __enter__(self) -> GameProgress:
        self._last = self._clock()
        if self._live:
            from rich import progress as rp

            self._bar = rp.Progress(
                rp.TextColumn("{task.description}"),
                rp.BarColumn(),
                rp.MofNCompleteColumn(),
                rp.TextColumn("games"),
                rp.TimeElapsedColumn(),
                rp.TextColumn("left"),
                rp.TimeRemainingColumn(),
                console=self._console,
                transient=True,
            )
            self._task = self._bar.add_task(self.label or "playing", total=self.total)
            self._bar.start()
        return self

    def __exit__(self, *exc) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None

    def line(self) -> str:
        """The count as a plain line: "120/400 games (vs winblock)"."""
        return f"{self.done}/{self.total} games" + (f" ({self.label})" if self.label else "")

    def new_game(self) -> None:
        """A game starts (nothing to show until it ends)."""

    def resigned(self, result: int) -> None:
        """A game ended by resignation: it counts."""
        self.moved(-1, result)

    def moved(self, action: int, result: int | None) -> None:
        """A move was played; a game that ended with it counts."""
        if result is None:
            return
        self.done += 1
        if self._bar is not None:
            self._bar.update(self._task, completed=self.done, description=self.label or "playing")
            return
        now = self._clock()
        if now - self._last >= self.every_sec:
            self._last = now
            print(self.line(), file=self.stream, flush=True)
