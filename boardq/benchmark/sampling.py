"""Background sampling of counters against the monotonic clock (threading only)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

__all__ = ["CounterProbe"]


class CounterProbe:
    """Samples named counters at a fixed rate in a daemon thread.

    Each sample reads every counter once; rates come from differences between
    samples (see `boardq.benchmark.stats`). A counter that raises stops the probe,
    and `stop` re-raises the error.

    Args:
      counters: name -> zero-argument callable returning a number.
      hz: samples per second.
    """

    def __init__(self, counters: dict[str, Callable[[], float]], hz: float = 20.0):
        if hz <= 0:
            raise ValueError("hz must be > 0")
        self._counters = dict(counters)
        self._period = 1.0 / hz
        self.times: list[float] = []
        self.values: dict[str, list[float]] = {name: [] for name in self._counters}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._error: BaseException | None = None

    def sample(self) -> None:
        """Takes one sample now (from any thread)."""
        t = time.monotonic()
        row = {name: float(read()) for name, read in self._counters.items()}
        self.times.append(t)
        for name, value in row.items():
            self.values[name].append(value)

    def _run(self) -> None:
        try:
            while not self._stop.wait(self._period):
                self.sample()
        except BaseException as e:  # re-raised by stop()
            self._error = e

    def start(self) -> CounterProbe:
        self.sample()
        self._thread = threading.Thread(target=self._run, name="bench-probe", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Ends sampling with one last sample; re-raises a counter's error."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5.0)
            self._thread = None
        if self._error is not None:
            raise self._error
        self.sample()

    def __enter__(self) -> CounterProbe:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def series(self, name: str) -> tuple[list[float], list[float]]:
        """(times, values) of one counter."""
        return self.times, self.values[name]
