"""What one measured stage reports (no TensorFlow)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from boardq.benchmark.sampling import CounterProbe
from boardq.benchmark.stats import Window, rate_series

__all__ = ["StageResult", "series_from_probe"]


@dataclass
class StageResult:
    """One stage's headline rate, its other figures, and its rate over time.

    Attributes:
      key: a stable name ("collection", "baseline_collection", ...).
      title: what the stage measures, for people.
      unit: unit of `rate` ("moves/s", "transitions/s", "updates/s").
      rate: the headline figure over the steady windows (None: not measured).
      figures: every other figure, by metric name.
      start, end: the stage's span on the monotonic clock.
      windows: the steady windows the figures are taken over.
      series: name -> (seconds since `start`, rate) for plots.
    """

    key: str
    title: str
    unit: str
    rate: float | None
    figures: dict[str, Any]
    start: float
    end: float
    windows: Sequence[Window]
    series: dict[str, tuple[list[float], list[float]]] = field(default_factory=dict)

    def to_dict(self, origin: float) -> dict[str, Any]:
        """JSON-ready, with times relative to `origin` (the benchmark's start)."""
        return {
            "title": self.title,
            "unit": self.unit,
            "rate": self.rate,
            **self.figures,
            "start_sec": self.start - origin,
            "end_sec": self.end - origin,
            "windows": [w.to_dict(origin) for w in self.windows],
            "series": {
                name: {"t_sec": list(t), "rate": list(r)} for name, (t, r) in self.series.items()
            },
        }


def series_from_probe(
    probe: CounterProbe, name: str, start: float, min_dt: float = 0.25
) -> tuple[list[float], list[float]]:
    """A counter's rate over time, with times in seconds since `start`."""
    mids, rates = rate_series(probe.times, probe.values[name], min_dt)
    return [t - start for t in mids], rates
