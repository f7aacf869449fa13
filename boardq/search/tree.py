"""The tree of the best-first search at play: its nodes, and growing it by batches of leaves.

A node is a position where the game goes on, seen by its mover. It holds, for each of
its legal moves (an edge), the visits `n` and the sum of the values `w` backed up
through that edge, from the node's mover's view, in the negamax convention of
`boardq.search.alphabeta`:

    value of a leaf           = max over legal a of clip(Q(s, a), -g, g)  (the network)
    value of an edge to a leaf = -g * (the leaf's value)
    value of an edge that ends the game = +1 a win, 0 a draw, -1 a loss (exact, no discount)
    value one edge up         = -g * (the value below it)

so a win in k moves is worth g^(k-1) as in the alpha-beta, and an edge's mean
`w / n` is in [-1, 1]. A node's own visits are 1 (its evaluation) plus its edges'
visits, and an edge's visits are the visits of the node it leads to (or, for an edge
that ends the game, how often it was taken): `Node.visits == 1 + n.sum()` holds exactly.

Edges and nodes whose outcome is known are proven (`boardq.search.proven`, an
MCTS-Solver): a move that ends the game, or one into a position proven won, drawn or
lost. A proven edge's mean is its exact value and no descent takes it again; a proven
root is searched no more.

An edge is chosen by PUCT among those not proven: argmax of q + c * prior *
sqrt(visits) / (1 + n), where q is the edge's mean, or the network's (clipped) value of
the move while it has no visit (a new child is valued by its parent's Q), and the priors
are softmax(Q / T) over the legal moves. From an agent with a policy head, the network
call gives (Q, the policy's logits) instead of Q: the priors are the policy's softmax
over the legal moves and a leaf's value is the policy's expectation of its clipped Q,
sum(pi * Q) (KLENT's search), in place of the best Q. Children are made when first chosen (a move is
applied once, when needed: Gomoku's rules take 0.1 ms a move).

Several leaves go to the network in one call: each descent adds a virtual loss to the
edges it took (counted apart from `n` and `w`, so the real counts stay exact), the
next descent avoids them, and all leaves are valued and backed up together. A descent
that meets a leaf already waiting (a collision) backs nothing up and adds no visit.

The node and its choice of an edge: `boardq.search.tree_node` (re-exported here).

numpy only; the network comes in as `q_batch(planes [B, ...]) -> Q [B, A]`, or
`-> (Q [B, A], logits [B, A])` with a policy (`network_outputs`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from boardq.search.proven import settle
from boardq.search.tree_node import Node, TreeConfig, end_value, principal_variation

if TYPE_CHECKING:
    from boardq.game import Rules
    from boardq.search.alphabeta import QBatch

__all__ = ["Node", "TreeConfig", "grow", "network_outputs", "principal_variation"]


def _backup(path: list[tuple[Node, int]], value: float, g: float) -> None:
    """Adds `value` (the last edge's, from its node's mover's view) up the path."""
    for node, edge in reversed(path):
        node.vloss[edge] -= 1
        node.n[edge] += 1
        node.w[edge] += value
        value = -g * value


def _release(path: list[tuple[Node, int]]) -> None:
    """Takes back the virtual losses of a descent that backs nothing up."""
    for node, edge in path:
        node.vloss[edge] -= 1


def network_outputs(out) -> tuple[np.ndarray, np.ndarray | None]:
    """(Q [B, A], the policy's logits [B, A] or None) of what a network call returned."""
    if isinstance(out, tuple):
        q, logits = out
        return np.asarray(q, np.float64), np.asarray(logits, np.float64)
    return np.asarray(out, np.float64), None


def _evaluate(rules: Rules, q_batch: QBatch, nodes: list[Node]):
    planes = np.stack([rules.planes_from_board(node.board) for node in nodes]).astype(np.int8)
    return network_outputs(q_batch(planes))


def _descend(root: Node, rules: Rules, config: TreeConfig, g: float):
    """One descent from `root`: ("leaf", node, path), ("done", None, path) or ("collision", ...).

    Virtual losses are added along the path; "done" has already backed up an ended game
    and the proofs it makes. `root` must not be proven.
    """
    node, path = root, []
    while True:
        edge = node.select(config.c_puct)  # not proven: neither is the node it leads to
        node.vloss[edge] += 1
        path.append((node, edge))
        child = node.children[edge]
        if child is None:
            try:
                board = rules.apply(node.board, int(node.actions[edge]))
                end = end_value(rules, board)
            except BaseException:
                _release(path)  # the tree as it was before this descent
                raise
            if end is not None:
                node.exact[edge] = end
                _backup(path, end, g)
                settle(path, g)
                return "done", None, path
            child = node.children[edge] = Node(board)
        if child.pending:
            _release(path)
            return "collision", None, path
        if not child.expanded:
            child.pending = True
            return "leaf", child, path
        node = child


def grow(
    root: Node, rules: Rules, q_batch: QBatch, config: TreeConfig, g: float, leaves: int
) -> int:
    """Adds up to `leaves` visits to `root` with one call of the network (at most).

    An unvalued root is valued first, alone (that is its first visit). `leaves` descents
    are made, fewer once the root is proven (then none: its outcome is known); one that
    meets a leaf already waiting adds no visit.

    Returns:
        The positions sent to the network in its one call (0: no call).
    """
    if not root.expanded:
        q, logits = _evaluate(rules, q_batch, [root])
        _expand(root, q[0], None if logits is None else logits[0], rules, config, g, ply=0)
        settle([(root, -1)], g)
        return 1
    if config.scan_plies and not root.scanned:
        root.scan(rules)  # a root kept from a search where it was deeper
        settle([(root, -1)], g)
    waiting: list[tuple[Node, list[tuple[Node, int]]]] = []
    backed = 0
    try:
        for _ in range(leaves):
            if root.solved:
                break
            kind, leaf, path = _descend(root, rules, config, g)
            if kind == "leaf":
                waiting.append((leaf, path))
        if not waiting:
            return 0
        q, logits = _evaluate(rules, q_batch, [leaf for leaf, _ in waiting])
        for j, (leaf, path) in enumerate(waiting):
            policy = None if logits is None else logits[j]
            _expand(leaf, q[j], policy, rules, config, g, ply=len(path))
            _backup(path, -g * leaf.value, g)
            backed += 1
            if leaf.scanned:
                settle([*path, (leaf, -1)], g)  # a win found there, or every move an end
    except BaseException:
        # The network or the rules failed (or an interrupt): the kept tree is searched
        # again, so the leaves not backed up wait no more, unvalued, and give back
        # their virtual losses.
        for leaf, path in waiting[backed:]:
            leaf.pending, leaf.actions, leaf.scanned = False, None, False
            _release(path)
        raise
    return len(waiting)


def _expand(node: Node, q, policy, rules: Rules, config: TreeConfig, g: float, ply: int):
    """Values a node `ply` plies below the root: the network's, a win found by a scan.

    With a policy, a scanned node's value is the policy's expectation or its best move
    that ends the game, whichever is more (a win found is worth its win); without, the
    best of its moves' values, the ends found among them.
    """
    searched = getattr(rules, "searched_moves", None)  # the pass left out, at times
    legal, partial = searched(node.board) if searched else (rules.legal_mask(node.board), False)
    node.expand(q, legal, config, g, policy)
    node.partial = partial
    if ply < config.scan_plies:
        node.scan(rules)
        if policy is None:
            node.value = float(node.q0.max())
        elif not np.isnan(node.exact).all():
            node.value = max(node.value, float(np.nanmax(node.exact)))
