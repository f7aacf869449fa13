"""Depth-limited negamax with alpha-beta over a game's rules, the Q-network at the leaves.

The search runs over a game's pure rules (`boardq.game.Rules`) on boards seen by the
player to move. The value of action `a` at a position `s`, searched to depth `d`, from
the view of the player to move at `s`:

    v(s, a, d) = +1                              if a wins at once
               = 0                               if a fills the board (a draw)
               = clip(Q(s, a), -g, g)             if d == 1
               = -g * max_b v(s.a, b, d - 1)      otherwise

with `g` the discount. This is the backup the network was trained with (the negamax
form of the target, `(-discount)^n`, see `boardq.dqn.transitions`), so depth 1 is the
network's greedy choice wherever no move ends the game, and a win in k moves is worth
g^(k-1): the search prefers winning sooner and losing later. Network values are
clipped to [-g, g] because a move that does not end the game is worth at most a win
two moves later (g^2) and at least a loss on the reply (-g), so no estimate can
outrank a win on the board, whatever the network says.

The network is asked only at depth-1 nodes (the leaves), and never one position at a
time: a node at depth 2 sends all of its children in one batch. Inside each root move's
subtree alpha-beta prunes, with moves tried in the order the batched values suggest.
Every root move gets its exact searched value (hints show them all).

No TensorFlow here: the network comes in as `q_batch(planes [B, ...]) -> Q [B, A]`.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from boardq.game import Rules

__all__ = ["DEFAULT_DISCOUNT", "OutOfTime", "QBatch", "Search", "SearchStats"]

QBatch = Callable[[np.ndarray], np.ndarray]
"""The network: int8 planes [B, *obs_shape] -> Q-values [B, A] of the player to move."""

DEFAULT_DISCOUNT = 0.99
"""Per-move discount of the search: a win now outranks the same win two moves later."""


@dataclass
class SearchStats:
    """Work done by the searches so far (for tests and timing)."""

    nodes: int = 0
    """Positions expanded (moves applied from)."""
    batches: int = 0
    """Calls of the network."""
    leaves: int = 0
    """Positions sent to the network."""


class OutOfTime(Exception):
    """A search passed its deadline; its depth is abandoned."""


@dataclass
class _Child:
    action: int
    board: np.ndarray
    exact: float | None  # +1 win, -1 loss, 0 draw (the mover's view); None: the game goes on


@dataclass
class Search:
    """Depth-`depth` negamax with alpha-beta over `rules`, `q_batch` at the leaves.

    Attributes:
        rules: the game's rules.
        q_batch: the network (see `QBatch`).
        depth: plies searched, at least 1 (1: the network's values, exact where a move
            ends the game).
        discount: the per-move discount `g` in (0, 1].
        deadline: a `clock()` reading past which the search gives up (`values` raises
            `OutOfTime`); None: no limit.
        clock: the time in seconds (injected in tests).
    """

    rules: Rules
    q_batch: QBatch
    depth: int
    discount: float = DEFAULT_DISCOUNT
    stats: SearchStats = field(default_factory=SearchStats)
    deadline: float | None = None
    clock: Callable[[], float] = time.perf_counter

    def __post_init__(self) -> None:
        if isinstance(self.depth, bool) or int(self.depth) != self.depth or self.depth < 1:
            raise ValueError(f"search depth must be a whole number >= 1, got {self.depth!r}")
        if not 0.0 < self.discount <= 1.0:
            raise ValueError(f"discount must be in (0, 1], got {self.discount}")

    def values(
        self, board: np.ndarray, exact_root: bool = True, order: np.ndarray | None = None
    ) -> np.ndarray:
        """The searched value of every action for the player to move.

        Args:
            board: a position where the game goes on, seen by the player to move.
            exact_root: every root move's exact value (hints show them all); False: only
                the best move's is exact, the others' are bounds at or below it (alpha-beta
                at the root too, for a player that only needs the best move).
            order: the root moves' values from a shallower search; with `exact_root`
                False the moves are tried best first, so the rest are cut soonest.

        Returns:
            float64 [num_actions]: v(board, a, depth) per legal action, NaN elsewhere.
        """
        values = np.full(self.rules.num_actions, np.nan)
        children = self._expand(board)
        if not children:
            raise ValueError("the position has no legal move")
        if self.depth == 1:
            q = self._evaluate([board])[0]
            for child in children:
                values[child.action] = self._leaf_value(child, q)
            return values
        child_q = self._child_q(children, self.depth)
        indices = list(range(len(children)))
        if not exact_root and order is not None:
            ranked = np.nan_to_num(order, nan=-np.inf)
            indices.sort(key=lambda i: -ranked[children[i].action])
        best = -math.inf
        g = self.discount
        for i in indices:
            child = children[i]
            if child.exact is not None:
                values[child.action] = child.exact
            else:
                q = None if child_q is None else child_q[i]
                beta = math.inf if exact_root or best == -math.inf else -best / g
                reply = self._negamax(child.board, self.depth - 1, -math.inf, beta, q)
                values[child.action] = -g * reply
            best = max(best, values[child.action])
        return values

    def _negamax(
        self, board: np.ndarray, depth: int, alpha: float, beta: float, q: np.ndarray | None
    ) -> float:
        """The value of a position where the game goes on, for its mover (fail-soft).

        `q` is the network's output for `board` when a parent already batched it.
        """
        if depth == 1:
            return self._leaf(board, beta, q)
        children = self._expand(board)
        if any(child.exact == 1.0 for child in children):
            return 1.0  # Nothing is worth more than winning now.
        child_q = self._child_q(children, depth)
        order = range(len(children))
        if child_q is not None:
            # The child whose mover expects least first: the likeliest cut.
            order = sorted(order, key=lambda i: self._best_q(children[i].board, child_q[i]))
        best = -math.inf
        g = self.discount
        for i in order:
            child = children[i]
            if child.exact is not None:
                value = child.exact
            else:
                q_i = None if child_q is None else child_q[i]
                value = -g * self._negamax(
                    child.board, depth - 1, -beta / g, -max(alpha, best) / g, q_i
                )
            best = max(best, value)
            if best >= beta:
                break
        return best

    def _leaf(self, board: np.ndarray, beta: float, q: np.ndarray | None) -> float:
        """A depth-1 node: the best of the network's values and the moves that end the game."""
        self._check_time()
        if q is None:
            q = self._evaluate([board])[0]
        self.stats.nodes += 1
        legal = np.flatnonzero(self.rules.legal_mask(board))
        best = -math.inf
        # Highest value first: once the best reaches beta the rest cannot matter.
        for action in legal[np.argsort(-q[legal], kind="stable")]:
            child = self._child(board, int(action))
            best = max(best, self._leaf_value(child, q))
            if best >= 1.0 or best >= beta:
                break
        return best

    def _best_q(self, board: np.ndarray, q: np.ndarray | None) -> float:
        if q is None:
            return -math.inf  # A finished child: tried first, it costs nothing.
        return float(np.max(q[self.rules.legal_mask(board)]))

    def _leaf_value(self, child: _Child, q: np.ndarray) -> float:
        if child.exact is not None:
            return child.exact
        g = self.discount
        return float(np.clip(q[child.action], -g, g))

    def _child_q(self, children: list[_Child], depth: int) -> list[np.ndarray | None] | None:
        """At depth 2 the children are leaves: the network's values of all of them at once."""
        if depth != 2:
            return None
        open_children = [i for i, child in enumerate(children) if child.exact is None]
        if not open_children:
            return None
        q = self._evaluate([children[i].board for i in open_children])
        result: list[np.ndarray | None] = [None] * len(children)
        for row, i in enumerate(open_children):
            result[i] = q[row]
        return result

    def _check_time(self) -> None:
        if self.deadline is not None and self.clock() > self.deadline:
            raise OutOfTime

    def _expand(self, board: np.ndarray) -> list[_Child]:
        self._check_time()
        self.stats.nodes += 1
        legal = np.flatnonzero(self.rules.legal_mask(board))
        return [self._child(board, int(a)) for a in legal]

    def _child(self, board: np.ndarray, action: int) -> _Child:
        after = self.rules.apply(board, action)
        # `after` is seen by the next mover: a win of the mover's shows as -1 there (in
        # line games always; in Othello the last move can also lose).
        winner = self.rules.winner(after)
        if winner != 0:
            return _Child(action, after, float(-winner))
        if self.rules.is_full(after):
            return _Child(action, after, 0.0)
        return _Child(action, after, None)

    def _evaluate(self, boards: list[np.ndarray]) -> np.ndarray:
        planes = np.stack([self.rules.planes_from_board(b) for b in boards]).astype(np.int8)
        self.stats.batches += 1
        self.stats.leaves += len(boards)
        return np.asarray(self.q_batch(planes), np.float64)
