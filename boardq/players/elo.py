"""Elo ratings from game results: a Bradley-Terry fit by Newton's method (numpy only).

The model: player i scores against player j with probability

    P(i beats j) = 1 / (1 + 10 ** ((R_j - R_i) / 400))

and a draw counts as half a win each way. `fit_ratings` finds the ratings of maximum
likelihood over all games, one player (the anchor) held at exactly 0.

A player that won every game has no finite maximum-likelihood rating. So that no
result blows up, every pairing that was played also gets `prior_draws` virtual draws
(1 by default: half a point each way), as BayesElo does. With n real games between
two players, one that won them all is rated 400 * log10(2n + 1) above the other
(n = 100: 921 Elo); with many games the prior moves a rating by very little.

`bootstrap_intervals` resamples the games of each pairing with replacement (their
numbers stay as played) and refits, for percentile intervals.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "ELO_PER_NATURAL",
    "bootstrap_intervals",
    "expected_score",
    "fit_ratings",
    "linked_to",
]

ELO_PER_NATURAL = 400.0 / np.log(10.0)
"""Elo points per unit of the natural-log odds scale."""


def expected_score(rating: float, other: float) -> float:
    """The expected points per game of a player rated `rating` against one rated `other`."""
    return float(1.0 / (1.0 + 10.0 ** ((other - rating) / 400.0)))


def _check(wins: np.ndarray, draws: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    wins = np.asarray(wins, np.float64)
    draws = np.asarray(draws, np.float64)
    size = wins.shape[0]
    if wins.shape != (size, size) or draws.shape != (size, size):
        raise ValueError(
            f"wins and draws must be square and alike, got {wins.shape}, {draws.shape}"
        )
    if np.any(wins < 0) or np.any(draws < 0) or not np.array_equal(draws, draws.T):
        raise ValueError("wins and draws must be counts, draws symmetric")
    if np.any(np.diag(wins)) or np.any(np.diag(draws)):
        raise ValueError("a player cannot play itself")
    return wins, draws


def linked_to(games: np.ndarray, anchor: int) -> np.ndarray:
    """The players joined to `anchor` by a chain of games played, in order (it among them).

    Args:
        games: [P, P] games each pair played (symmetric).
        anchor: the player the chains start from.
    """
    reached = np.zeros(games.shape[0], bool)
    reached[anchor] = True
    for _ in range(games.shape[0]):
        reached = reached | (games[reached] > 0).any(axis=0)
    return np.flatnonzero(reached)


def _connected(games: np.ndarray) -> bool:
    return len(linked_to(games, 0)) == games.shape[0]


def fit_ratings(
    wins: np.ndarray,
    draws: np.ndarray,
    anchor: int = 0,
    prior_draws: float = 1.0,
    tol: float = 1e-9,
    max_iter: int = 100,
) -> np.ndarray:
    """Elo ratings of maximum likelihood under the Bradley-Terry model.

    Args:
        wins: [P, P] games player i won against player j.
        draws: [P, P] symmetric, games i and j drew.
        anchor: the player rated exactly 0.
        prior_draws: virtual draws added to every pairing that was played (see the
            module docstring); 0 for the bare maximum likelihood, which is infinite
            when a player won or lost every game.
        tol: stop when no rating moves by more than this (natural-log units).
        max_iter: Newton steps at most.

    Returns:
        float64 [P]: ratings in Elo points, `ratings[anchor] == 0`.

    Raises:
        ValueError: bad counts, players not all linked by games, or no convergence
            (prior_draws 0 with a perfect record).
    """
    wins, draws = _check(wins, draws)
    games = wins + wins.T + draws
    if not _connected(games):
        raise ValueError("every player must be linked to the others by games played")
    played = games > 0
    points = wins + 0.5 * draws + 0.5 * prior_draws * played  # [P, P], i's points against j
    games = games + prior_draws * played
    free = np.arange(games.shape[0]) != anchor
    r = np.zeros(games.shape[0])
    loglik = _loglik(r, points)
    for _ in range(max_iter):
        p = 1.0 / (1.0 + np.exp(r[None, :] - r[:, None]))  # P(i beats j)
        grad = (points - games * p).sum(axis=1)
        w = games * p * p.T
        hess = np.diag(w.sum(axis=1)) - w  # minus the Hessian: positive definite off the anchor
        step = np.zeros_like(r)
        step[free] = np.linalg.solve(hess[np.ix_(free, free)], grad[free])
        # The log-likelihood is concave; halving keeps the first, long steps from overshooting.
        t = 1.0
        while t > 1e-6 and _loglik(r + t * step, points) < loglik:
            t /= 2
        r = r + t * step
        loglik = _loglik(r, points)
        if np.max(np.abs(t * step)) < tol:
            return r * ELO_PER_NATURAL
    raise ValueError("the ratings did not converge (a perfect record needs prior_draws > 0)")


def _loglik(r: np.ndarray, points: np.ndarray) -> float:
    # log P(i beats j) = -log(1 + exp(r_j - r_i)), summed over i's points against j.
    return float(-(points * np.logaddexp(0.0, r[None, :] - r[:, None])).sum())


def bootstrap_intervals(
    wins: np.ndarray,
    draws: np.ndarray,
    rng: np.random.Generator,
    rounds: int = 200,
    level: float = 0.95,
    **fit_kwargs,
) -> tuple[np.ndarray, np.ndarray]:
    """Percentile intervals of `fit_ratings` by resampling the games of each pairing.

    Args:
        wins: as for `fit_ratings`.
        draws: as for `fit_ratings`.
        rng: the random generator.
        rounds: resamples.
        level: the interval's coverage.
        **fit_kwargs: passed to `fit_ratings` (anchor, prior_draws, ...).

    Returns:
        (low, high), each float64 [P] in Elo; the anchor's are exactly 0.
    """
    wins, draws = _check(wins, draws)
    upper = np.triu_indices(wins.shape[0], k=1)
    counts = np.stack([wins[upper], draws[upper], wins.T[upper]], axis=1)  # [pairs, 3]
    totals = counts.sum(axis=1)
    probs = counts / np.maximum(totals, 1)[:, None]
    samples = []
    for _ in range(rounds):
        drawn = rng.multinomial(totals.astype(np.int64), probs)  # [pairs, 3]
        w = np.zeros_like(wins)
        d = np.zeros_like(draws)
        w[upper], d[upper], w.T[upper] = drawn[:, 0], drawn[:, 1], drawn[:, 2]
        samples.append(fit_ratings(w, d + d.T, **fit_kwargs))
    tail = 100 * (1 - level) / 2
    low, high = np.percentile(np.array(samples), [tail, 100 - tail], axis=0)
    return low, high
