"""Masked action selection: illegal moves are never chosen."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from boardq.dqn.policies import epsilon_greedy, linear_epsilon, masked_argmax, masked_q


def test_masked_argmax_skips_a_better_illegal_move():
    q = np.array([[5.0, 1.0, 2.0], [0.0, -1.0, -3.0]])
    mask = np.array([[0, 1, 1], [0, 0, 1]], bool)
    np.testing.assert_array_equal(masked_argmax(q, mask), [2, 2])


def test_masked_argmax_refuses_a_position_without_moves():
    with pytest.raises(ValueError, match="^a position has no legal move$"):
        masked_argmax(np.zeros((1, 3)), np.zeros((1, 3), bool))
    # One position without a move among others is refused too.
    with pytest.raises(ValueError, match="^a position has no legal move$"):
        masked_argmax(np.zeros((2, 3)), np.array([[1, 0, 0], [0, 0, 0]], bool))


def test_masked_q_marks_illegal_as_minus_infinity():
    out = masked_q(np.array([1.0, 2.0]), np.array([True, False]))
    assert out[0] == 1.0 and out[1] == -np.inf


@settings(max_examples=200, deadline=None)
@given(
    mask=hnp.arrays(bool, st.tuples(st.integers(1, 16), st.integers(1, 9))),
    epsilon=st.floats(0, 1),
    seed=st.integers(0, 2**32 - 1),
)
def test_epsilon_greedy_always_legal(mask, epsilon, seed):
    mask[:, 0] |= ~mask.any(axis=1)  # every row needs a legal move
    rng = np.random.default_rng(seed)
    q = rng.normal(size=mask.shape) * 100
    actions = epsilon_greedy(q, mask, epsilon, rng)
    assert mask[np.arange(len(actions)), actions].all()


def test_epsilon_greedy_explores_uniformly_over_legal_moves():
    rng = np.random.default_rng(0)
    mask = np.tile(np.array([1, 0, 1, 1, 0], bool), (20_000, 1))
    q = np.tile(np.array([9.0, 100.0, 0.0, 0.0, 0.0]), (20_000, 1))
    actions = epsilon_greedy(q, mask, 1.0, rng)
    counts = np.bincount(actions, minlength=5) / len(actions)
    np.testing.assert_allclose(counts, [1 / 3, 0, 1 / 3, 1 / 3, 0], atol=0.02)
    greedy = epsilon_greedy(q, mask, 0.0, rng)
    assert (greedy == 0).all()


@pytest.mark.parametrize(("t", "expected"), [(0, 1.0), (50, 0.55), (100, 0.1), (10_000, 0.1)])
def test_linear_epsilon(t, expected):
    assert linear_epsilon(t, 1.0, 0.1, 100) == pytest.approx(expected)


def test_linear_epsilon_without_decay_is_the_end_value():
    assert linear_epsilon(0, 1.0, 0.2, 0) == 0.2


def test_linear_epsilon_starts_at_the_start_and_ends_exactly_at_the_end():
    assert linear_epsilon(0, 1.0, 0.1, 1) == 1.0  # a decay of one transition
    assert linear_epsilon(1, 1.0, 0.1, 1) == 0.1
    assert linear_epsilon(10, 1.0, 0.1, 10) == 0.1  # the end value itself, not 1.0 - 0.9
