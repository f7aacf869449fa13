"""Loggers: each takes flat metric dicts (`write`) and is closed at the end (`close`).

The trainer writes one dict of every figure per tick to each of its loggers:
TensorBoard scalars and JSON lines in the run directory, and the terminal progress.
A logger never reads anything back; the benchmark records the dicts with its own.
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TextIO

if TYPE_CHECKING:
    from boardq.training.budget import Budget

__all__ = ["JsonLinesLogger", "Logger", "TensorBoardLogger", "TerminalLogger", "format_line"]

STEP_KEY = "train_steps"


def _numbers(metrics: Mapping[str, Any]) -> dict[str, float]:
    """The finite numbers of a metrics dict, without the clock reading `time`."""
    return {
        k: v
        for k, v in metrics.items()
        if k != "time" and isinstance(v, int | float) and math.isfinite(v)
    }


class Logger(Protocol):
    """Where metrics go."""

    def write(self, metrics: Mapping[str, Any]) -> None:
        """Records one dict of figures."""
        ...

    def close(self) -> None:
        """Flushes and releases what the logger holds."""
        ...


class TensorBoardLogger:
    """Scalars at the dict's `train_steps`, for `tensorboard --logdir`."""

    def __init__(self, logdir: str | Path):
        import tensorflow as tf

        self._tf = tf
        self._writer = tf.summary.create_file_writer(str(logdir))

    def write(self, metrics: Mapping[str, Any]) -> None:
        step = int(metrics.get(STEP_KEY, 0))
        with self._writer.as_default(step=step):
            for key, value in _numbers(metrics).items():
                self._tf.summary.scalar(key, value)
        self._writer.flush()

    def close(self) -> None:
        self._writer.close()


class JsonLinesLogger:
    """One JSON object per line, appended (a resumed run continues the file)."""

    def __init__(self, path: str | Path):
        self._file = open(path, "a", encoding="utf-8")  # noqa: SIM115 (closed by close())

    def write(self, metrics: Mapping[str, Any]) -> None:
        row = {k: v for k, v in metrics.items() if k != "time"}
        self._file.write(json.dumps(row) + "\n")
        self._file.flush()

    def close(self) -> None:
        self._file.close()


_SHOWN = [
    ("elapsed_sec", "elapsed", "{:.0f}s"),
    ("train_steps", "train steps", "{:,.0f}"),
    ("transitions", "transitions", "{:,.0f}"),
    ("transitions_per_sec", "trans/s", "{:,.0f}"),
    ("train_steps_per_sec", "steps/s", "{:,.1f}"),
    ("loss", "loss", "{:.4f}"),
    ("q_mean", "mean Q", "{:+.3f}"),
    ("epsilon", "epsilon", "{:.3f}"),
    ("replay_size", "replay", "{:,.0f}"),
    ("policy_lag", "lag", "{:.1f}"),
    ("actor_restarts", "actor restarts", "{:,.0f}"),
    ("eval/random/first/win", "win vs random (1st)", "{:.0%}"),
    ("eval/random/second/win", "win vs random (2nd)", "{:.0%}"),
]


def format_line(metrics: Mapping[str, Any], budget: Budget | None = None) -> str:
    """One plain line of the main figures; with the run's budget, what is spent of it."""
    return " | ".join(f"{label} {text}" for label, text in _shown(metrics, budget))


def _shown(metrics: Mapping[str, Any], budget: Budget | None) -> Iterator[tuple[str, str]]:
    for key, label, fmt in _SHOWN:
        if key == "elapsed_sec" and key in metrics and budget is not None:
            yield label, _spent(metrics, budget)
        elif key in metrics:
            yield label, fmt.format(metrics[key])


def _spent(metrics: Mapping[str, Any], budget: Budget) -> str:
    """Elapsed over the budget: "6:55 of 60:00", "415s, 1,200 of 5,000 steps"."""
    spent = budget.describe(int(metrics.get(STEP_KEY, 0)))
    if budget.minutes:
        return spent  # it starts with the time
    seconds = f"{metrics['elapsed_sec']:.0f}s"
    return f"{seconds}, {spent}" if spent else seconds


class TerminalLogger:
    """Progress for people: a live table on a terminal, a plain line per write otherwise.

    Args:
      title: the table's title.
      stream: where to write (default stdout).
      live: force the live table on or off (default: on where `stream` is a terminal).
      budget: the run's budget; the elapsed time then reads as the share of it spent,
        "elapsed 6:55 of 60:00" (and "1,200 of 5,000 steps" with a step budget).
    """

    def __init__(
        self,
        title: str,
        stream: TextIO | None = None,
        live: bool | None = None,
        budget: Budget | None = None,
    ):
        from rich.console import Console

        self.stream = stream or sys.stdout
        self.title = title
        self.budget = budget
        self.console = Console(file=self.stream)
        self._live = None
        if self.console.is_terminal if live is None else live:
            from rich.live import Live

            self._live = Live(self._table({}), console=self.console, refresh_per_second=4)
            self._live.start()

    def _table(self, metrics: Mapping[str, Any]):
        from rich.table import Table

        table = Table(title=self.title, show_header=False, expand=False)
        table.add_column("figure")
        table.add_column("value", justify="right")
        for label, text in _shown(metrics, self.budget):
            table.add_row(label, text)
        return table

    def write(self, metrics: Mapping[str, Any]) -> None:
        if self._live is not None:
            self._live.update(self._table(metrics))
        else:
            print(format_line(metrics, self.budget), file=self.stream, flush=True)

    def message(self, text: str) -> None:
        """A line of news above the table (or between the progress lines)."""
        if self._live is not None:
            self._live.console.print(text)
        else:
            print(text, file=self.stream, flush=True)

    def close(self) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None
