"""Proven values in the tree of the search at play (an MCTS-Solver, Winands et al. 2008).

An edge is proven when its outcome is known whatever is played after it: a move that
ends the game (+1 a win, 0 a draw, -1 a loss), or a move into a position that is itself
proven, worth -g times that position's proven value (the negamax convention of
`boardq.search.tree`, so a win in k moves is worth g^(k-1) and a loss in k -g^(k-1)).
A position is proven

- won, if one of its edges is a proven win: worth its quickest proven win (a quicker
  win may lie among the edges not proven yet, so that is what the search has shown, a
  win in at most so many moves);
- drawn or lost, once all its edges are proven and none wins: worth its best edge (a
  draw if any edge draws, else its slowest loss); but only if its edges are all its
  legal moves. Where the search left a move out (the pass, `boardq.search.passing`),
  the position can be proven won, never drawn or lost: the move left out may do better.

The search never descends into a proven edge again (its mean is its exact value), and a
proven root needs no more search. Here are the rules, pure functions over a node's
per-edge arrays (`exact`: an edge's proven value, NaN while not proven), and `settle`,
which carries a new proof up a descent's path.

numpy only.
"""

from __future__ import annotations

import math
from typing import Protocol

import numpy as np

__all__ = ["Provable", "position_value", "ranked", "settle"]


class Provable(Protocol):
    """What the proof reads and writes of a node (`boardq.search.tree.Node` is one)."""

    exact: np.ndarray
    proven: float
    partial: bool


def position_value(exact: np.ndarray, partial: bool = False) -> float:
    """The proven value of a position, from its mover's view, or NaN: not proven.

    Args:
        exact: float [E], each edge's proven value (NaN: not proven).
        partial: whether a legal move of the position has no edge (left out of the
            search): then only a win is a proof.
    """
    wins = exact > 0  # NaN compares False
    if wins.any():
        return float(exact[wins].max())
    if partial or np.isnan(exact).any():
        return math.nan
    return float(exact.max()) + 0.0  # -g * 0.0 is -0.0: a draw is 0


def ranked(exact: np.ndarray, n: np.ndarray, means: np.ndarray, solved: bool) -> np.ndarray:
    """A node's edges in the order it plays them, the best first.

    A proven position plays its proven best: the quickest win, a draw, the slowest loss
    (then the most visited; a won position's open edges rank as draws). Otherwise the
    most visited edge is played among those worth playing: not a proven loss, and,
    where a draw is proven, not one whose mean is below the draw's 0; then the higher
    mean. Ties go to the lower edge.

    Args:
        exact: float [E], each edge's proven value (NaN: not proven).
        n: int [E], each edge's visits.
        means: float [E], each edge's mean (its exact value where proven).
        solved: whether the position itself is proven (`position_value` not NaN).
    """
    proven = ~np.isnan(exact)
    if solved:
        value = np.where(proven, exact, 0.0)
        return np.lexsort((-means, -n, -value))  # the last key sorts first
    worse = exact < 0
    if np.any(exact == 0):
        worse |= ~proven & (means < 0)
    return np.lexsort((-means, -n, worse))


def settle(path: list[tuple[Provable, int]], g: float) -> None:
    """Marks the nodes up `path` that are now proven, from its last node up.

    Called once an edge of the path's last node, or that node itself, may have become
    proven. A node found proven gets its value (`Node.proven`) and the edge above it
    on the path -g times that; the first node still open stops the walk.

    Args:
        path: (node, edge) from the root down; the edge of the last entry is not read.
        g: the discount.
    """
    for depth in range(len(path) - 1, -1, -1):
        node = path[depth][0]
        value = position_value(node.exact, node.partial)
        if math.isnan(value):
            return
        node.proven = value
        if depth > 0:
            parent, edge = path[depth - 1]
            parent.exact[edge] = -g * value + 0.0
