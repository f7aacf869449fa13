"""Action selection over legal moves (numpy only).

Masking happens here, outside the network: illegal moves are never chosen, greedily
or at random.
"""

from __future__ import annotations

import numpy as np

__all__ = ["epsilon_greedy", "linear_epsilon", "masked_argmax", "masked_q", "random_legal"]


def masked_q(q: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Q-values with illegal moves set to -inf.

    Args:
      q: [B, A] or [A] values.
      mask: same shape, truthy where the move is legal.
    """
    return np.where(np.asarray(mask, dtype=bool), q, -np.inf)


def masked_argmax(q: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Index of the best legal move per row (ties: the lowest index).

    Raises:
      ValueError: a row has no legal move.
    """
    mask = np.asarray(mask, dtype=bool)
    if not mask.any(axis=-1).all():
        raise ValueError("a position has no legal move")
    return np.argmax(masked_q(q, mask), axis=-1)


def epsilon_greedy(
    q: np.ndarray, mask: np.ndarray, epsilon: float, rng: np.random.Generator
) -> np.ndarray:
    """Per row: with probability epsilon a uniformly random legal move, else the best one.

    Args:
      q: [B, A] Q-values.
      mask: [B, A] legal moves.
      epsilon: exploration rate in [0, 1].
      rng: the caller's generator (one per thread).

    Returns:
      [B] int64 actions, all legal.
    """
    mask = np.asarray(mask, dtype=bool)
    greedy = masked_argmax(q, mask)
    explore = rng.random(greedy.shape[0]) < epsilon
    if not explore.any():
        return greedy
    greedy[explore] = random_legal(mask[explore], rng)
    return greedy


def random_legal(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """[B] a uniformly random legal move per row of a [B, A] bool mask.

    The argmax of random keys restricted to the legal moves (every row must have one).
    """
    keys = np.where(mask, rng.random(mask.shape), -1.0)
    return np.argmax(keys, axis=-1)


def linear_epsilon(transitions: int, start: float, end: float, decay_transitions: int) -> float:
    """Epsilon after `transitions` collected: linear from start to end, then constant."""
    if decay_transitions <= 0 or transitions >= decay_transitions:
        return end
    return start + (end - start) * (transitions / decay_transitions)
