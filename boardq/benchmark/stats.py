"""The benchmark's arithmetic: steady windows, rates, ratios, duty cycles (pure Python).

Every stage samples growing counters (moves, transitions, train steps, seconds spent
in the train step...) against one monotonic clock. A figure is the change of a
counter over the stage's steady window divided by the window's length: the start-up
(tracing, filling buffers, thread start) and the shutdown are cut off.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = [
    "Window",
    "abba_schedule",
    "counter_delta",
    "duty_cycle",
    "first_time",
    "max_in_windows",
    "mean_in_windows",
    "pooled_rate",
    "rate_series",
    "ratio",
    "steady_window",
    "target",
    "time_shares",
    "trim_for",
]


@dataclass(frozen=True)
class Window:
    """A time interval [start, end] in seconds of one clock."""

    start: float
    end: float

    @property
    def seconds(self) -> float:
        return max(0.0, self.end - self.start)

    def contains(self, t: float) -> bool:
        return self.start <= t <= self.end

    def to_dict(self, origin: float = 0.0) -> dict[str, float]:
        """Start and end relative to `origin` (for reports)."""
        return {"start": self.start - origin, "end": self.end - origin}


def trim_for(
    duration_sec: float, fraction: float = 0.2, min_sec: float = 0.5, max_sec: float = 5.0
) -> float:
    """Seconds of warm-up to cut from the front of a stage of `duration_sec`.

    `fraction` of the stage, at least `min_sec` and at most `max_sec`, and never more
    than half the stage.
    """
    if duration_sec <= 0:
        return 0.0
    return min(max(fraction * duration_sec, min_sec), max_sec, duration_sec / 2)


def steady_window(
    start: float, end: float, trim_start_sec: float, trim_end_sec: float = 0.0
) -> Window:
    """[start, end] less `trim_start_sec` at the front and `trim_end_sec` at the back.

    Raises:
      ValueError: negative trims, or nothing left of the interval.
    """
    if trim_start_sec < 0 or trim_end_sec < 0:
        raise ValueError("trims must be >= 0")
    window = Window(start + trim_start_sec, end - trim_end_sec)
    if window.end <= window.start:
        raise ValueError(
            f"no steady window left: {end - start:.2f}s stage, "
            f"trims {trim_start_sec:.2f}s + {trim_end_sec:.2f}s"
        )
    return window


def _inside(times: Sequence[float], window: Window) -> list[int]:
    return [i for i, t in enumerate(times) if window.contains(t)]


def counter_delta(
    times: Sequence[float], counts: Sequence[float], window: Window
) -> tuple[float, float] | None:
    """(count change, time change) between the first and last samples in the window.

    None with fewer than two samples inside it.
    """
    if len(times) != len(counts):
        raise ValueError("times and counts differ in length")
    idx = _inside(times, window)
    if len(idx) < 2:
        return None
    first, last = idx[0], idx[-1]
    return counts[last] - counts[first], times[last] - times[first]


def pooled_rate(
    times: Sequence[float], counts: Sequence[float], windows: Sequence[Window]
) -> float | None:
    """A counter's mean rate over one or more windows: total change / total time.

    None if no window holds two samples or no time passed.
    """
    total_count = total_sec = 0.0
    for window in windows:
        delta = counter_delta(times, counts, window)
        if delta is not None:
            total_count += delta[0]
            total_sec += delta[1]
    if total_sec <= 0:
        return None
    return total_count / total_sec


def mean_in_windows(
    times: Sequence[float], values: Sequence[float | None], windows: Sequence[Window]
) -> float | None:
    """Mean of the samples inside any of the windows (None values skipped)."""
    picked = [
        v
        for t, v in zip(times, values, strict=True)
        if v is not None and any(w.contains(t) for w in windows)
    ]
    return sum(picked) / len(picked) if picked else None


def max_in_windows(
    times: Sequence[float], values: Sequence[float | None], windows: Sequence[Window]
) -> float | None:
    """Largest sample inside any of the windows (None values skipped)."""
    picked = [
        v
        for t, v in zip(times, values, strict=True)
        if v is not None and any(w.contains(t) for w in windows)
    ]
    return max(picked) if picked else None


def first_time(times: Sequence[float], values: Sequence[float], threshold: float) -> float | None:
    """Time of the first sample whose value exceeds `threshold` (e.g. training began)."""
    for t, v in zip(times, values, strict=True):
        if v > threshold:
            return t
    return None


def rate_series(
    times: Sequence[float], counts: Sequence[float], min_dt: float
) -> tuple[list[float], list[float]]:
    """A counter's rate over time, for plots.

    Successive samples are merged until each interval spans at least `min_dt`
    seconds; each rate is reported at its interval's mid-point.
    """
    if len(times) != len(counts):
        raise ValueError("times and counts differ in length")
    mids: list[float] = []
    rates: list[float] = []
    if not times:
        return mids, rates
    i = 0
    for j in range(1, len(times)):
        dt = times[j] - times[i]
        if dt >= min_dt and dt > 0:
            mids.append((times[i] + times[j]) / 2)
            rates.append((counts[j] - counts[i]) / dt)
            i = j
    return mids, rates


def duty_cycle(busy_sec: float, wall_sec: float) -> float:
    """Share of wall time spent busy (time inside the train step over wall time).

    Raises:
      ValueError: no wall time or negative busy time.
    """
    if wall_sec <= 0:
        raise ValueError("wall time must be > 0")
    if busy_sec < 0:
        raise ValueError("busy time must be >= 0")
    return busy_sec / wall_sec


def ratio(numerator: float | None, denominator: float | None) -> float | None:
    """numerator / denominator, or None when either is missing or the denominator <= 0."""
    if numerator is None or denominator is None:
        return None
    if not math.isfinite(denominator) or denominator <= 0:
        return None
    return numerator / denominator


def time_shares(parts: dict[str, float], total_sec: float) -> dict[str, float]:
    """Each part's share of `total_sec`, plus "other" for the rest (at least 0).

    Raises:
      ValueError: total_sec <= 0.
    """
    if total_sec <= 0:
        raise ValueError("total time must be > 0")
    shares = {name: sec / total_sec for name, sec in parts.items()}
    shares["other"] = max(0.0, 1.0 - sum(shares.values()))
    return shares


def target(value: float | None, at_least: float) -> dict[str, float | bool | None]:
    """A required figure: its value, the bound, and whether it is met."""
    return {
        "value": value,
        "at_least": at_least,
        "met": value is not None and value >= at_least,
    }


def abba_schedule(modes: Sequence[str], rounds: int) -> list[str]:
    """The order of interleaved segments: A B C, then C B A, then A B C...

    A steady drift of the machine's load then weighs on every mode alike.

    Raises:
      ValueError: rounds < 1.
    """
    if rounds < 1:
        raise ValueError("rounds must be >= 1")
    order: list[str] = []
    for i in range(rounds):
        order += list(modes) if i % 2 == 0 else list(reversed(modes))
    return order
