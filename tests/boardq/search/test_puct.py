"""PUCT's choice of an edge: the Python loop for small nodes and numpy's for wide ones agree.

`Node.select` scores a node of up to `SMALL_NODE` edges in a Python loop and a wider one
in numpy; a search must not play another move for the width of a node. Random edge
statistics, with visits, virtual losses, proven edges and tied scores, each scored both
ways, and one scored by hand.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from boardq.search.tree_node import puct_small, puct_wide


def random_stats(rng: np.random.Generator, edges: int) -> tuple[np.ndarray, ...]:
    n = rng.integers(0, 30, edges) * (rng.random(edges) < 0.7)  # some unvisited
    vloss = rng.integers(0, 3, edges) * (rng.random(edges) < 0.3)
    w = rng.uniform(-1, 1, edges) * n
    q0 = rng.choice([-0.5, 0.0, 0.25], edges)  # few values: ties among the unvisited
    prior = rng.random(edges) if rng.random() < 0.5 else np.full(edges, 1.0)
    prior = prior / prior.sum()
    exact = np.where(rng.random(edges) < 0.2, rng.choice([-1.0, 0.0, 1.0], edges), np.nan)
    if np.isnan(exact).sum() == 0:
        exact[rng.integers(edges)] = np.nan  # a node not proven has an open edge
    return n.astype(np.int64), vloss.astype(np.int64), w, q0, prior, exact


@pytest.mark.parametrize("edges", [1, 2, 7, 16, 17, 82])
def test_the_loop_and_numpy_choose_the_same_edge(edges):
    rng = np.random.default_rng(edges)
    for _ in range(2000):
        stats = random_stats(rng, edges)
        c = float(rng.choice([0.5, 1.0, 2.0]))
        chosen = puct_small(*stats, c)
        assert chosen == puct_wide(*stats, c)
        assert np.isnan(stats[5][chosen])  # never a proven edge


def test_an_edge_scored_by_hand():
    n, vloss = np.array([3, 0, 1]), np.array([1, 0, 0])
    w, q0 = np.array([1.5, 0.0, -0.2]), np.array([0.1, 0.3, 0.0])
    prior, exact = np.array([0.5, 0.2, 0.3]), np.array([np.nan, np.nan, np.nan])
    total = 1 + 3 + 1 + 1  # one plus the visits, the virtual loss among them
    scores = [
        (1.5 - 1) / 4 + math.sqrt(total) * 0.5 / 5,  # 0.125 + 0.245
        0.3 + math.sqrt(total) * 0.2 / 1,  # unvisited: the network's value, 0.3 + 0.490
        -0.2 / 1 + math.sqrt(total) * 0.3 / 2,  # -0.2 + 0.367
    ]
    assert int(np.argmax(scores)) == 1
    assert puct_small(n, vloss, w, q0, prior, exact, 1.0) == 1
    assert puct_wide(n, vloss, w, q0, prior, exact, 1.0) == 1
    exact[1] = 1.0  # proven: never chosen again, though its score was the best
    assert (
        puct_small(n, vloss, w, q0, prior, exact, 1.0)
        == 0
        == puct_wide(n, vloss, w, q0, prior, exact, 1.0)
    )
