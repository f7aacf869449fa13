"""The compiled tree's array work that needs no game (numba): sums, logits, copies.

numpy's sum, the priors' logits, and a subtree copied into new arrays (the tree `T` of
`boardq_games.fast_tree`).

`pairwise_sum` and `logits` give numpy's floats to the bit: the priors of the compiled
tree are the plain tree's (`boardq.search.tree_node.Node.expand`).
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

__all__ = ["compact", "logits", "pairwise_sum"]


@nb.njit(cache=True)
def pairwise_sum(a, s, n):
    """Numpy's sum of `a[s:s + n]` (float64, contiguous): the same pairwise blocks of 8."""
    if n < 8:
        res = 0.0
        for i in range(n):
            res += a[s + i]
        return res
    if n <= 128:
        r = np.empty(8)
        for j in range(8):
            r[j] = a[s + j]
        i = 8
        while i < n - (n % 8):
            for j in range(8):
                r[j] += a[s + i + j]
            i += 8
        res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
        while i < n:
            res += a[s + i]
            i += 1
        return res
    n2 = n // 2
    n2 -= n2 % 8
    return pairwise_sum(a, s, n2) + pairwise_sum(a, s + n2, n - n2)


@nb.njit(cache=True)
def logits(q, legal, k, g, temperature, q0, out):
    """The clipped values `q0` and the priors' logits of `k` rows of the network's `q`.

    `np.clip(q, -g, g)`, then (q0 - the legal moves' largest) / T, as `Node.expand`.
    """
    for j in range(k):
        top = -math.inf
        for a in range(q.shape[1]):
            x = min(max(q[j, a], -g), g)
            q0[j, a] = x
            if legal[j, a]:
                top = max(top, x)
        for a in range(q.shape[1]):
            out[j, a] = (q0[j, a] - top) / temperature if legal[j, a] else 0.0


@nb.njit(cache=True)
def policy_logits(q, policy, legal, k, g, q0, out):
    """`logits`' work for a tree whose priors are a policy's (`Node.expand` with one).

    `np.clip(q, -g, g)` into `q0`, and the policy's logits less the legal moves'
    largest into `out` (0 on the others).
    """
    for j in range(k):
        top = -math.inf
        for a in range(q.shape[1]):
            q0[j, a] = min(max(q[j, a], -g), g)
            if legal[j, a]:
                top = max(top, policy[j, a])
        for a in range(q.shape[1]):
            out[j, a] = policy[j, a] - top if legal[j, a] else 0.0


@nb.njit(cache=True)
def compact(T, root, U):
    """Copies the subtree of `root` into the empty tree `U` (root first); returns U's size."""
    order = np.empty(T[17][0], np.int64)
    order[0], top, head = root, 1, 0
    mapped = np.full(T[17][0], -1, np.int64)
    mapped[root] = 0
    while head < top:  # breadth first: a node's slot is its place in `order`
        node = order[head]
        head += 1
        for i in range(T[1][node], T[1][node] + T[2][node]):
            c = T[15][i]
            if c >= 0:
                mapped[c] = top
                order[top] = c
                top += 1
    edges = 0
    for new in range(top):
        node = order[new]
        U[0][new] = T[0][node]
        U[3][new], U[4][new], U[5][new] = T[3][node], T[4][node], T[5][node]
        U[6][new], U[7][new], U[18][new] = T[6][node], T[7][node], T[18][node]
        s, count = T[1][node], T[2][node]
        U[1][new], U[2][new] = edges, count
        for i in range(count):
            a, b = s + i, edges + i
            U[8][b], U[9][b], U[10][b], U[11][b] = T[8][a], T[9][a], T[10][a], T[11][a]
            U[12][b], U[13][b], U[14][b] = T[12][a], T[13][a], T[14][a]
            U[15][b] = mapped[T[15][a]] if T[15][a] >= 0 else -1
            U[16][b] = new
        edges += count
    U[17][0], U[17][1] = top, edges
    return mapped
