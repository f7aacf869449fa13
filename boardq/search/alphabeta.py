"""Lookahead at play time: the alpha-beta as a player, to a depth or within a time a move.

`SearchPlayer` searches before it moves with `boardq.search.negamax.Search` (negamax
with alpha-beta to a depth, the Q-network at the leaves: the values it computes are
described there) to a fixed depth, or with `TimedSearch` (iterative deepening) as deep
as a time a move allows. `Search`, `SearchStats`, `QBatch` and `DEFAULT_DISCOUNT` are
re-exported here.

No TensorFlow here: the network comes in as `q_batch(planes [B, ...]) -> Q [B, A]`.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from boardq.dqn.policies import masked_argmax
from boardq.search.negamax import (
    DEFAULT_DISCOUNT,
    OutOfTime,
    QBatch,
    Search,
    SearchStats,
)

if TYPE_CHECKING:
    from boardq.game import Rules

__all__ = [
    "DEFAULT_DISCOUNT",
    "QBatch",
    "Search",
    "SearchPlayer",
    "SearchStats",
    "TimedSearch",
]


@dataclass
class TimedSearch:
    """Iterative deepening within a time per move: depth 1, 2, 3... while time is left.

    Each depth is a whole `Search`; its root moves are tried in the order the last
    depth ranked them. A depth starts only if the time it is expected to take (the last
    depth's time, times how much that one grew over the one before, at least 2x) fits in
    what is left, and is abandoned at the time limit; the deepest finished depth's
    values are the answer, so a move never takes much over `seconds`.

    Attributes:
        rules, q_batch, discount: as `Search`.
        seconds: the time per move.
        max_depth: the deepest search tried (a game near its end needs no more).
        last_depth: the depth the last `values` call finished.
        clock: the time in seconds (injected in tests).
    """

    rules: Rules
    q_batch: QBatch
    seconds: float
    discount: float = DEFAULT_DISCOUNT
    max_depth: int = 64
    last_depth: int = 0
    stats: SearchStats = field(default_factory=SearchStats)
    clock: Callable[[], float] = time.perf_counter

    def __post_init__(self) -> None:
        if not (isinstance(self.seconds, int | float) and math.isfinite(self.seconds)) or (
            self.seconds <= 0
        ):
            raise ValueError(
                f"the time per move must be a number of seconds > 0, got {self.seconds!r}"
            )

    def values(self, board: np.ndarray, exact_root: bool = False) -> np.ndarray:
        """The values of the deepest search finished in time (see `Search.values`)."""
        clock = self.clock
        start = clock()
        deadline = start + self.seconds

        def search(depth: int, order: np.ndarray | None) -> np.ndarray:
            # Depth 1 is one batched call: it always runs to the end.
            limit = deadline if depth > 1 else None
            s = Search(self.rules, self.q_batch, depth, self.discount, self.stats, limit, clock)
            return s.values(board, exact_root, order)

        values = search(1, None)
        self.last_depth = 1
        took = [clock() - start]
        for depth in range(2, self.max_depth + 1):
            now = clock()
            growth = max(2.0, took[-1] / took[-2]) if len(took) > 1 and took[-2] > 0 else 2.0
            if len(took) > 1 and now + took[-1] * growth > deadline:
                break
            leaves = self.stats.leaves
            try:
                deeper = search(depth, values)
            except OutOfTime:
                break
            took.append(clock() - now)
            values, self.last_depth = deeper, depth
            if self.stats.leaves == leaves:
                break  # every line searched ended the game: a deeper search finds the same
        return values


class SearchPlayer:
    """A player that searches before it moves; fits `Player`.

    It searches to a fixed `depth`, or as deep as `move_time` seconds allow (`TimedSearch`).
    `q_values` are the searched values of the moves (every one exact); `act` plays the
    best (ties: the lowest action, as the greedy player), from a search that only needs
    the best move exact when the time is what is fixed. The last position's values are
    kept, so asking for both on one position searches once.
    """

    def __init__(
        self,
        rules: Rules,
        q_batch: QBatch,
        depth: int | None = None,
        discount: float = DEFAULT_DISCOUNT,
        move_time: float | None = None,
    ) -> None:
        """Initialises the player; see `Search` and `TimedSearch` for the arguments.

        Raises:
            ValueError: neither or both of `depth` and `move_time`, or a bad one.
        """
        if (depth is None) == (move_time is None):
            raise ValueError("a search needs a depth or a time per move, not both")
        self.move_time = move_time
        if move_time is not None:
            self.search: Search | TimedSearch = TimedSearch(rules, q_batch, move_time, discount)
        else:
            self.search = Search(rules, q_batch, depth, discount)
        self.rules = rules
        self._last: tuple[bytes, bool, np.ndarray] | None = None

    @property
    def depth(self) -> int:
        """The fixed depth, or the depth the last timed search reached."""
        if isinstance(self.search, TimedSearch):
            return self.search.last_depth
        return self.search.depth

    def describe(self) -> str:
        """How it searches, for people: "depth-4 search" or "search of 1 s a move"."""
        if self.move_time is not None:
            return f"search of {self.move_time:g} s a move"
        return f"depth-{self.search.depth} search"

    def _values(self, observation: Mapping[str, np.ndarray], exact_root: bool) -> np.ndarray:
        legal = np.asarray(observation["action_mask"], bool)
        board = self.rules.board_from_planes(np.asarray(observation["observation"]), legal)
        key = self.rules.key(board)
        last = self._last
        # Exact values serve a later `act` too; bounds do not serve `q_values`.
        if last is None or last[0] != key or (exact_root and not last[1]):
            if isinstance(self.search, TimedSearch):
                values = self.search.values(board, exact_root)
            else:
                values = self.search.values(board)
                exact_root = True
            self._last = last = (key, exact_root, values)
        return last[2].copy()

    def q_values(self, observation: Mapping[str, np.ndarray]) -> np.ndarray:
        """The searched value of each action (NaN for illegal moves)."""
        return self._values(observation, exact_root=True)

    def value_of(self, observation: Mapping[str, np.ndarray], action: int) -> float:
        """The searched value of the move `act` chose here, from that same search.

        (Another move's value may be only a bound when the time is what is fixed: ask
        `q_values` for every move's exact value.)
        """
        return float(self._values(observation, exact_root=False)[action])

    def act(self, observation: Mapping[str, np.ndarray]) -> int:
        """The legal move of best searched value."""
        values = self._values(observation, exact_root=False)
        return int(masked_argmax(np.nan_to_num(values, nan=-np.inf), ~np.isnan(values)))

    def decide(self, observation: Mapping[str, np.ndarray]) -> tuple[int, float]:
        """The move `act` plays and its searched value, from one search in one call.

        For callers that count the time (a game's clock): nothing is searched after
        the move is chosen.
        """
        values = self._values(observation, exact_root=False)
        action = int(masked_argmax(np.nan_to_num(values, nan=-np.inf), ~np.isnan(values)))
        return action, float(values[action])
