"""Progress display: a live table on a terminal, a plain line every few seconds otherwise."""

from __future__ import annotations

import sys
from typing import Any, TextIO

from rich.console import Console
from rich.live import Live
from rich.table import Table

__all__ = ["Progress", "format_line"]

_SHOWN = [
    ("elapsed_sec", "elapsed", "{:.0f}s"),
    ("updates", "updates", "{:,.0f}"),
    ("transitions", "transitions", "{:,.0f}"),
    ("transitions_per_sec", "trans/s", "{:,.0f}"),
    ("updates_per_sec", "upd/s", "{:,.1f}"),
    ("loss", "loss", "{:.4f}"),
    ("q_mean", "mean Q", "{:+.3f}"),
    ("epsilon", "epsilon", "{:.3f}"),
    ("replay_size", "replay", "{:,.0f}"),
    ("policy_lag", "lag", "{:.1f}"),
    ("eval/random/first/win", "win vs random (1st)", "{:.0%}"),
    ("eval/random/second/win", "win vs random (2nd)", "{:.0%}"),
]


def format_line(metrics: dict[str, Any]) -> str:
    """One plain line of the main figures."""
    parts = []
    for key, label, fmt in _SHOWN:
        if key in metrics:
            parts.append(f"{label} {fmt.format(metrics[key])}")
    return " | ".join(parts)


class Progress:
    """Shows training metrics; `update` is called from the main thread only."""

    def __init__(self, title: str, stream: TextIO | None = None, live: bool | None = None):
        self.stream = stream or sys.stdout
        self.title = title
        self.console = Console(file=self.stream)
        self.live_mode = self.console.is_terminal if live is None else live
        self._live: Live | None = None

    def __enter__(self) -> Progress:
        if self.live_mode:
            self._live = Live(self._table({}), console=self.console, refresh_per_second=4)
            self._live.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        if self._live is not None:
            self._live.__exit__(*exc)
            self._live = None

    def _table(self, metrics: dict[str, Any]) -> Table:
        table = Table(title=self.title, show_header=False, expand=False)
        table.add_column("figure")
        table.add_column("value", justify="right")
        for key, label, fmt in _SHOWN:
            if key in metrics:
                table.add_row(label, fmt.format(metrics[key]))
        return table

    def update(self, metrics: dict[str, Any]) -> None:
        if self._live is not None:
            self._live.update(self._table(metrics))
        else:
            print(format_line(metrics), file=self.stream, flush=True)

    def message(self, text: str) -> None:
        if self._live is not None:
            self._live.console.print(text)
        else:
            print(text, file=self.stream, flush=True)
