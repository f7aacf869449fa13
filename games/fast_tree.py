"""The tree search's compiled kernels (numba): descents, expansions, backups and proofs.

Here, beside the games, because numba caches a kernel on disk only when the functions it
calls are its module's globals (a jitted function passed as an argument, or closed
over, is compiled again in every process): the kernels call every game's compiled rules
through `boardq_games.fast_rules`, and the tree search (`boardq.search.fasttree`)
reaches them through the rules it is given (`compiled()`), as it reaches the rules.

The same tree as `boardq.search.tree` and `boardq.search.tree_node` (the same PUCT,
virtual losses, collisions, scans, proofs and backups, in the same order and with the
same floating-point operations), held in flat arrays instead of `Node` objects: a
node's edges are a contiguous run of the edge arrays. `T` is the tuple of arrays:

    nodes: board [M, L] int16, start, count (its edges), expanded, value, proven,
        pending, scanned
    edges: action, prior, q0, w, exact, n, vloss, child (-1: none), parent
    used: int64 [2], the nodes and edges taken
    partial: each node's, a legal move left out of its edges (`Node.partial`)

The game's rules come in through `boardq_games.fast_rules` (`tag`, whose dtype picks the
game's rules when a kernel is compiled, so a kernel is compiled with one game's rules
only; `spec`; `komi`). The
priors' exponentials are numpy's, computed by the caller (numpy's `exp` and the C
library's differ in the last bit for a few values in a hundred); their sum here is
numpy's pairwise sum, so the priors are the plain tree's to the bit.
"""

from __future__ import annotations

import math
import sys

import numba as nb
import numpy as np

from boardq_games.fast_arrays import compact, logits, pairwise_sum, policy_logits
from boardq_games.fast_rules import TAGS, CompiledRules, r_apply, r_end, r_legal, r_planes

__all__ = [
    "abandon",
    "compact",
    "compiled_form",
    "finish",
    "gather",
    "logits",
    "policy_logits",
    "scan_root",
]

DONE, LEAF, COLLISION, TOO_DEEP = 0, 1, 2, 3


def compiled_form(
    game: int,
    side: int,
    shape: tuple[int, ...],
    dtype,
    planes: tuple[int, ...],
    actions: int,
    komi: float = 0.0,
    prune: bool = False,
    pass_to_end: bool = False,
) -> CompiledRules:
    """A game's compiled form, these kernels with its rules (a rules class's `compiled()`).

    Args:
        game: the game's number in `boardq_games.fast_rules`.
        side: its board's side.
        shape: the shape of its plain positions.
        dtype: their dtype.
        planes: the shape of its planes.
        actions: its actions.
        komi: Go's komi.
        prune: Go's own true eyes left out of the legal moves.
        pass_to_end: the pass searched only where `boardq.search.passing` keeps it.
    """
    spec = np.array([game, side, pass_to_end, prune], np.int64)
    kernels = sys.modules[__name__]
    tag = np.empty(0, TAGS[game])
    return CompiledRules(spec, float(komi), shape, np.dtype(dtype), planes, actions, kernels, tag)


@nb.njit(cache=True)
def init_node(T, node):
    """Marks node slot `node` a new position, not yet valued."""
    T[1][node] = 0
    T[2][node] = 0
    T[3][node] = False
    T[4][node] = 0.0
    T[5][node] = math.nan
    T[6][node] = False
    T[7][node] = False
    T[18][node] = False


@nb.njit(cache=True)
def select(T, node, c_puct):
    """PUCT's edge (`tree_node.puct_small`): the same floats, the first of equal scores."""
    s, count = T[1][node], T[2][node]
    prior, q0, w, exact, n, vloss = T[9], T[10], T[11], T[12], T[13], T[14]
    total = 0
    for i in range(s, s + count):
        total += n[i] + vloss[i]
    explore = c_puct * math.sqrt(1 + total)
    best, chosen = -math.inf, s
    for i in range(s, s + count):
        if not math.isnan(exact[i]):
            continue
        k = n[i] + vloss[i]
        score = ((w[i] - vloss[i]) / k if k > 0 else q0[i]) + explore * prior[i] / (k + 1)
        if score > best:
            best, chosen = score, i
    if not math.isnan(exact[chosen]):  # all proven, yet open: a partial node
        for i in range(s, s + count):
            if exact[i] > exact[chosen]:
                chosen = i  # its best proven edge (the first of equals) is its value
    return chosen


@nb.njit(cache=True)
def backup(T, path, depth, value, g):
    """Adds `value` (the last edge's, its node's mover's view) up the path's edges."""
    w, n, vloss = T[11], T[13], T[14]
    for i in range(depth - 1, -1, -1):
        e = path[i]
        vloss[e] -= 1
        n[e] += 1
        w[e] += value
        value = -g * value


@nb.njit(cache=True)
def position_value(T, node):
    """`proven.position_value` of a node's edges."""
    exact = T[12]
    s, count = T[1][node], T[2][node]
    win, best, open_edge = -math.inf, -math.inf, False
    for i in range(s, s + count):
        x = exact[i]
        if x > 0:
            win = max(win, x)
        elif math.isnan(x):
            open_edge = True
        else:
            best = max(best, x)
    if win > -math.inf:
        return win
    if open_edge or T[18][node]:  # a move left out may do better: only a win proves
        return math.nan
    return best + 0.0  # -g * 0.0 is -0.0: a draw is 0


@nb.njit(cache=True)
def settle(T, path, depth, last, g):
    """`proven.settle` up the path; `last` >= 0 is a node below its last edge."""
    exact, parent, proven = T[12], T[16], T[5]
    entries = depth + 1 if last >= 0 else depth
    for k in range(entries - 1, -1, -1):
        node = last if k == depth else parent[path[k]]
        value = position_value(T, node)
        if math.isnan(value):
            return
        proven[node] = value
        if k > 0:
            exact[path[k - 1]] = -g * value + 0.0


@nb.njit(cache=True)
def scan(T, tag, spec, komi, node):
    """`Node.scan`: every move tried for an end of the game; the others get their child."""
    board, q0, exact, child, action, used = T[0], T[10], T[12], T[15], T[8], T[17]
    s, count = T[1][node], T[2][node]
    for i in range(s, s + count):
        if child[i] >= 0 or not math.isnan(exact[i]):
            continue
        new = used[0]
        r_apply(tag, spec, board[node], action[i], board[new])
        end = r_end(tag, spec, komi, board[new])
        if math.isnan(end):
            init_node(T, new)
            used[0] += 1
            child[i] = new
        else:
            exact[i] = q0[i] = end
    T[7][node] = True


@nb.njit(cache=True)
def descend(T, tag, spec, komi, root, c_puct, g, path):
    """One descent (`tree._descend`): (kind, leaf or -1, depth); the edges in `path`."""
    board, action, child, vloss, exact, used = T[0], T[8], T[15], T[14], T[12], T[17]
    node, depth = root, 0
    while True:
        e = select(T, node, c_puct)
        vloss[e] += 1
        if depth == len(path):
            return TOO_DEEP, -1, depth
        path[depth] = e
        depth += 1
        below = child[e]
        if below < 0:
            new = used[0]
            r_apply(tag, spec, board[node], action[e], board[new])
            end = r_end(tag, spec, komi, board[new])
            if not math.isnan(end):
                exact[e] = end
                backup(T, path, depth, end, g)
                settle(T, path, depth, -1, g)
                return DONE, -1, depth
            init_node(T, new)
            used[0] += 1
            below = child[e] = new
        if T[6][below]:
            for i in range(depth):
                vloss[path[i]] -= 1
            return COLLISION, -1, depth
        if not T[3][below]:
            T[6][below] = True
            return LEAF, below, depth
        node = below


@nb.njit(cache=True)
def gather(
    T, tag, spec, komi, root, leaves, c_puct, g, paths, depths, found, planes, legal, partial
):
    """Up to `leaves` descents (`tree.grow`'s loop); the leaves' planes and legal moves.

    Returns the leaves waiting (rows of `found`, `depths`, `paths`, `planes`, `legal`),
    or -1 if a descent went deeper than a row of `paths`.
    """
    k = 0
    for _ in range(leaves):
        if not math.isnan(T[5][root]):
            break
        kind, leaf, depth = descend(T, tag, spec, komi, root, c_puct, g, paths[k])
        if kind == TOO_DEEP:
            return -1
        if kind == LEAF:
            found[k], depths[k] = leaf, depth
            r_planes(tag, spec, T[0][leaf], planes[k])
            partial[k] = r_legal(tag, spec, komi, T[0][leaf], legal[k])
            k += 1
    return k


@nb.njit(cache=True)
def expand(T, node, q0_row, exp_row, legal_row, policy):
    """`Node.expand` with the network's clipped values and their exponentials by action.

    With `policy` the exponentials are the policy's and the node's value is the priors'
    expectation of q0, added left to right as `tree_node.expectation` adds; else the
    best q0. Returns False for a position without a legal move (the caller raises).
    """
    action, prior, q0, w, exact, n, vloss = T[8], T[9], T[10], T[11], T[12], T[13], T[14]
    child, parent, used = T[15], T[16], T[17]
    s = used[1]
    count = 0
    for a in range(len(legal_row)):
        if legal_row[a]:
            i = s + count
            action[i], q0[i], prior[i] = a, q0_row[a], exp_row[a]
            count += 1
    if count == 0:
        return False
    total = pairwise_sum(prior, s, count)
    best = -math.inf
    for i in range(s, s + count):
        prior[i] = prior[i] / total
        w[i], exact[i], n[i], vloss[i], child[i], parent[i] = 0.0, math.nan, 0, 0, -1, node
        best = max(best, q0[i])
    if policy:
        best = 0.0
        for i in range(s, s + count):
            best += prior[i] * q0[i]
    used[1] += count
    T[1][node], T[2][node], T[3][node], T[6][node], T[4][node] = s, count, True, False, best
    return True


@nb.njit(cache=True)
def node_max_q0(T, node):
    best = -math.inf
    for i in range(T[1][node], T[1][node] + T[2][node]):
        best = max(best, T[10][i])
    return best


@nb.njit(cache=True)
def node_max_exact(T, node):
    """The best proven value of a node's edges (-inf: none proven)."""
    best = -math.inf
    for i in range(T[1][node], T[1][node] + T[2][node]):
        if T[12][i] == T[12][i]:
            best = max(best, T[12][i])
    return best


@nb.njit(cache=True)
def finish(
    T, tag, spec, komi, found, depths, paths, k, q0, ex, legal, partial, g, scan_plies, root,
    policy,
):  # fmt: skip
    """Values the gathered leaves and backs them up, in order (`tree.grow`'s second half).

    With `root` the single leaf is the unvalued root (no path; its proof is settled);
    with `policy` the priors are a policy's (`tree._expand`). Returns False if a leaf
    had no legal move.
    """
    for j in range(k):
        node, depth = found[j], depths[j]
        if not expand(T, node, q0[j], ex[j], legal[j], policy):
            return False
        T[18][node] = partial[j]
        if depth < scan_plies:
            scan(T, tag, spec, komi, node)
            if policy:
                T[4][node] = max(T[4][node], node_max_exact(T, node))
            else:
                T[4][node] = node_max_q0(T, node)
        if root:
            settle(T, paths[j], 0, node, g)
            continue
        backup(T, paths[j], depth, -g * T[4][node], g)
        if T[7][node]:
            settle(T, paths[j], depth, node, g)
    return True


@nb.njit(cache=True)
def scan_root(T, tag, spec, komi, root, g):
    """A kept root scanned once it is the root, and its proof settled."""
    scan(T, tag, spec, komi, root)
    settle(T, np.empty(0, np.int64), 0, root, g)


@nb.njit(cache=True)
def leaf_inputs(T, tag, spec, komi, node, planes, legal):
    """A node's planes and legal moves, for the network and its expansion; whether partial."""
    r_planes(tag, spec, T[0][node], planes)
    return r_legal(tag, spec, komi, T[0][node], legal)


@nb.njit(cache=True)
def abandon(T, found, depths, paths, k):
    """Takes back `k` gathered leaves whose values never came: no leaf waits, no virtual loss."""
    for j in range(k):
        T[6][found[j]] = False
        for i in range(depths[j]):
            T[14][paths[j][i]] -= 1
