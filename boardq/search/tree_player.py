"""The best-first tree search at play: a player that grows a tree over the learned Q-values.

`TreeSearchPlayer` searches a number of visits a move (`visits`) or a time a move
(`move_time`), over a game's pure rules (`boardq.game.Rules`) with the network's values
at the leaves and exact values where a game ends (the tree itself: `boardq.search.tree`).
It keeps its tree between the moves of a game: a position found in the kept tree one or
two plies below the last root (the opponent's reply to the move played, a hint's
position before the move) starts the next search with that subtree and its visits.
Outcomes proven in the tree (`boardq.search.proven`) end a search early: a root proven
won, drawn or lost is played at once, by its proof.

The interface, for every caller (play, evaluate, serve, the GTP engine and its analysis):

    act(observation, seconds=None) -> int     the move (seconds: this move's time instead)
    decide(observation, seconds=None) -> (int, float)  the move and its value, one search
    q_values(observation) -> [A]              each move's value (NaN: illegal)
    value_of(observation, action) -> float    a move's value, from the search it moved by
    analyse(observation, seconds) -> [MoveStats]  the tree grown `seconds` more, best first
    forget()                                  drop the kept tree (unrelated positions next)
    describe() -> str

No TensorFlow here: the network comes in as `q_batch(planes [B, ...]) -> Q [B, A]`.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from boardq.search.alphabeta import DEFAULT_DISCOUNT, QBatch
from boardq.search.fasttree import tree_backend
from boardq.search.passing import PassToEnd
from boardq.search.tree import Node, TreeConfig, principal_variation

if TYPE_CHECKING:
    from boardq.game import Rules

__all__ = ["MoveStats", "TreeConfig", "TreeSearchPlayer", "TreeStats"]

REUSE_PLIES = 2
"""How far below the last root a new root is looked for in the kept tree."""


@dataclass(frozen=True)
class MoveStats:
    """What the search found of one move at the root.

    Attributes:
        action: the move.
        visits: the visits through it (a proven move's stop growing once proven).
        value: its mean value, from the mover's view, in [-1, 1] (the network's value
            while it has no visit); for a proven move its exact value: g^(k-1) a win in k
            moves (+1 now), 0 a draw, -g^(k-1) a loss in k.
        prior: its prior (0..1; the priors of a position add up to 1).
        pv: the principal variation, starting with `action`; through proven positions
            it follows their proof (the quickest win proven, the slowest loss).
        proven: whether its outcome is proven (then `value` is exact, not a mean).
    """

    action: int
    visits: int
    value: float
    prior: float
    pv: tuple[int, ...]
    proven: bool = False


@dataclass
class TreeStats:
    """Work done by the searches so far (for tests, timing and the benchmark)."""

    calls: int = 0
    """Calls of the network."""
    leaves: int = 0
    """Positions sent to the network (roots and leaves)."""
    visits: int = 0
    """Visits added to trees (leaves valued, ended games reached again, roots valued)."""
    reused: int = 0
    """Visits found in the kept tree at the start of searches."""
    solved: int = 0
    """Searches for a move whose root was proven (they stop there, before their budget)."""


def _seconds(value: float | None, what: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{what} must be a number of seconds > 0, got {value!r}")
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"{what} must be a number of seconds > 0, got {value!r}")
    return float(value)


@dataclass
class TreeSearchPlayer:
    """A player that grows a search tree before it moves (fits `Player`).

    Attributes:
        rules: the game's rules.
        q_batch: the network (see `boardq.search.alphabeta.QBatch`).
        visits: the root's visits a move (the kept tree's count towards them); or
        move_time: the seconds a move (one of the two).
        discount: the per-move discount `g` in (0, 1].
        config: how the tree grows (priors, exploration, leaves a call, the pass).
        pass_action: the game's pass, if it has one: with `config.pass_to_end` the tree
            searches it only where it ends the game, no group of the mover's can be
            taken or the pass is forced (`boardq.search.passing`); None searches every
            legal move alike.
        clock: the time in seconds (injected in tests).
        compiled: grow the tree compiled where the rules have a compiled form
            (`boardq.search.fasttree`: the same moves, several times the visits a
            second); False: the plain tree.
    """

    rules: Rules
    q_batch: QBatch
    visits: int | None = None
    move_time: float | None = None
    discount: float = DEFAULT_DISCOUNT
    config: TreeConfig = field(default_factory=TreeConfig)
    pass_action: int | None = None
    clock: Callable[[], float] = time.perf_counter
    stats: TreeStats = field(default_factory=TreeStats)
    compiled: bool = True

    def __post_init__(self) -> None:
        if (self.visits is None) == (self.move_time is None):
            raise ValueError("a tree search needs visits or a time per move, not both")
        v = self.visits
        if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 1):
            raise ValueError(f"visits must be a whole number >= 1, got {v!r}")
        self.move_time = _seconds(self.move_time, "the time per move")
        if not 0.0 < self.discount <= 1.0:
            raise ValueError(f"discount must be in (0, 1], got {self.discount}")
        if self.pass_action is not None and self.config.pass_to_end:
            self.rules = PassToEnd(self.rules, self.pass_action)
        self.root: Node | None = None
        self._searched: bytes | None = None  # the root's key once a move's search ran on it
        self._lock = threading.RLock()  # serve's sessions and GTP analysis share a player
        self._tree = tree_backend(self.rules, self.config, self.discount, self.compiled)

    def describe(self) -> str:
        """How it searches, for people: "tree search of 800 visits a move" or "... 1 s ..."."""
        if self.visits is not None:
            return f"tree search of {self.visits} visits a move"
        return f"tree search of {self.move_time:g} s a move"

    @property
    def depth(self) -> int:
        """The length of the last search's principal variation (how far its best line looks).

        1 where only the root was valued (the network's move); 0 before any search.
        """
        root = self.root
        if root is None or not root.expanded:
            return 0
        return len(principal_variation(root, root.best_edge()))

    def act(self, observation: Mapping[str, np.ndarray], seconds: float | None = None) -> int:
        """The move to play (`Node.best_edge`): a proof's best, else the most visited.

        Args:
            observation: the PettingZoo observation of the player to move.
            seconds: this move's time, in place of the player's own budget (game clocks);
                a player of `visits` stops at its visits or at the time, whichever first.
        """
        with self._lock:
            root = self._search(observation, _seconds(seconds, "seconds"))
            return int(root.actions[root.best_edge()])

    def decide(
        self, observation: Mapping[str, np.ndarray], seconds: float | None = None
    ) -> tuple[int, float]:
        """The move `act` plays and its value, from one search in one call.

        For callers that count the time (a game's clock): the value is read from the
        tree that chose the move, within the same call, so nothing is searched after
        the time is taken.

        Args:
            observation: the PettingZoo observation of the player to move.
            seconds: this move's time, as `act`'s.

        Returns:
            The action and its value (`MoveStats.value`: the mean, or the exact value
            of a proven move), from the mover's view in [-1, 1].
        """
        with self._lock:
            root = self._search(observation, _seconds(seconds, "seconds"))
            edge = root.best_edge()
            return int(root.actions[edge]), float(root.means()[edge])

    def q_values(self, observation: Mapping[str, np.ndarray]) -> np.ndarray:
        """Each legal move's mean value from the search (NaN for illegal moves)."""
        with self._lock:
            root = self._search(observation, None)
            values = np.full(self.rules.num_actions, np.nan)
            values[root.actions] = root.means()
            return values

    def value_of(self, observation: Mapping[str, np.ndarray], action: int) -> float:
        """The mean value of `action` in the search `act` chose from here."""
        return float(self.q_values(observation)[action])

    def analyse(self, observation: Mapping[str, np.ndarray], seconds: float) -> list[MoveStats]:
        """Grows the kept tree of this position `seconds` more; its moves, best first."""
        budget = _seconds(seconds, "seconds")
        with self._lock:
            self._grow(self._root_for(observation), None, budget)
            return self.move_stats()

    def move_stats(self) -> list[MoveStats]:
        """The kept root's moves, best first, in the order `act` chooses (`Node.ranked`)."""
        with self._lock:
            root = self.root
            if root is None or not root.expanded:
                return []
            means = root.means()
            return [
                MoveStats(
                    action=int(root.actions[i]),
                    visits=int(root.n[i]),
                    value=float(means[i]),
                    prior=float(root.prior[i]),
                    pv=principal_variation(root, int(i)),
                    proven=not math.isnan(root.exact[i]),
                )
                for i in root.ranked()
            ]

    def forget(self) -> None:
        """Drops the kept tree: the next search starts afresh (for unrelated positions)."""
        with self._lock:
            self.root = None
            self._searched = None

    def _search(self, observation: Mapping[str, np.ndarray], seconds: float | None) -> Node:
        """The root of `observation`, searched for a move unless it was already.

        A position with one legal move (a forced pass) is valued, not searched.
        """
        root = self._root_for(observation)
        if self._searched != root.key:
            budget = seconds if seconds is not None else self.move_time
            self._grow(root, 1, None)
            if len(root.actions) > 1:
                self._grow(root, self.visits, budget)
            self.stats.solved += root.solved
            self._searched = root.key
        return root

    def _root_for(self, observation: Mapping[str, np.ndarray]) -> Node:
        """The kept tree's node of this position, made the root; a new root if none."""
        legal = np.asarray(observation["action_mask"], bool)
        board = self.rules.board_from_planes(np.asarray(observation["observation"]), legal)
        key = self.rules.key(board)
        found = self._find(key)
        if found is None:
            found = self._tree.node(board)
            found.key = key
            self._searched = None
        elif found is not self.root:
            self._searched = None
            self.stats.reused += found.visits
        self.root = found = self._tree.rooted(found)  # the compiled tree drops the rest
        return found

    def _find(self, key: bytes) -> Node | None:
        """The node of `key` at most `REUSE_PLIES` below the kept root (nearest first)."""
        level = [self.root] if self.root is not None else []
        for _ in range(REUSE_PLIES + 1):
            below = []
            for node in level:
                if node.key is None:
                    node.key = self.rules.key(node.board)
                if node.key == key:
                    return node
                if node.expanded:
                    below += [c for c in node.children if c is not None and c.expanded]
            level = below
        return None

    def _grow(self, root: Node, visits: int | None, seconds: float | None) -> None:
        """Grows the tree until the root has `visits`, or `seconds` have passed."""
        deadline = None if seconds is None else self.clock() + seconds
        k = self.config.leaves_per_call
        while True:
            before = root.visits
            if root.solved:
                return
            if visits is not None and before >= visits:
                return
            if before > 0 and deadline is not None and self.clock() >= deadline:
                return
            leaves = k if visits is None else min(k, visits - before)
            valued = self._tree.grow(root, self.q_batch, leaves)
            self.stats.calls += valued > 0
            self.stats.leaves += valued
            self.stats.visits += root.visits - before
