"""An agent's searching players, each made once and kept.

What `Agent.player` gives (`boardq.players.agent`): the player of a `SearchSpec`, built
by the one factory (`boardq.search.spec.build_player`) over the game's rules as
the agent's run saw them (its pruned moves left out for both sides, `boardq.pruning`),
with the network at the leaves, discounting by the discount the agent trained with
(`info["discount"]`, written by training) so that their backups match the network's
values; files without it search with `boardq.search.alphabeta.DEFAULT_DISCOUNT`. An
agent with a policy head gives its tree searches the policy as their priors and its
expectation of Q as a leaf's value (`TreeConfig.prior`, `boardq.search.tree`). A player
is kept by its spec, so a tree search keeps its tree between the moves of a game.

numpy only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from boardq.errors import BoardqError
from boardq.search.spec import SearchKind, SearchSpec, build_player, searched_rules

__all__ = ["NoPolicyError", "NoRulesError", "Searchers"]


class NoRulesError(BoardqError, ValueError):
    """A search was asked for a game whose rules boardq does not know."""


class NoPolicyError(BoardqError, ValueError):
    """The policy was asked as a tree's prior of an agent trained without a policy head."""


class Searchers:
    """The searching players of one agent.

    Args:
      game: the agent's game (its name in `boardq.catalog`).
      q_batch: the agent's values of a batch of planes.
      pruned: the game's pruned moves where the agent's run pruned them, else None.
      discount: the agent's discount per move.
      policy_batch: the agent's (Q, policy logits) of a batch, where it has a policy
        head: a tree search whose `TreeConfig.prior` is "auto" or "policy" takes it.
    """

    def __init__(
        self,
        game: str,
        q_batch: Callable[[np.ndarray], np.ndarray],
        pruned: Callable[[np.ndarray], np.ndarray] | None,
        discount: float,
        policy_batch: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]] | None = None,
    ) -> None:
        self.game = game
        self.q_batch = q_batch
        self.policy_batch = policy_batch
        self.pruned = pruned
        self.discount = float(discount)
        self.made: dict[SearchSpec, Any] = {}

    def _game(self):
        from boardq.catalog import find_game

        game = find_game(self.game)
        if game is None or game.rules is None:
            raise NoRulesError(f"cannot search: boardq has no rules for {self.game!r}")
        return game

    def rules(self):
        """The game's rules as the searches expand them (pruned moves left out)."""
        return searched_rules(self._game().rules, self.pruned)

    def get(self, spec: SearchSpec):
        """The kept player of `spec` (a search, not the network alone).

        Raises:
          ValueError: `spec` is the network alone, or the game has no rules.
        """
        if not spec.searches:
            raise ValueError("a search needs one of a depth, visits or a time per move")
        if spec not in self.made:
            game = self._game()
            network = self.q_batch
            if spec.kind is SearchKind.TREE and spec.tree.prior != "q":
                if self.policy_batch is not None:
                    network = self.policy_batch
                elif spec.tree.prior == "policy":
                    raise NoPolicyError(
                        f"a tree with the policy as prior needs an agent trained with "
                        f"--policy-head; this {self.game} agent has none"
                    )
            self.made[spec] = build_player(
                spec, self.rules(), network, self.discount, game.setup.pass_action
            )
        return self.made[spec]
