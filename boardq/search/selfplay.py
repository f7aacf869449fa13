"""Search in self-play: moves chosen by the tree search, and its values as targets.

The `search_visits` setting's lever. In each actor the last game of its batch plays
every move by the best-first tree search (`boardq.search.tree_player`) over the acting
snapshot, `visits` visits a move, its tree kept between the moves of the game, built
as play builds it (`boardq.search.spec.build_player`: the run's pruned moves
left out, the pass searched only where it ends the game, is settled or forced); the
other games play as before. The search's moves reach training twice:

- as the moves of that game, which become transitions like any other (Expert
  Iteration's expert playing, Anthony et al., NeurIPS 2017: the learner sees the lines
  a stronger player chooses, and its opponent's replies to them);
- as targets: each move of the search's root visited at least `MIN_VISITS` times
  (or proven) becomes one more transition whose reward is the search's value of the move and
  whose discount is 0, so the learner's Double DQN target for it is exactly that value
  (TreeStrap, Veness et al., NeurIPS 2009, at the root: the learner is trained
  towards what the search found, exact where it proved a win, a draw or a loss).

The tree's values are the learner's: the mover's view, the negamax sign, the run's
discount per move (`boardq.search.tree`), so a value needs no conversion to be a
target. Exploration and random openings apply to the searched game as to the others
(an epsilon move replaces the search's). The replay ratio counts the moves played, as
ever: the search's target transitions come on top of them.

numpy only: the network comes in as the actor's act function. The builder is given
`make_search_moves` by the run (`boardq.training`), which may import this layer.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from boardq.dqn.schema import Chunk, empty_columns
from boardq.search.spec import SearchSpec, build_player, searched_rules
from boardq.settings import ConfigError

__all__ = ["MIN_VISITS", "SearchMoves", "make_search_moves"]

MIN_VISITS = 2
"""Visits a root move needs for its value to become a target (one visit is the
network's own value of the child, which the Double DQN target already has)."""


class SearchMoves:
    """The searched game of one actor's batch: its moves, and the targets its searches give.

    Args:
      rules: the game's rules as the run's search expands them
        (`boardq.search.spec.searched_rules`: its pruned moves left out).
      q_fn: Q-values of a batch of int8 planes under the newest snapshot
        (the actor's act function without its version).
      visits: the search's visits a move.
      discount: the run's discount per move (the tree's g).
      pass_action: the game's pass, if it has one (searched as at play).
      obs_shape, num_actions: the game's.
      row: the searched game's row in the actor's batch.
    """

    def __init__(
        self,
        rules,
        q_fn: Callable[[np.ndarray], np.ndarray],
        visits: int,
        discount: float,
        obs_shape: tuple[int, ...],
        num_actions: int,
        row: int,
        pass_action: int | None = None,
    ):
        search = SearchSpec.tree_search(visits=visits)
        self.player = build_player(search, rules, q_fn, discount, pass_action)
        self._obs_shape, self._num_actions = tuple(obs_shape), int(num_actions)
        self.row = int(row)
        self.searches = 0

    def choose(
        self, obs: np.ndarray, mask: np.ndarray, q: np.ndarray, ply: np.ndarray
    ) -> tuple[np.ndarray, Chunk]:
        """The Q-values to act on, the searched game's row made to prefer the search's move.

        Args:
          obs: [M, ...] the movers' planes.
          mask: [M, A] their legal moves.
          q: [M, A] the network's values (not changed).
          ply: [M] the moves made in each game so far (0: a new game, a new tree).

        Returns:
          (Q-values whose searched row is 1 at the search's move and 0 elsewhere, the
          root moves' values as transitions: reward the value, discount 0).
        """
        r = self.row
        if ply[r] == 0:
            self.player.forget()
        move = self.player.act({"observation": obs[r], "action_mask": mask[r]})
        self.searches += 1
        q = np.array(q, copy=True)
        q[r] = 0.0
        q[r, move] = 1.0
        return q, self._targets(obs[r])

    def _targets(self, obs: np.ndarray) -> Chunk:
        root = self.player.root
        visited = (root.n >= MIN_VISITS) | ~np.isnan(root.exact)  # proven: exact values
        actions = root.actions[visited]
        chunk = empty_columns(len(actions), self._obs_shape, self._num_actions)
        chunk["obs"][:] = obs
        chunk["action"][:] = actions
        chunk["reward"][:] = root.means()[visited]
        return chunk  # discount 0, next_mask all False: the target is the reward


def make_search_moves(config, game, q_fn, games: int) -> SearchMoves | None:
    """The `search_visits` setting's lever for an actor of `games` games (None: 0, off).

    What `boardq.dqn.builder.Builder` is given to make it (the learning machinery does
    not import the players).

    Raises:
      ConfigError: the game has no rules to search with.
    """
    if not config.search_visits:
        return None
    if game.rules is None:
        raise ConfigError(
            f"search_visits needs a game with rules to search; {game.name} has none: "
            "set search_visits to 0"
        )
    pruned = game.pruned_moves if config.prune_moves else None
    return SearchMoves(
        searched_rules(game.rules, pruned),
        q_fn,
        config.search_visits,
        config.discount,
        game.obs_shape,
        game.num_actions,
        row=games - 1,
        pass_action=game.setup.pass_action,
    )
