"""One value that names how an agent searches, and the one place that builds its player.

A search is named once, as a `SearchSpec`, wherever it comes from: the command line
(`--search D`, `--move-time SEC`, `--visits N`: `SearchSpec.of`), a player spec
(`search:D`, `tree:N`, `tree:0.5s`), the web board's request, the evaluation ladder, or
self-play's searched game (`search_visits`). It travels as that one value to the agent
(`Agent.player`), to the game records (`settings`) and to people (`words`).

`build_player` is the one factory of searching players: the tree search
(`boardq.search.tree_player.TreeSearchPlayer`, which searches the game's pass only where it
ends the game, the board is settled or the pass is forced) and the alpha-beta
(`boardq.search.alphabeta.SearchPlayer`, a fixed depth or iterative deepening for a time a
move). Play, the web board, GTP, evaluate, the league, the ladder and self-play all get
their searching players from it, over the rules as the agent's run saw them
(`searched_rules`: its pruned moves left out for both sides).

numpy only.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from boardq.pruning import PrunedRules
from boardq.search.tree_node import TreeConfig

__all__ = ["NETWORK", "SearchKind", "SearchSpec", "build_player", "searched_rules"]


class SearchKind(enum.Enum):
    """How a player looks ahead."""

    NETWORK = "network"
    """No search: the network's best legal move."""
    ALPHA_BETA = "alpha-beta"
    """The alpha-beta over the network's values: `depth` plies, or `move_time` a move."""
    TREE = "tree"
    """The tree search over the network's values: `visits` or `move_time` a move."""


def _whole(value: Any, what: str, least: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < least:
        raise ValueError(f"{what} must be a whole number >= {least}, got {value!r}")
    return int(value)


def _seconds(value: Any) -> float:
    ok = not isinstance(value, bool) and isinstance(value, int | float | np.floating)
    if not (ok and math.isfinite(value) and value > 0):
        raise ValueError(f"the time a move must be a number of seconds > 0, got {value!r}")
    return float(value)


@dataclass(frozen=True)
class SearchSpec:
    """How an agent searches: the kind, its budget and the tree's settings.

    Make one with `network()`, `alpha_beta(...)`, `tree_search(...)` or, from the
    three values a command line or request gives, `of(depth, move_time, visits)`.

    Attributes:
        kind: the kind of search.
        depth: the alpha-beta's plies (ALPHA_BETA without `move_time`).
        visits: the tree search's visits a move (TREE without `move_time`).
        move_time: the seconds a move (TREE, or ALPHA_BETA by iterative deepening).
        tree: how the tree grows (TREE only).
    """

    kind: SearchKind = SearchKind.NETWORK
    depth: int | None = None
    visits: int | None = None
    move_time: float | None = None
    tree: TreeConfig = field(default_factory=TreeConfig)

    def __post_init__(self) -> None:
        if not isinstance(self.kind, SearchKind):
            raise ValueError(f"a search's kind must be a SearchKind, got {self.kind!r}")
        if self.move_time is not None:
            object.__setattr__(self, "move_time", _seconds(self.move_time))
        budgets = {
            SearchKind.NETWORK: (),
            SearchKind.ALPHA_BETA: ("depth", "move_time"),
            SearchKind.TREE: ("visits", "move_time"),
        }[self.kind]
        given = [n for n in ("depth", "visits", "move_time") if getattr(self, n) is not None]
        if self.kind is SearchKind.NETWORK and given:
            raise ValueError(f"the network alone takes no {given[0]}")
        if self.kind is not SearchKind.NETWORK and (len(given) != 1 or given[0] not in budgets):
            raise ValueError(
                f"a {self.kind.value} search needs one of {' or '.join(budgets)}, got "
                f"{', '.join(given) or 'none'}"
            )
        if self.depth is not None:
            object.__setattr__(self, "depth", _whole(self.depth, "the search depth", 1))
        if self.visits is not None:
            object.__setattr__(self, "visits", _whole(self.visits, "visits", 1))
        if not isinstance(self.tree, TreeConfig):
            raise ValueError(f"tree must be a TreeConfig, got {self.tree!r}")

    # -- making one ---------------------------------------------------------------------
    @classmethod
    def network(cls) -> SearchSpec:
        """No search: the network's best legal move."""
        return cls()

    @classmethod
    def alpha_beta(cls, depth: int | None = None, move_time: float | None = None) -> SearchSpec:
        """The alpha-beta: `depth` plies, or as deep as `move_time` seconds a move allow."""
        return cls(SearchKind.ALPHA_BETA, depth=depth, move_time=move_time)

    @classmethod
    def tree_search(
        cls,
        visits: int | None = None,
        move_time: float | None = None,
        config: TreeConfig | None = None,
    ) -> SearchSpec:
        """The tree search: `visits` or `move_time` seconds a move, grown as `config` says."""
        tree = config if config is not None else TreeConfig()
        return cls(SearchKind.TREE, visits=visits, move_time=move_time, tree=tree)

    @classmethod
    def of(
        cls, depth: int | None = 0, move_time: float | None = None, visits: int | None = None
    ) -> SearchSpec:
        """From the three values a command line or the web API gives (at most one set).

        `depth` D >= 1: the alpha-beta of D plies (0 or None: none); `move_time` SEC or
        `visits` N: the tree search; none of them: the network alone.

        Raises:
          ValueError: more than one of them, or a bad one.
        """
        given = [x for x in (depth or None, move_time, visits) if x is not None]
        if len(given) > 1:
            raise ValueError("a search takes one of a depth, visits or a time a move")
        if visits is not None or move_time is not None:
            return cls.tree_search(visits=visits, move_time=move_time)
        if depth:
            return cls.alpha_beta(depth=depth)
        return cls.network()

    # -- reading one --------------------------------------------------------------------
    @property
    def searches(self) -> bool:
        """Whether it looks ahead at all (False: the network alone)."""
        return self.kind is not SearchKind.NETWORK

    def words(self) -> str:
        """For people: "tree search of 800 visits a move", "depth-2 search"; "" for none."""
        if self.kind is SearchKind.TREE:
            if self.visits is not None:
                return f"tree search of {self.visits} visits a move"
            return f"tree search of {self.move_time:g} s a move"
        if self.kind is SearchKind.ALPHA_BETA:
            if self.depth is not None:
                return f"depth-{self.depth} search"
            return f"alpha-beta of {self.move_time:g} s a move"
        return ""

    def flag(self) -> str:
        """The command-line option that asks for it ("--visits", "--move-time", "--search")."""
        if self.visits is not None:
            return "--visits"
        return "--move-time" if self.move_time is not None else "--search"

    def settings(self) -> dict[str, Any]:
        """What a game record keeps of it (`boardq.records.agent_info`); {} for none."""
        out: dict[str, Any] = {}
        if self.depth is not None:
            out["search_depth"] = self.depth
        if self.move_time is not None:
            out["move_time_sec"] = self.move_time
            if self.kind is SearchKind.ALPHA_BETA:
                out["search"] = "alpha-beta"
        if self.visits is not None:
            out["visits"] = self.visits
        return out


NETWORK = SearchSpec()
"""The network alone."""


def searched_rules(rules, pruned: Callable[[np.ndarray], np.ndarray] | None):
    """`rules` as a search expands them: the run's pruned moves left out for both sides.

    Args:
      rules: the game's rules (`boardq.game.Rules`).
      pruned: the game's pruned moves where the agent's run pruned them (its
        `Game.pruned_moves`), else None.
    """
    return rules if pruned is None else PrunedRules(rules, pruned)


def build_player(
    spec: SearchSpec,
    rules,
    q_batch: Callable[[np.ndarray], np.ndarray],
    discount: float,
    pass_action: int | None = None,
):
    """The searching player of `spec`: the one place every searching player is made.

    Args:
      spec: the search (not the network alone).
      rules: the rules to search over (`searched_rules`).
      q_batch: the network's values of a batch of int8 planes.
      discount: the per-move discount of the network's values.
      pass_action: the game's pass, if it has one (the tree searches it only where it
        ends the game, the board is settled or it is forced: `boardq.search.passing`).

    Raises:
      ValueError: `spec` is the network alone.
    """
    if spec.kind is SearchKind.TREE:
        from boardq.search.tree_player import TreeSearchPlayer

        return TreeSearchPlayer(
            rules,
            q_batch,
            spec.visits,
            spec.move_time,
            discount,
            config=spec.tree,
            pass_action=pass_action,
            compiled=spec.tree.compiled,
        )
    if spec.kind is SearchKind.ALPHA_BETA:
        from boardq.search.alphabeta import SearchPlayer

        return SearchPlayer(rules, q_batch, spec.depth, discount, move_time=spec.move_time)
    raise ValueError("the network alone is no searching player")
