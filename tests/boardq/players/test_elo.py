"""The Elo fit: hand-computed cases, known ratings recovered, perfect records kept finite."""

from __future__ import annotations

import math

import numpy as np
import pytest

from boardq.players.elo import bootstrap_intervals, expected_score, fit_ratings


def simulate(true: list[float], games: int, rng: np.random.Generator, draw_rate: float = 0.0):
    """Round-robin counts from known ratings; draws taken evenly from wins and losses."""
    size = len(true)
    wins = np.zeros((size, size))
    draws = np.zeros((size, size))
    for i in range(size):
        for j in range(i + 1, size):
            p = expected_score(true[i], true[j])
            # Points per game stay p: a draw replaces half a win and half a loss.
            d = draw_rate * min(p, 1 - p) * 2
            w, dr, lo = rng.multinomial(games, [p - d / 2, d, 1 - p - d / 2])
            wins[i, j], wins[j, i] = w, lo
            draws[i, j] = draws[j, i] = dr
    return wins, draws


def test_expected_score_by_hand():
    assert expected_score(400.0, 0.0) == pytest.approx(1 / 1.1)  # 10:1 odds
    assert expected_score(0.0, 0.0) == 0.5
    assert expected_score(-200.0, 0.0) + expected_score(0.0, -200.0) == pytest.approx(1.0)


def test_two_players_by_hand():
    wins = np.array([[0.0, 3.0], [1.0, 0.0]])
    draws = np.zeros((2, 2))
    # 3 wins in 4: odds 3, so 400 * log10(3) = 190.85 Elo apart.
    bare = fit_ratings(wins, draws, prior_draws=0.0)
    assert bare[0] == 0.0 and bare[1] == pytest.approx(-400 * math.log10(3), abs=1e-6)
    # One virtual draw: 3.5 points of 5, odds 3.5 / 1.5.
    prior = fit_ratings(wins, draws)
    assert prior[1] == pytest.approx(-400 * math.log10(3.5 / 1.5), abs=1e-6)


def test_draws_count_half_a_win_each_way():
    # 2 wins, 2 draws, 0 losses: 3 points of 4, the same as 3 wins and a loss.
    with_draws = fit_ratings(np.array([[0.0, 2.0], [0.0, 0.0]]), np.array([[0, 2.0], [2.0, 0]]))
    without = fit_ratings(np.array([[0.0, 3.0], [1.0, 0.0]]), np.zeros((2, 2)))
    np.testing.assert_allclose(with_draws, without, atol=1e-9)
    all_drawn = fit_ratings(np.zeros((3, 3)), 10 * (1 - np.eye(3)))
    np.testing.assert_allclose(all_drawn, 0.0, atol=1e-9)


@pytest.mark.parametrize("draw_rate", [0.0, 0.3])
def test_known_ratings_are_recovered(draw_rate):
    true = [0.0, 200.0, 400.0]
    wins, draws = simulate(true, 4000, np.random.default_rng(0), draw_rate)
    ratings = fit_ratings(wins, draws)
    assert ratings[0] == 0.0
    np.testing.assert_allclose(ratings, true, atol=20.0)


def test_a_perfect_record_stays_finite_and_follows_the_prior():
    wins = np.array([[0.0, 10.0], [0.0, 0.0]])
    draws = np.zeros((2, 2))
    # 10 wins in 10 plus one virtual draw: 10.5 points of 11, odds 21.
    assert fit_ratings(wins, draws)[1] == pytest.approx(-400 * math.log10(21), abs=1e-6)
    # Three players, one unbeaten: all finite, in order.
    wins3 = np.array([[0.0, 20, 20], [0, 0, 12], [0, 8, 0]])
    ratings = fit_ratings(wins3, np.zeros((3, 3)))
    assert np.isfinite(ratings).all() and ratings[0] > ratings[1] > ratings[2]
    with pytest.raises(ValueError, match="converge"):
        fit_ratings(wins, draws, prior_draws=0.0)


def test_the_anchor_is_exactly_zero_and_only_shifts_the_ratings():
    wins, draws = simulate([0.0, 150.0, -100.0, 300.0], 200, np.random.default_rng(1), 0.2)
    base = fit_ratings(wins, draws, anchor=0)
    for anchor in range(4):
        ratings = fit_ratings(wins, draws, anchor=anchor)
        assert ratings[anchor] == 0.0
        np.testing.assert_allclose(ratings, base - base[anchor], atol=1e-6)


@pytest.mark.parametrize(
    "wins, draws, message",
    [
        (np.zeros((2, 3)), np.zeros((2, 3)), "square"),
        (np.array([[0.0, -1], [1, 0]]), np.zeros((2, 2)), "counts"),
        (np.zeros((2, 2)), np.array([[0.0, 1], [0, 0]]), "symmetric"),
        (np.eye(2), np.zeros((2, 2)), "itself"),
        # Players 0-1 and 2-3 never met each other's pair.
        (
            np.array([[0, 1, 0, 0], [1, 0, 0, 0], [0, 0, 0, 1], [0, 0, 1, 0.0]]),
            np.zeros((4, 4)),
            "linked",
        ),
    ],
)
def test_bad_counts_are_refused(wins, draws, message):
    with pytest.raises(ValueError, match=message):
        fit_ratings(wins, draws)


def test_bootstrap_intervals_cover_the_truth_and_shrink_with_games():
    true = [0.0, 200.0, 400.0]
    widths = []
    for games in (100, 1600):
        wins, draws = simulate(true, games, np.random.default_rng(games), 0.2)
        ratings = fit_ratings(wins, draws)
        low, high = bootstrap_intervals(wins, draws, np.random.default_rng(0), rounds=100)
        assert low[0] == high[0] == 0.0  # the anchor
        assert np.all(low <= ratings + 1e-9) and np.all(ratings <= high + 1e-9)
        assert np.all(low <= np.array(true)) and np.all(np.array(true) <= high)
        widths.append(high - low)
    assert np.all(widths[1][1:] < widths[0][1:] / 2)  # 16x the games: about a quarter
