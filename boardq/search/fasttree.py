"""The tree search's tree compiled: the plain tree's growth in numba, over flat arrays.

The tree search at play spends its time in Python: a visit's selection at every ply,
the rules' moves, the backup (docs/performance.md). This is the same tree
(`boardq.search.tree`: PUCT, virtual losses, collisions, scans, proofs, the pass),
grown by numba kernels (`boardq_games.fast_tree`) over the games' compiled
rules (`boardq_games.fast_rules`), with the network called from Python between them,
one call a batch of leaves as before. It chooses the same edges with the same floats,
so the same moves and visit counts (the tests compare the two on fixed positions).

`tree_backend` gives a search its tree: the compiled one where the rules have a
compiled form (`compiled()`: Connect Four, Othello, Hex and Go, with Go's pruning and
searched pass), else the plain one. Both answer `node(board)`, `rooted(node)` and
`grow(root, q_batch, leaves)`; the compiled tree's nodes are views (`FastNode`) that
read like `tree.Node`, so the player's move choice, statistics and principal variations
are the plain code's. `rooted` keeps only the new root's subtree (copied to new arrays),
so a game's tree does not grow with its moves.

The compiled path has its own of `tree.grow`/`_descend`/`_backup`/`_release`/`_expand`,
`Node.expand`/`scan`/`select` (`puct_small`, `puct_wide`), `proven.settle`/
`position_value`, `tree_node.end_value`, `PassToEnd.searched_moves`, `PrunedRules`'
legal moves, `life.safe_to_pass` and the rules' moves, legal moves, ends and planes:
a change to one of those must be made to its compiled twin too
(`tests/boardq/search/test_fasttree.py` and `tests/games/test_fast_rules.py` compare
them). `Node.means`/`ranked`/`best_edge` and `principal_variation` are shared.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from boardq.pruning import PrunedRules
from boardq.search.passing import PassToEnd
from boardq.search.tree import Node, TreeConfig, grow, network_outputs

if TYPE_CHECKING:
    from boardq.search.alphabeta import QBatch

__all__ = ["CompiledTree", "FastNode", "PlainTree", "compiled_form", "tree_backend"]

NODES = 1024
"""Nodes a new tree has room for (doubled as it grows): a search of a few hundred visits."""
_NODE_FIELDS = (np.int64, np.int64, np.bool_, np.float64, np.float64, np.bool_, np.bool_)
_EDGE_FIELDS = (np.int64, np.float64, np.float64, np.float64, np.float64, np.int64, np.int64)
_EDGE_FIELDS += (np.int64, np.int64)  # child, parent


def compiled_form(rules):
    """The compiled form of the rules a tree search is given, or None: it has none.

    The game's rules say (`compiled(pruned, pass_to_end)`, `boardq_games.fast_rules`),
    unwrapped of the pass the tree searches (`PassToEnd`) and the pruned moves
    (`PrunedRules`), which they are told of.
    """
    pass_to_end, pruned = False, None
    if type(rules) is PassToEnd:
        pass_to_end, rules = True, rules.rules
    if type(rules) is PrunedRules:
        pruned, rules = rules._pruned, rules.rules
    make = getattr(rules, "compiled", None)
    return None if make is None else make(pruned=pruned, pass_to_end=pass_to_end)


def tree_backend(rules, config: TreeConfig, g: float, compiled: bool = True):
    """The tree for a search over `rules`: compiled where it can be, else the plain one."""
    form = compiled_form(rules) if compiled else None
    if form is None:
        return PlainTree(rules, config, g)
    return CompiledTree(form, config, g)


class PlainTree:
    """The plain tree (`boardq.search.tree`) behind the interface of `CompiledTree`."""

    def __init__(self, rules, config: TreeConfig, g: float) -> None:
        self.rules, self.config, self.g = rules, config, g

    def node(self, board: np.ndarray) -> Node:
        return Node(board)

    def rooted(self, node: Node) -> Node:
        return node

    def grow(self, root: Node, q_batch: QBatch, leaves: int) -> int:
        return grow(root, self.rules, q_batch, self.config, self.g, leaves)


class FastNode:
    """A node of a `CompiledTree`, read like `tree.Node` (its arrays are views)."""

    __slots__ = ("index", "tree")

    def __init__(self, tree: CompiledTree, index: int) -> None:
        self.tree, self.index = tree, index

    def _edges(self, field: int) -> np.ndarray | None:
        T, i = self.tree.T, self.index
        if not T[3][i]:
            return None
        start = int(T[1][i])
        return T[field][start : start + int(T[2][i])]

    expanded = property(lambda self: bool(self.tree.T[3][self.index]))
    actions = property(lambda self: self._edges(8))
    prior = property(lambda self: self._edges(9))
    q0 = property(lambda self: self._edges(10))
    w = property(lambda self: self._edges(11))
    exact = property(lambda self: self._edges(12))
    n = property(lambda self: self._edges(13))
    vloss = property(lambda self: self._edges(14))
    value = property(lambda self: float(self.tree.T[4][self.index]))
    proven = property(lambda self: float(self.tree.T[5][self.index]))
    pending = property(lambda self: bool(self.tree.T[6][self.index]))
    scanned = property(lambda self: bool(self.tree.T[7][self.index]))
    partial = property(lambda self: bool(self.tree.T[18][self.index]))
    solved = Node.solved
    means = Node.means
    ranked = Node.ranked
    best_edge = Node.best_edge

    @property
    def visits(self) -> int:
        """`Node.visits`: 1 (its valuation) and its edges' visits; 0 while not valued.

        Read twice a call of the network by the player: the arrays read directly.
        """
        T, i = self.tree.T, self.index
        if not T[3][i]:
            return 0
        start = T[1][i]
        return 1 + int(T[13][start : start + T[2][i]].sum())

    @property
    def board(self) -> np.ndarray:
        c = self.tree.compiled
        return self.tree.T[0][self.index].astype(c.dtype).reshape(c.shape)

    @property
    def children(self) -> list[FastNode | None] | None:
        kids = self._edges(15)
        return None if kids is None else [self.tree.view(int(k)) if k >= 0 else None for k in kids]

    @property
    def key(self) -> bytes | None:
        return self.tree.keys.get(self.index)

    @key.setter
    def key(self, value: bytes | None) -> None:
        self.tree.keys[self.index] = value


class CompiledTree:
    """A tree grown by the compiled kernels; one root at a time, at slot 0.

    Args:
        compiled: the rules' compiled form (`compiled_form`).
        config: how the tree grows.
        g: the discount.
    """

    def __init__(self, compiled, config: TreeConfig, g: float) -> None:
        self.compiled, self.config, self.g = compiled, config, float(g)
        self.kernels = compiled.kernels
        self.actions = compiled.num_actions
        self.plane_size = int(np.prod(compiled.planes_shape))
        self.length = int(np.prod(compiled.shape))
        self.edges_a_node = min(self.actions, 32)
        self.T = self._arrays(NODES, NODES * self.edges_a_node)
        self._buf: tuple | None = None
        self.keys: dict[int, bytes | None] = {}
        self._views: dict[int, FastNode] = {}

    def _arrays(self, nodes: int, edges: int) -> tuple:
        # Empty, not zeroed: a node's fields are written when it is made, an edge's when
        # its node is expanded (zeroing a new tree's arrays took a tenth of a short search).
        board = np.empty((nodes, self.length), np.int16)
        node_arrays = tuple(np.empty(nodes, t) for t in _NODE_FIELDS)
        edge_arrays = tuple(np.empty(edges, t) for t in _EDGE_FIELDS)
        partial = np.empty(nodes, np.bool_)
        return (board, *node_arrays, *edge_arrays, np.zeros(2, np.int64), partial)

    def view(self, index: int) -> FastNode:
        """The node at `index` (one object a node, so `is` compares nodes)."""
        node = self._views.get(index)
        if node is None:
            node = self._views[index] = FastNode(self, index)
        return node

    def node(self, board: np.ndarray) -> FastNode:
        """A new tree of one node, `board` (the tree before is dropped)."""
        self.T = self._arrays(NODES, NODES * self.edges_a_node)
        self.keys, self._views = {}, {}
        self.T[0][0] = np.asarray(board).reshape(-1)
        self.kernels.init_node(self.T, 0)
        self.T[17][0] = 1
        return self.view(0)

    def rooted(self, node: FastNode) -> FastNode:
        """`node` made the root: its subtree kept (at slot 0), the rest dropped."""
        if node.index == 0:
            return node
        used = self.T[17]
        U = self._arrays(max(NODES, int(used[0])), max(NODES * self.edges_a_node, int(used[1])))
        mapped = self.kernels.compact(self.T, node.index, U)
        self.keys = {int(mapped[i]): k for i, k in self.keys.items() if mapped[i] >= 0}
        self.T, self._views = U, {}
        return self.view(0)

    def _reserve(self, nodes: int, edges: int) -> None:
        """Room for `nodes` and `edges` more (the arrays doubled as needed)."""
        used, T = self.T[17], self.T
        need_nodes, need_edges = int(used[0]) + nodes, int(used[1]) + edges
        have_nodes, have_edges = len(T[1]), len(T[8])
        if need_nodes <= have_nodes and need_edges <= have_edges:
            return
        U = self._arrays(max(need_nodes, 2 * have_nodes), max(need_edges, 2 * have_edges))
        for field, (old, new) in enumerate(zip(T, U, strict=True)):
            if field == 17:
                new[:] = old
            else:
                new[: len(old)] = old
        self.T = U

    def _buffers(self, leaves: int) -> tuple:
        """The arrays a call of `leaves` leaves fills (kept from call to call)."""
        if self._buf is None or len(self._buf[0]) < leaves:
            A = self.actions
            self._buf = (
                np.empty(leaves, np.int64),  # the leaves' nodes
                np.zeros(leaves, np.int64),  # their depths
                np.empty((leaves, 4 * A + 64), np.int64),  # their paths' edges
                np.empty((leaves, self.plane_size), np.int8),
                np.empty((leaves, A), np.bool_),  # their legal moves
                np.empty(leaves, np.bool_),  # partial: a legal move left out
                np.empty((leaves, A)),  # q0, the clipped values
                np.empty((leaves, A)),  # the logits, then their exponentials
            )
        return self._buf

    def grow(self, root: FastNode, q_batch: QBatch, leaves: int) -> int:
        """`tree.grow` compiled: up to `leaves` visits with one call of the network at most."""
        c, config, A, K = self.compiled, self.config, self.actions, self.kernels
        scan_plies = config.scan_plies
        found, depths, paths, planes, legal, partial, _, _ = buf = self._buffers(leaves)
        T, index = self.T, root.index
        if not T[3][index]:  # not expanded: the root valued alone
            self._reserve(A + 1, A)
            found[0], depths[0] = root.index, 0
            partial[0] = K.leaf_inputs(
                self.T, c.tag, c.spec, c.komi, root.index, planes[0], legal[0]
            )
            return self._value(q_batch, buf, 1, True)
        if scan_plies and not T[7][index]:  # a kept root, scanned once it is the root
            self._reserve(A, 0)
            K.scan_root(self.T, c.tag, c.spec, c.komi, root.index, self.g)
        self._reserve(leaves * (1 + (A if scan_plies > 1 else 0)), leaves * A)
        k = K.gather(
            self.T, c.tag, c.spec, c.komi, root.index, leaves, config.c_puct, self.g,
            paths, depths, found, planes, legal, partial,
        )  # fmt: skip
        if k < 0:
            raise RuntimeError("a descent of the tree went deeper than its path can hold")
        if k == 0:
            return 0
        return self._value(q_batch, buf, k, False)

    def _value(self, q_batch, buf: tuple, k: int, root: bool) -> int:
        """The network's values of the `k` leaves gathered, expanded and backed up."""
        c, T, K = self.compiled, self.T, self.kernels
        found, depths, paths, planes, legal, partial, q0, ex = buf
        try:
            q, policy = network_outputs(q_batch(planes[:k].reshape((k, *c.planes_shape))))
        except BaseException:
            K.abandon(T, found, depths, paths, k)  # no leaf left waiting, no virtual loss
            raise
        # The priors as `Node.expand` makes them: the logits (the same IEEE operations, in
        # float64), then numpy's own exp, whose last bit the C library's does not always give.
        if policy is None:
            K.logits(q, legal, k, self.g, self.config.temperature, q0, ex)
        else:
            K.policy_logits(q, policy, legal, k, self.g, q0, ex)
        np.exp(ex[:k], out=ex[:k])
        ok = K.finish(
            T, c.tag, c.spec, c.komi, found, depths, paths, k, q0, ex, legal, partial,
            self.g, self.config.scan_plies, root, policy is not None,
        )  # fmt: skip
        if not ok:
            raise ValueError("a position where the game goes on has no legal move")
        return k
