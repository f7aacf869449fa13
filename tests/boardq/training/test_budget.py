"""A run's budget: the share spent, and how the progress line says it."""

from __future__ import annotations

import pytest

from boardq.training.budget import Budget


def test_the_larger_share_of_steps_and_time_is_what_is_spent():
    budget = Budget(steps=5_000, minutes=60.0, base_elapsed=415.0)  # a resume's 6:55
    assert budget.progress(2_500) == pytest.approx(0.5)
    assert budget.progress(0) == pytest.approx(415 / 3600, abs=1e-3)
    assert budget.progress(9_999) == 1.0
    assert Budget(steps=0, minutes=1.0, base_elapsed=120.0).progress(10**9) == 1.0


def test_the_line_says_what_is_spent_of_what():
    assert Budget(5_000, 60.0, base_elapsed=415.0).describe(1_200) == (
        "6:55 of 60:00, 1,200 of 5,000 steps"
    )
    assert Budget(0, 4.0, base_elapsed=125.2).describe(7) == "2:05 of 4:00"
    assert Budget(300, 0.0).describe(30) == "30 of 300 steps"
