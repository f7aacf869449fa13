"""An agent's searching players: the tree search and the alpha-beta, each made once and kept.

What `Agent.searcher` and `Agent.alpha_beta` give (`boardq.players.agent`): players
over the game's rules as the agent's run saw them (its pruned moves left out for both
sides, `boardq.pruning`), with the network at the leaves, discounting by the discount
the agent trained with (`info["discount"]`, written by training) so that their backups
match the network's values; files without it search with
`boardq.players.search.DEFAULT_DISCOUNT`. A player is kept by its kind and budget, so a
tree search keeps its tree between the moves of a game.

numpy only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from boardq.errors import BoardqError
from boardq.pruning import PrunedRules

__all__ = ["NoRulesError", "Searchers"]


class NoRulesError(BoardqError, ValueError):
    """A search was asked for a game whose rules boardq does not know."""


class Searchers:
    """The searching players of one agent.

    Args:
      game: the agent's game (its name in `boardq.catalog`).
      q_batch: the agent's values of a batch of planes.
      pruned: the game's pruned moves where the agent's run pruned them, else None.
      discount: the agent's discount per move.
    """

    def __init__(
        self,
        game: str,
        q_batch: Callable[[np.ndarray], np.ndarray],
        pruned: Callable[[np.ndarray], np.ndarray] | None,
        discount: float,
    ) -> None:
        self.game = game
        self.q_batch = q_batch
        self.pruned = pruned
        self.discount = float(discount)
        self.made: dict[tuple, Any] = {}

    def _game(self):
        from boardq.catalog import find_game

        game = find_game(self.game)
        if game is None or game.rules is None:
            raise NoRulesError(f"cannot search: boardq has no rules for {self.game!r}")
        return game

    def rules(self):
        """The game's rules as the searches expand them (pruned moves left out)."""
        rules = self._game().rules
        if self.pruned is not None:
            return PrunedRules(rules, self.pruned)  # no side expands a pruned move
        return rules

    def get(self, depth: int | None, move_time: float | None, visits: int | None):
        """The player of exactly one of `depth` (alpha-beta), `move_time` or `visits` (tree).

        The tree search (`boardq.players.mcts.TreeSearchPlayer`) searches the game's
        pass only where it ends the game, the board is settled or the pass is forced
        (`boardq.players.passing`).

        Raises:
          ValueError: not exactly one of them, a bad one, or a game without rules.
        """
        given = [x for x in (depth, move_time, visits) if x is not None]
        if len(given) != 1:
            raise ValueError("a search needs one of a depth, visits or a time per move")
        if depth is not None:
            return self.alpha_beta(depth, None)
        key = ("tree", move_time, visits)
        if key not in self.made:
            from boardq.players.mcts import TreeSearchPlayer

            pass_action = self._game().setup.pass_action
            self.made[key] = TreeSearchPlayer(
                self.rules(),
                self.q_batch,
                visits,
                move_time,
                self.discount,
                pass_action=pass_action,
            )
        return self.made[key]

    def alpha_beta(self, depth: int | None, move_time: float | None):
        """The alpha-beta (`boardq.players.search.SearchPlayer`) of `depth` plies.

        Or iterative deepening for `move_time` seconds a move.
        """
        from boardq.players.search import SearchPlayer

        key = ("alpha-beta", depth, move_time)
        if key not in self.made:
            self.made[key] = SearchPlayer(
                self.rules(), self.q_batch, depth, self.discount, move_time=move_time
            )
        return self.made[key]
