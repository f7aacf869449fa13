"""How the benchmark measures (no TensorFlow): interleaved segments and pooled rates.

Every figure that compares two ways of doing the same work is measured in
interleaved segments (A B, B A, A B ...), so a change in the machine's load weighs on
both alike. A segment starts its variant, lets it settle for a trim, reads its
counters, runs, reads them again and stops it; a variant's rate pools its segments
(total count over total time).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "MONOTONIC",
    "Clock",
    "Measured",
    "StageResult",
    "Variant",
    "Window",
    "abba_schedule",
    "max_in_windows",
    "mean_in_windows",
    "ratio",
    "run_segments",
    "settling",
    "target",
]


@dataclass(frozen=True)
class Clock:
    """Where a measurement reads the time and waits (tests pass one they step themselves).

    Attributes:
      now: seconds on a monotonic clock.
      sleep: waits that many seconds.
    """

    now: Callable[[], float]
    sleep: Callable[[float], None]


MONOTONIC = Clock(time.monotonic, time.sleep)
"""The machine's monotonic clock: every measurement of the benchmark runs on it."""


@dataclass(frozen=True)
class Window:
    """A time interval [start, end] on the monotonic clock."""

    start: float
    end: float

    @property
    def seconds(self) -> float:
        return max(0.0, self.end - self.start)

    def contains(self, t: float) -> bool:
        return self.start <= t <= self.end


@dataclass
class Variant:
    """One way of doing the work: how to start it, its counters, how to stop it.

    Attributes:
      counters: name -> reading; the first is the headline count.
      start, stop: called at the start and end of each segment.
    """

    counters: dict[str, Callable[[], float]]
    start: Callable[[], None] = lambda: None
    stop: Callable[[], None] = lambda: None


@dataclass
class Measured:
    """What a variant's segments measured: each counter's change, and the windows."""

    deltas: dict[str, float] = field(default_factory=dict)
    windows: list[Window] = field(default_factory=list)
    counts: list[float] = field(default_factory=list)
    """The headline counter's change in each segment."""

    @property
    def seconds(self) -> float:
        return sum(w.seconds for w in self.windows)

    def rate(self, counter: str | None = None) -> float | None:
        """A counter's change per second over all segments (default: the headline)."""
        if not self.deltas or self.seconds <= 0:
            return None
        return self.deltas[counter or next(iter(self.deltas))] / self.seconds

    def segment_rates(self) -> list[float]:
        """The headline rate of each segment, in the order they ran."""
        return [c / w.seconds for c, w in zip(self.counts, self.windows, strict=True)]


def abba_schedule(modes: Sequence[str], rounds: int) -> list[str]:
    """The order of interleaved segments: A B C, then C B A, then A B C...

    Raises:
      ValueError: rounds < 1.
    """
    if rounds < 1:
        raise ValueError("rounds must be >= 1")
    order: list[str] = []
    for i in range(rounds):
        order += list(modes) if i % 2 == 0 else list(reversed(modes))
    return order


def settling(seconds: float, most: float = 1.0) -> float:
    """The trim of a segment of `seconds`: `most` seconds of settling, a third of a short one."""
    return min(most, seconds / 3)


def run_segments(
    variants: dict[str, Variant],
    seconds: float,
    rounds: int,
    trim: float,
    stop=None,
    clock: Clock = MONOTONIC,
) -> dict[str, Measured]:
    """Runs the variants in ABBA order, `seconds` per segment of which `trim` settles.

    Args:
      variants: name -> variant.
      seconds: each segment's length.
      rounds: rounds of the schedule (each round runs every variant once).
      trim: seconds at the start of each segment not counted (threads starting,
        buffers filling after another variant ran).
      stop: an event that ends the measurement early (an error elsewhere).
      clock: where the segments read the time and wait.

    Returns:
      name -> what its segments measured.
    """
    if not 0 <= trim < seconds:
        raise ValueError("trim must be >= 0 and shorter than a segment")
    out = {name: Measured() for name in variants}
    for name in abba_schedule(list(variants), rounds):
        if stop is not None and stop.is_set():
            break
        variant, measured = variants[name], out[name]
        variant.start()
        try:
            clock.sleep(trim)
            t0, before = clock.now(), {k: read() for k, read in variant.counters.items()}
            clock.sleep(seconds - trim)
            t1, after = clock.now(), {k: read() for k, read in variant.counters.items()}
        finally:
            variant.stop()
        measured.windows.append(Window(t0, t1))
        headline = next(iter(before))
        measured.counts.append(after[headline] - before[headline])
        for key in before:
            measured.deltas[key] = measured.deltas.get(key, 0.0) + after[key] - before[key]
    return out


@dataclass
class StageResult:
    """One stage: its headline rate, its other figures, and when it ran.

    Attributes:
      key: a stable name ("collection", "naive_collection", ...).
      title: what the stage measures, for people.
      unit: unit of `rate` ("moves/s", "transitions/s", "train steps/s").
      rate: the headline figure (None: not measured).
      figures: every other figure, by name.
      windows: the measured windows (for utilization and plots).
    """

    key: str
    title: str
    unit: str
    rate: float | None
    figures: dict[str, Any]
    windows: Sequence[Window]

    def to_dict(self, origin: float) -> dict[str, Any]:
        """JSON-ready, with times relative to `origin` (the benchmark's start)."""
        return {
            "title": self.title,
            "unit": self.unit,
            "rate": self.rate,
            **self.figures,
            "windows": [[w.start - origin, w.end - origin] for w in self.windows],
        }


def ratio(numerator: float | None, denominator: float | None) -> float | None:
    """Numerator / denominator, or None when either is missing or the denominator <= 0."""
    if numerator is None or denominator is None:
        return None
    if not math.isfinite(denominator) or denominator <= 0:
        return None
    return numerator / denominator


def target(value: float | None, at_least: float) -> dict[str, Any]:
    """A required figure: its value, the bound, and whether it is met.

    `met` is None when the figure was not measured: its stages were skipped, or the game
    has no vectorized rules.
    """
    met = None if value is None else value >= at_least
    return {"value": value, "at_least": at_least, "met": met}


def _picked(times, values, windows) -> list[float]:
    return [
        v
        for t, v in zip(times, values, strict=True)
        if v is not None and any(w.contains(t) for w in windows)
    ]


def mean_in_windows(times, values, windows: Sequence[Window]) -> float | None:
    """Mean of the samples inside any of the windows (None values skipped)."""
    picked = _picked(times, values, windows)
    return sum(picked) / len(picked) if picked else None


def max_in_windows(times, values, windows: Sequence[Window]) -> float | None:
    """Largest sample inside any of the windows (None values skipped)."""
    picked = _picked(times, values, windows)
    return max(picked) if picked else None
