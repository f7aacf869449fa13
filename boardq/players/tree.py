"""The tree of the best-first search at play: its nodes, and growing it by batches of leaves.

A node is a position where the game goes on, seen by its mover. It holds, for each of
its legal moves (an edge), the visits `n` and the sum of the values `w` backed up
through that edge, from the node's mover's view, in the negamax convention of
`boardq.players.search`:

    value of a leaf           = max over legal a of clip(Q(s, a), -g, g)  (the network)
    value of an edge to a leaf = -g * (the leaf's value)
    value of an edge that ends the game = +1 a win, 0 a draw, -1 a loss (exact, no discount)
    value one edge up         = -g * (the value below it)

so a win in k moves is worth g^(k-1) as in the alpha-beta, and an edge's mean
`w / n` is in [-1, 1]. A node's own visits are 1 (its evaluation) plus its edges'
visits, and an edge's visits are the visits of the node it leads to (or, for an edge
that ends the game, how often it was taken): `Node.visits == 1 + n.sum()` holds exactly.

Edges and nodes whose outcome is known are proven (`boardq.players.proven`, an
MCTS-Solver): a move that ends the game, or one into a position proven won, drawn or
lost. A proven edge's mean is its exact value and no descent takes it again; a proven
root is searched no more.

An edge is chosen by PUCT among those not proven: argmax of q + c * prior *
sqrt(visits) / (1 + n), where q is the edge's mean, or the network's (clipped) value of
the move while it has no visit (a new child is valued by its parent's Q), and the priors
are softmax(Q / T) over the legal moves. Children are made when first chosen (a move is
applied once, when needed: Gomoku's rules take 0.1 ms a move).

Several leaves go to the network in one call: each descent adds a virtual loss to the
edges it took (counted apart from `n` and `w`, so the real counts stay exact), the
next descent avoids them, and all leaves are valued and backed up together. A descent
that meets a leaf already waiting (a collision) backs nothing up and adds no visit.

numpy only; the network comes in as `q_batch(planes [B, ...]) -> Q [B, A]`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from boardq.players.proven import ranked, settle

if TYPE_CHECKING:
    from boardq.game import Rules
    from boardq.players.search import QBatch

__all__ = ["Node", "TreeConfig", "grow", "principal_variation"]


@dataclass(frozen=True)
class TreeConfig:
    """How the tree grows.

    Attributes:
        c_puct: the weight of the priors against the values in choosing an edge.
        temperature: T of the priors softmax(Q / T); the network's values differ by a few
            hundredths between good moves, so T is small (Go: T = 0.1 lost by the whole
            board, 0.02 did not).
        leaves_per_call: leaves valued in one call of the network (virtual loss between);
            on two CPU cores 16 gave the most leaves a second (Go: 320 at 1, 1,680 at 8,
            2,150 at 16, 1,950 at 32).
        scan_plies: plies from the root whose nodes, once valued, try every move for an
            end of the game, so a win (or a draw, or Othello's losing last move) there is
            known before the network's taste picks the moves to try (1: the root; 2: the
            replies too, so blocks; 0: none). It costs the rules' move per legal move
            (Gomoku: 0.1 ms each).
    """

    c_puct: float = 1.0
    temperature: float = 0.05
    leaves_per_call: int = 16
    scan_plies: int = 1

    def __post_init__(self) -> None:
        for name in ("c_puct", "temperature"):
            value = getattr(self, name)
            if not (isinstance(value, int | float) and math.isfinite(value) and value > 0):
                raise ValueError(f"{name} must be a number > 0, got {value!r}")
        for name, least in (("leaves_per_call", 1), ("scan_plies", 0)):
            k = getattr(self, name)
            if isinstance(k, bool) or not isinstance(k, int) or k < least:
                raise ValueError(f"{name} must be a whole number >= {least}, got {k!r}")


class Node:
    """A position where the game goes on, and the statistics of its moves.

    Attributes:
        board: the position, seen by its mover.
        actions: int [E], its legal moves (None until the network has valued it).
        prior, q0: float [E], the priors and the network's clipped values of the moves.
        n, w: int [E] and float [E], each edge's visits and sum of backed-up values.
        vloss: int [E], descents under way through each edge (virtual losses).
        exact: float [E], each edge's proven value (NaN: not proven): a move that ends
            the game its result, a move into a proven position -g times its value.
        children: the node each edge leads to (None: not made, or the game ended).
        value: the network's value of the position (its mover's view).
        proven: the position's proven value (its mover's view; NaN: not proven).
    """

    __slots__ = (
        "actions",
        "board",
        "children",
        "exact",
        "key",
        "n",
        "pending",
        "prior",
        "proven",
        "q0",
        "scanned",
        "value",
        "vloss",
        "w",
    )

    def __init__(self, board: np.ndarray) -> None:
        self.board = board
        self.key: bytes | None = None
        self.actions: np.ndarray | None = None
        self.value = 0.0
        self.proven = math.nan
        self.pending = False  # waiting for the network in the batch being gathered
        self.scanned = False  # every move tried for an end of the game

    @property
    def expanded(self) -> bool:
        return self.actions is not None

    @property
    def solved(self) -> bool:
        """Whether the position's outcome is proven (`boardq.players.proven`)."""
        return not math.isnan(self.proven)

    @property
    def visits(self) -> int:
        return 1 + int(self.n.sum()) if self.expanded else 0

    def expand(self, q: np.ndarray, legal: np.ndarray, config: TreeConfig, g: float) -> None:
        """Takes the network's values `q` [A] of the position and its legal mask."""
        actions = np.flatnonzero(legal)
        if len(actions) == 0:
            raise ValueError("a position where the game goes on has no legal move")
        q0 = np.clip(np.asarray(q, np.float64)[actions], -g, g)
        logits = (q0 - q0.max()) / config.temperature
        prior = np.exp(logits)
        size = len(actions)
        self.actions, self.q0, self.prior = actions, q0, prior / prior.sum()
        self.n = np.zeros(size, np.int64)
        self.vloss = np.zeros(size, np.int64)
        self.w = np.zeros(size)
        self.exact = np.full(size, np.nan)
        self.children: list[Node | None] = [None] * size
        self.pending = False
        self.value = float(q0.max())

    def scan(self, rules: Rules) -> None:
        """Tries every move for an end of the game.

        The moves that end it get their exact values (also their values while unvisited,
        so a win is tried first), the others their child, not yet valued.
        """
        for i, action in enumerate(self.actions):
            if self.children[i] is not None or not math.isnan(self.exact[i]):
                continue
            board = rules.apply(self.board, int(action))
            end = _end(rules, board)
            if end is None:
                self.children[i] = Node(board)
            else:
                self.exact[i] = self.q0[i] = end
        self.scanned = True

    def means(self) -> np.ndarray:
        """Each edge's mean value (mover's view); exact if proven, the network's if unvisited."""
        mean = np.where(self.n > 0, self.w / np.maximum(self.n, 1), self.q0)
        return np.where(np.isnan(self.exact), mean, self.exact)

    def select(self, c_puct: float) -> int:
        """The edge PUCT descends through, virtual losses counted as losses.

        Proven edges are never chosen; a node not proven has an edge that is not.
        """
        n = self.n + self.vloss
        q = np.where(n > 0, (self.w - self.vloss) / np.maximum(n, 1), self.q0)
        u = c_puct * self.prior * math.sqrt(1 + int(n.sum())) / (1 + n)
        return int(np.argmax(np.where(np.isnan(self.exact), q + u, -np.inf)))

    def ranked(self) -> np.ndarray:
        """The edges, best first (`boardq.players.proven.ranked`)."""
        return ranked(self.exact, self.n, self.means(), self.solved)

    def best_edge(self) -> int:
        """The edge to play: the first of `ranked` (a proof's best, else the most visited)."""
        return int(self.ranked()[0])


def principal_variation(node: Node, edge: int) -> tuple[int, ...]:
    """The moves from `node` through `edge`, then each position's best edge while they lead on.

    Through proven positions that is their proof: the quickest win, the slowest loss.
    """
    line = [int(node.actions[edge])]
    child = node.children[edge]
    while child is not None and child.expanded and (child.n.sum() > 0 or child.solved):
        edge = child.best_edge()
        line.append(int(child.actions[edge]))
        child = child.children[edge]
    return tuple(line)


def _backup(path: list[tuple[Node, int]], value: float, g: float) -> None:
    """Adds `value` (the last edge's, from its node's mover's view) up the path."""
    for node, edge in reversed(path):
        node.vloss[edge] -= 1
        node.n[edge] += 1
        node.w[edge] += value
        value = -g * value


def _end(rules: Rules, board: np.ndarray) -> float | None:
    """The exact value of the move that led to `board` for its mover, or None: play goes on.

    `board` is seen by the next mover: the mover's win shows as -1 there.
    """
    winner = rules.winner(board)
    if winner != 0 or rules.is_full(board):
        return float(-winner)
    return None


def _evaluate(rules: Rules, q_batch: QBatch, nodes: list[Node]) -> np.ndarray:
    planes = np.stack([rules.planes_from_board(node.board) for node in nodes]).astype(np.int8)
    return np.asarray(q_batch(planes), np.float64)


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
            board = rules.apply(node.board, int(node.actions[edge]))
            end = _end(rules, board)
            if end is not None:
                node.exact[edge] = end
                _backup(path, end, g)
                settle(path, g)
                return "done", None, path
            child = node.children[edge] = Node(board)
        if child.pending:
            for n, e in path:
                n.vloss[e] -= 1
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
        q = _evaluate(rules, q_batch, [root])[0]
        _expand(root, q, rules, config, g, ply=0)
        settle([(root, -1)], g)
        return 1
    if config.scan_plies and not root.scanned:
        root.scan(rules)  # a root kept from a search where it was deeper
        settle([(root, -1)], g)
    waiting: list[tuple[Node, list[tuple[Node, int]]]] = []
    for _ in range(leaves):
        if root.solved:
            break
        kind, leaf, path = _descend(root, rules, config, g)
        if kind == "leaf":
            waiting.append((leaf, path))
    if not waiting:
        return 0
    q = _evaluate(rules, q_batch, [leaf for leaf, _ in waiting])
    for (leaf, path), q_row in zip(waiting, q, strict=True):
        _expand(leaf, q_row, rules, config, g, ply=len(path))
        _backup(path, -g * leaf.value, g)
        if leaf.scanned:
            settle([*path, (leaf, -1)], g)  # a win found there, or every move an end
    return len(waiting)


def _expand(node: Node, q: np.ndarray, rules: Rules, config: TreeConfig, g: float, ply: int):
    """Values a node `ply` plies below the root: the network's, a win found by a scan."""
    node.expand(q, rules.legal_mask(node.board), config, g)
    if ply < config.scan_plies:
        node.scan(rules)
        node.value = float(node.q0.max())
