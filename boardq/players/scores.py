"""Scores of matches: points per game (win 1, draw 0.5, loss 0) and their intervals.

Scores count a win 1, a draw 0.5 and a loss 0 (the convention of Elo ratings), so a
score is the mean points per game in [0, 1]; 0.5 is an even match. Results are from
one player's side: +1 a win, 0 a draw, -1 a loss.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

__all__ = ["Z_95", "score_interval", "scores", "seat_metrics"]

Z_95 = 1.959963984540054
"""The standard normal quantile of a two-sided 95% interval."""


def score_interval(points: float, games: int, z: float = Z_95) -> tuple[float, float]:
    """The Wilson interval of a score (win 1, draw 0.5, loss 0) over `games` games.

    Draws make a game's points vary less than a win-or-loss coin with the same mean, so
    treating the score as a binomial proportion makes the interval a little wide, never
    narrow. Unlike mean +- z * sd it stays inside [0, 1] and does not shrink to a point
    when every game had the same result.

    Args:
        points: total points scored.
        games: games played (at least 1).
        z: the normal quantile (1.96 for 95%).

    Returns:
        (low, high) with 0 <= low <= points / games <= high <= 1.
    """
    if games < 1:
        raise ValueError(f"games must be positive, got {games}")
    p = points / games
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"points {points} outside [0, {games}]")
    z2 = z * z
    center = (p + z2 / (2 * games)) / (1 + z2 / games)
    half = z * math.sqrt(p * (1 - p) / games + z2 / (4 * games * games)) / (1 + z2 / games)
    # Rounding can put an end a hair past the score when every game had one result.
    return max(0.0, min(p, center - half)), min(1.0, max(p, center + half))


def scores(prefix: str, results: Sequence[int]) -> dict[str, float]:
    """`score`, `score_low`, `score_high` and `games` of `results` (at least one).

    Each name is put after `prefix` (such as "first/").
    """
    points = float(np.sum((np.asarray(results) + 1) / 2))  # -1, 0, +1 -> 0, 0.5, 1
    low, high = score_interval(points, len(results))
    return {
        f"{prefix}score": points / len(results),
        f"{prefix}score_low": low,
        f"{prefix}score_high": high,
        f"{prefix}games": float(len(results)),
    }


def seat_metrics(prefix: str, results: Sequence[int]) -> dict[str, float]:
    """`scores` and the rates `win`, `draw` and `loss` of one seat's `results`."""
    outcomes = np.asarray(results)
    return {
        f"{prefix}win": float(np.mean(outcomes == 1)),
        f"{prefix}draw": float(np.mean(outcomes == 0)),
        f"{prefix}loss": float(np.mean(outcomes == -1)),
        **scores(prefix, results),
    }
