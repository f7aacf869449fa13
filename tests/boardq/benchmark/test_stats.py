"""The benchmark's arithmetic, on hand-worked numbers (no TensorFlow)."""

from __future__ import annotations

import pytest

from boardq.benchmark.stats import (
    Window,
    abba_schedule,
    counter_delta,
    duty_cycle,
    first_time,
    max_in_windows,
    mean_in_windows,
    pooled_rate,
    rate_series,
    ratio,
    steady_window,
    target,
    time_shares,
    trim_for,
)

# A counter sampled every 0.5 s: 100/s for the first 2 s, then 300/s.
TIMES = [0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0]
COUNTS = [0, 50, 100, 150, 200, 350, 500, 650, 800]


@pytest.mark.parametrize(
    ("duration", "expected"),
    [
        (10.0, 2.0),  # 20%
        (1.0, 0.5),  # at least 0.5 s ...
        (0.6, 0.3),  # ... but never more than half the stage
        (100.0, 5.0),  # at most 5 s
        (0.0, 0.0),
    ],
)
def test_trim_for(duration, expected):
    assert trim_for(duration) == pytest.approx(expected)


def test_steady_window_trims_both_ends():
    w = steady_window(10.0, 20.0, 2.0, 1.0)
    assert (w.start, w.end, w.seconds) == (12.0, 19.0, 7.0)
    assert w.contains(12.0) and w.contains(19.0) and not w.contains(19.5)
    assert w.to_dict(origin=10.0) == {"start": 2.0, "end": 9.0}


@pytest.mark.parametrize(("trim_start", "trim_end"), [(5.0, 5.0), (11.0, 0.0), (-1.0, 0.0)])
def test_steady_window_rejects_empty_or_negative(trim_start, trim_end):
    with pytest.raises(ValueError):
        steady_window(10.0, 20.0, trim_start, trim_end)


def test_counter_delta_uses_first_and_last_sample_inside():
    assert counter_delta(TIMES, COUNTS, Window(0.9, 3.1)) == (400, pytest.approx(2.0))
    assert counter_delta(TIMES, COUNTS, Window(0.9, 1.2)) is None  # one sample only
    with pytest.raises(ValueError):
        counter_delta(TIMES, COUNTS[:-1], Window(0.0, 1.0))


def test_pooled_rate_is_total_count_over_total_time():
    assert pooled_rate(TIMES, COUNTS, [Window(0.0, 2.0)]) == pytest.approx(100.0)
    assert pooled_rate(TIMES, COUNTS, [Window(2.0, 4.0)]) == pytest.approx(300.0)
    # 1 s at 100/s and 1 s at 300/s pool to 200/s (not the mean of the two rates
    # weighted any other way).
    both = [Window(0.0, 1.0), Window(3.0, 4.0)]
    assert pooled_rate(TIMES, COUNTS, both) == pytest.approx(200.0)
    # Unequal lengths: 2 s at 100/s and 0.5 s at 300/s -> 350 / 2.5 = 140/s.
    assert pooled_rate(TIMES, COUNTS, [Window(0, 2), Window(3.5, 4)]) == pytest.approx(140.0)
    assert pooled_rate(TIMES, COUNTS, [Window(5.0, 6.0)]) is None
    assert pooled_rate(TIMES, COUNTS, []) is None


def test_mean_and_max_in_windows_skip_missing_samples():
    values = [1.0, None, 3.0, 5.0, None]
    times = [0.0, 1.0, 2.0, 3.0, 4.0]
    assert mean_in_windows(times, values, [Window(0, 2)]) == pytest.approx(2.0)
    assert mean_in_windows(times, values, [Window(0, 0.5), Window(2.5, 4)]) == pytest.approx(3.0)
    assert max_in_windows(times, values, [Window(0, 4)]) == 5.0
    assert mean_in_windows(times, values, [Window(4, 4)]) is None
    assert max_in_windows(times, values, []) is None


def test_first_time_finds_the_start_of_training():
    assert first_time([1.0, 2.0, 3.0], [0, 0, 7], 0) == 3.0
    assert first_time([1.0, 2.0], [0, 0], 0) is None


def test_rate_series_merges_samples_to_min_dt():
    mids, rates = rate_series(TIMES, COUNTS, min_dt=1.0)
    assert mids == pytest.approx([0.5, 1.5, 2.5, 3.5])
    assert rates == pytest.approx([100.0, 100.0, 300.0, 300.0])
    assert rate_series([], [], 1.0) == ([], [])
    # Samples closer than min_dt are merged with the next ones.
    mids, rates = rate_series([0.0, 0.1, 0.2, 1.2], [0, 1, 2, 12], min_dt=1.0)
    assert mids == pytest.approx([0.6]) and rates == pytest.approx([10.0])


def test_duty_cycle():
    assert duty_cycle(7.5, 10.0) == pytest.approx(0.75)
    assert duty_cycle(0.0, 1.0) == 0.0
    with pytest.raises(ValueError):
        duty_cycle(1.0, 0.0)
    with pytest.raises(ValueError):
        duty_cycle(-1.0, 1.0)


@pytest.mark.parametrize(
    ("num", "den", "expected"),
    [(300.0, 3.0, 100.0), (1.0, 0.0, None), (None, 2.0, None), (2.0, None, None)],
)
def test_ratio(num, den, expected):
    assert ratio(num, den) == (pytest.approx(expected) if expected is not None else None)


def test_ratio_rejects_infinite_denominator():
    assert ratio(1.0, float("inf")) is None


def test_time_shares_adds_other():
    shares = time_shares({"infer": 2.0, "step": 5.0, "queue": 1.0}, 10.0)
    assert shares == pytest.approx({"infer": 0.2, "step": 0.5, "queue": 0.1, "other": 0.2})
    # Parts measured on several threads can exceed the total a little: "other" stays 0.
    assert time_shares({"step": 11.0}, 10.0)["other"] == 0.0
    with pytest.raises(ValueError):
        time_shares({"step": 1.0}, 0.0)


def test_target():
    assert target(120.0, 100.0) == {"value": 120.0, "at_least": 100.0, "met": True}
    assert target(0.89, 0.9)["met"] is False
    assert target(None, 0.5)["met"] is False


def test_abba_schedule():
    assert abba_schedule(("a", "b"), 3) == ["a", "b", "b", "a", "a", "b"]
    assert abba_schedule(("a", "b", "c"), 2) == ["a", "b", "c", "c", "b", "a"]
    with pytest.raises(ValueError):
        abba_schedule(("a",), 0)
