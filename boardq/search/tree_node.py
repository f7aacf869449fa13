"""The nodes of the best-first search's tree (`boardq.search.tree`): edges, priors, PUCT.

A node is a position where the game goes on, seen by its mover; each legal move is an
edge with its visits `n`, its sum of backed-up values `w` (the mover's view, the
negamax convention of `boardq.search.tree`), its prior (softmax of the network's
clipped Q over the legal moves, temperature T), its virtual losses and, once known,
its exact value (`boardq.search.proven`). How the tree grows: `boardq.search.tree`.

numpy only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from boardq.search.proven import ranked

if TYPE_CHECKING:
    from boardq.game import Rules

__all__ = [
    "PRIORS",
    "Node",
    "TreeConfig",
    "end_value",
    "expectation",
    "principal_variation",
    "puct_small",
    "puct_wide",
]


PRIORS = ("auto", "q", "policy")
"""What a tree's priors and leaf values may come from (`TreeConfig.prior`)."""


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
        pass_to_end: in a game with a pass, search the pass only where it ends the game,
            no group of the mover's can be taken (Go: Benson's unconditional life, or
            seki) or the pass is forced (`boardq.search.passing`); the
            player is told the pass.
        prior: where the priors and a leaf's value come from: "q" softmax(Q / T) and
            the best Q; "policy" the policy head's softmax and the policy's
            expectation of Q (KLENT's search; an agent trained with `--policy-head`);
            "auto" the policy where the agent carries one, else Q.
        compiled: grow the tree in compiled kernels where the rules have them
            (`boardq.search.fasttree`: the same tree, several times the visits a
            second); False: the plain tree, in Python (for side-by-side matches).
    """

    c_puct: float = 1.0
    temperature: float = 0.05
    leaves_per_call: int = 16
    scan_plies: int = 1
    pass_to_end: bool = True
    prior: str = "auto"
    compiled: bool = True

    def __post_init__(self) -> None:
        if not isinstance(self.compiled, bool):
            raise ValueError(f"compiled must be true or false, got {self.compiled!r}")
        if self.prior not in PRIORS:
            raise ValueError(f"prior must be one of {', '.join(PRIORS)}, got {self.prior!r}")
        if not isinstance(self.pass_to_end, bool):
            raise ValueError(f"pass_to_end must be true or false, got {self.pass_to_end!r}")
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
        partial: whether a legal move was left out of its edges (the pass where
            `boardq.search.passing` leaves it out): it can be proven won, not lost.
    """

    __slots__ = (
        "actions",
        "board",
        "children",
        "exact",
        "key",
        "n",
        "partial",
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
        self.partial = False
        self.pending = False  # waiting for the network in the batch being gathered
        self.scanned = False  # every move tried for an end of the game

    @property
    def expanded(self) -> bool:
        return self.actions is not None

    @property
    def solved(self) -> bool:
        """Whether the position's outcome is proven (`boardq.search.proven`)."""
        return not math.isnan(self.proven)

    @property
    def visits(self) -> int:
        return 1 + int(self.n.sum()) if self.expanded else 0

    def expand(
        self,
        q: np.ndarray,
        legal: np.ndarray,
        config: TreeConfig,
        g: float,
        policy: np.ndarray | None = None,
    ) -> None:
        """Takes the network's values `q` [A] of the position and its legal mask.

        With `policy` (the policy head's logits [A], `boardq.search.tree`) the
        priors are its softmax over the legal moves and the position's value is the
        policy's expectation of the clipped Q; without, softmax(Q / T) and the best Q.
        """
        actions = np.flatnonzero(legal)
        if len(actions) == 0:
            raise ValueError("a position where the game goes on has no legal move")
        q0 = np.clip(np.asarray(q, np.float64)[actions], -g, g)
        if policy is None:
            logits = (q0 - q0.max()) / config.temperature
        else:
            logits = np.asarray(policy, np.float64)[actions]
            logits = logits - logits.max()
        prior = np.exp(logits)
        size = len(actions)
        self.actions, self.q0, self.prior = actions, q0, prior / prior.sum()
        self.n = np.zeros(size, np.int64)
        self.vloss = np.zeros(size, np.int64)
        self.w = np.zeros(size)
        self.exact = np.full(size, np.nan)
        self.children: list[Node | None] = [None] * size
        self.pending = False
        self.value = float(q0.max()) if policy is None else expectation(self.prior, q0)

    def scan(self, rules: Rules) -> None:
        """Tries every move for an end of the game.

        The moves that end it get their exact values (also their values while unvisited,
        so a win is tried first), the others their child, not yet valued.
        """
        for i, action in enumerate(self.actions):
            if self.children[i] is not None or not math.isnan(self.exact[i]):
                continue
            board = rules.apply(self.board, int(action))
            end = end_value(rules, board)
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

        Proven edges are never chosen while one is open (a partial node may have none
        open and not be proven: then its best proven edge, what it is worth). This runs
        at every ply of every descent: a node of a few edges is scored in a Python loop,
        whose floats are numpy's own, where numpy's cost a call outweighs its
        arithmetic (`puct_small`); a wide one in numpy (`puct_wide`). Both choose alike.
        """
        choose = puct_small if len(self.n) <= SMALL_NODE else puct_wide
        edge = choose(self.n, self.vloss, self.w, self.q0, self.prior, self.exact, c_puct)
        if self.exact[edge] == self.exact[edge]:  # all proven, yet open: a partial node
            edge = int(np.argmax(self.exact))  # its best proven edge is its value
        return edge

    def ranked(self) -> np.ndarray:
        """The edges, best first (`boardq.search.proven.ranked`)."""
        return ranked(self.exact, self.n, self.means(), self.solved)

    def best_edge(self) -> int:
        """The edge to play: the first of `ranked` (a proof's best, else the most visited)."""
        return int(self.ranked()[0])


def expectation(prior: np.ndarray, q0: np.ndarray) -> float:
    """sum(prior * q0), added left to right (the compiled tree adds in the same order)."""
    total = 0.0
    for p, x in zip(prior.tolist(), q0.tolist(), strict=True):
        total += p * x
    return total


SMALL_NODE = 16
"""Edges up to which `select` scores in a Python loop: Connect Four's 7 in 1.6 µs where
numpy took 6, Go's 82 in 17 µs where numpy took 6 (one machine, timeit)."""


def puct_wide(n, vloss, w, q0, prior, exact, c_puct: float) -> int:
    """PUCT's edge, numpy: argmax of q + c * prior * sqrt(1 + N) / (1 + n) over open edges.

    Virtual losses count as visits lost; q is an unvisited edge's network value q0.
    """
    visits = n + vloss
    score = q0.copy()
    np.divide(w - vloss, visits, out=score, where=visits > 0)
    score += (c_puct * math.sqrt(1 + int(visits.sum()))) * prior / (visits + 1)
    return int(np.where(np.isnan(exact), score, -np.inf).argmax())


def puct_small(n, vloss, w, q0, prior, exact, c_puct: float) -> int:
    """`puct_wide`'s choice in a Python loop, for nodes of a few edges.

    The same operations in the same order, so the same floats, and the first of equal
    scores, as argmax takes.
    """
    lost = vloss.tolist()
    visits = [a + b for a, b in zip(n.tolist(), lost, strict=True)]
    explore = c_puct * math.sqrt(1 + sum(visits))
    best, chosen = -math.inf, 0
    edges = zip(visits, lost, w.tolist(), q0.tolist(), prior.tolist(), exact.tolist(), strict=True)
    for i, (k, vl, total, first, p, proof) in enumerate(edges):
        if proof == proof:  # proven (not NaN): never chosen
            continue
        score = ((total - vl) / k if k > 0 else first) + explore * p / (k + 1)
        if score > best:
            best, chosen = score, i
    return chosen


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


def end_value(rules: Rules, board: np.ndarray) -> float | None:
    """The exact value of the move that led to `board` for its mover, or None: play goes on.

    `board` is seen by the next mover: the mover's win shows as -1 there.
    """
    winner = rules.winner(board)
    if winner != 0 or rules.is_full(board):
        return float(-winner)
    return None
