"""A run's budget: train steps, minutes, or both, counted across resumes.

The run ends at whichever budget is spent first; a resumed run goes on from the steps
and the time its checkpoint recorded.
"""

from __future__ import annotations

import time

__all__ = ["Budget"]


class Budget:
    """The share of a run's budget spent so far.

    Args:
      steps: the train-step budget (0: none).
      minutes: the time budget (0: none).
      base_elapsed: seconds the run trained before this process (a resume's).
    """

    def __init__(self, steps: int, minutes: float, base_elapsed: float = 0.0) -> None:
        self.steps, self.minutes, self.base_elapsed = steps, minutes, base_elapsed
        self._start = time.monotonic()

    def start(self) -> None:
        """The clock starts now (after building and tracing, which are not counted)."""
        self._start = time.monotonic()

    def elapsed(self) -> float:
        """Seconds trained, resumes included."""
        return self.base_elapsed + (time.monotonic() - self._start)

    def progress(self, steps: int) -> float:
        """Share spent at `steps` train steps: the larger of the step and the time share."""
        shares = [0.0]
        if self.steps:
            shares.append(steps / self.steps)
        if self.minutes:
            shares.append(self.elapsed() / (60.0 * self.minutes))
        return min(1.0, max(shares))

    def describe(self, steps: int) -> str:
        """What is spent of what, for people: "12:05 of 60:00", "1,200 of 5,000 steps"."""
        parts = []
        if self.minutes:
            parts.append(f"{_clock(self.elapsed())} of {_clock(60.0 * self.minutes)}")
        if self.steps:
            parts.append(f"{steps:,} of {self.steps:,} steps")
        return ", ".join(parts)


def _clock(seconds: float) -> str:
    """Minutes and seconds, the minutes counted on past the hour: "4:05", "60:00"."""
    minutes, secs = divmod(int(seconds), 60)
    return f"{minutes}:{secs:02d}"
