"""How the benchmark measures: interleaved segments, pooled rates, comparisons."""

from __future__ import annotations

import threading

import pytest

from boardq.benchmark.measure import (
    Clock,
    Measured,
    Variant,
    Window,
    abba_schedule,
    max_in_windows,
    mean_in_windows,
    ratio,
    run_segments,
    target,
)


def test_abba_schedule():
    assert abba_schedule(["a", "b"], 3) == ["a", "b", "b", "a", "a", "b"]
    with pytest.raises(ValueError):
        abba_schedule(["a"], 0)


class Stepped:
    """A clock that moves only when slept on: measurements exact on any machine's load."""

    def __init__(self):
        self.t = 100.0
        self.clock = Clock(lambda: self.t, self.sleep)

    def sleep(self, seconds: float) -> None:
        self.t += seconds


class Clocked:
    """A counter that grows at `per_sec` while started, by a stepped clock."""

    def __init__(self, per_sec: float, time: Stepped):
        self.per_sec, self.total, self.since, self.time = per_sec, 0.0, None, time
        self.starts = self.stops = 0

    def read(self) -> float:
        extra = 0.0 if self.since is None else (self.time.t - self.since) * self.per_sec
        self.last = self.total + extra
        return self.last

    def start(self) -> None:
        self.starts += 1
        self.since = self.time.t

    def stop(self) -> None:
        self.stops += 1
        self.total, self.since = self.read(), None


def test_segments_interleave_and_pool_each_variants_rate():
    time = Stepped()
    fast, slow = Clocked(1000.0, time), Clocked(250.0, time)
    variants = {
        # "double" is read right after "count", from the value "count" just read.
        name: Variant({"count": c.read, "double": lambda c=c: 2 * c.last}, c.start, c.stop)
        for name, c in (("fast", fast), ("slow", slow))
    }
    out = run_segments(variants, seconds=0.5, rounds=2, trim=0.1, clock=time.clock)
    assert fast.starts == fast.stops == 2 and slow.starts == slow.stops == 2
    # ABBA: fast, slow, slow, fast.
    assert out["fast"].windows[0].end <= out["slow"].windows[0].start
    assert out["slow"].windows[1].end <= out["fast"].windows[1].start
    for name, c in (("fast", fast), ("slow", slow)):
        m = out[name]
        assert len(m.windows) == 2 and len(m.counts) == 2
        # The trim is not counted: each window is the segment less its first 0.1 s.
        assert [w.seconds for w in m.windows] == pytest.approx([0.4, 0.4])
        assert m.counts == pytest.approx([0.4 * c.per_sec] * 2)
        assert m.rate() == pytest.approx(c.per_sec)
        assert m.rate("double") == pytest.approx(2 * m.rate())  # every counter, same moments
        assert m.segment_rates() == pytest.approx([c.per_sec] * 2)


def test_segments_stop_the_variant_when_reading_fails_and_end_on_request():
    time = Stepped()
    c = Clocked(1.0, time)

    def broken():
        raise RuntimeError("counter broke")

    with pytest.raises(RuntimeError, match="counter broke"):
        run_segments({"x": Variant({"n": broken}, c.start, c.stop)}, 0.1, 1, 0.0, clock=time.clock)
    assert c.starts == c.stops == 1
    stop = threading.Event()
    stop.set()
    out = run_segments(
        {"x": Variant({"n": c.read}, c.start, c.stop)}, 0.1, 3, 0.0, stop, clock=time.clock
    )
    assert out["x"].rate() is None and c.starts == 1
    with pytest.raises(ValueError, match="trim"):
        run_segments({"x": Variant({"n": c.read})}, 0.1, 1, 0.1)


def test_measured_rate_of_nothing_is_none():
    assert Measured().rate() is None


def test_ratio_target_and_window_statistics():
    assert ratio(3.0, 2.0) == 1.5
    assert ratio(None, 2.0) is None and ratio(1.0, 0.0) is None and ratio(1.0, None) is None
    assert target(0.95, 0.9) == {"value": 0.95, "at_least": 0.9, "met": True}
    assert target(0.85, 0.9)["met"] is False
    assert target(None, 0.9)["met"] is None  # not measured: neither met nor missed
    times, values = [0.0, 1.0, 2.0, 3.0], [10.0, None, 30.0, 40.0]
    windows = [Window(0.5, 2.5)]
    assert mean_in_windows(times, values, windows) == 30.0
    assert max_in_windows(times, values, [Window(0.0, 3.0)]) == 40.0
    assert mean_in_windows(times, values, [Window(5.0, 6.0)]) is None
