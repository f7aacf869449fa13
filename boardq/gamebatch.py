"""Many games stepped together: the interface the actors play through (numpy only).

A `GameBatch` holds `size` games of one two-player game. Every game always has a
player to move: a game that ends is restarted within the same `step`, so the actor's
forward pass always has `size` rows. Two implementations exist:

- `EnvGames` steps PettingZoo AEC environments one by one (any game);
- a game's vectorized rules (`games/<name>/vector.py`) step all games at once in
  numpy, observation for observation the same as PettingZoo's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple, Protocol

import numpy as np

__all__ = ["EnvGames", "GameBatch", "Outcome", "PlanesBatch", "mover_lead", "unwrap_guards"]


class Outcome(NamedTuple):
    """What one move in every game of a batch did.

    Attributes:
      reward: float32 [M], the mover's reward for its move (+1 a win; 0 otherwise; -1
        where the rules make a move lose).
      done: bool [M], the game ended with this move (and has been restarted).
      first_mover: bool [M], the mover was the game's first player.
      lead: float32 [M] or None: where a game ended, the mover's final lead by the
        game's count as a share of the most it can be (Go: the area margin with the komi
        over the board's points, within -1..1), else 0; None from games that keep no
        count (`GameBatch.counts_lead` says which do).
      owner: int8 [M, P] or None: where a game ended, each of its P board points'
        owner by the game's count, from the mover's view (+1 the mover's, -1 the
        opponent's, 0 neither), else 0; None from games whose count names no owners
        (`GameBatch.counts_owners`).
    """

    reward: np.ndarray
    done: np.ndarray
    first_mover: np.ndarray
    lead: np.ndarray | None = None
    owner: np.ndarray | None = None


def mover_lead(black_margin: float, first_mover: bool, points: float) -> float:
    """`Outcome.lead` of one finished game: the mover's margin over `points`, within -1..1.

    Args:
      black_margin: black's (the first player's) points minus white's, komi included.
      first_mover: the move that ended the game was black's.
      points: the most a game can be won by (the board's points).
    """
    mine = black_margin if first_mover else -black_margin
    return min(1.0, max(-1.0, mine / points))


class GameBatch(Protocol):
    """`size` games of one game, one move in each per `step`."""

    size: int
    obs_shape: tuple[int, ...]
    num_actions: int
    counts_lead: bool = False
    """Whether `step`'s outcomes carry the final lead (`Outcome.lead`)."""
    counts_owners: bool = False
    """Whether `step`'s outcomes carry each point's final owner (`Outcome.owner`)."""

    def observe(self) -> tuple[np.ndarray, np.ndarray]:
        """The players to move: int8 planes [M, *obs_shape] and bool legal moves [M, A].

        As PettingZoo's `observe` gives them. The arrays belong to the batch and change
        at the next `step`: copy what must outlive it.
        """
        ...

    def step(self, actions: np.ndarray) -> Outcome:
        """Plays `actions[i]` (legal) in game i; finished games restart."""
        ...


class PlanesBatch:
    """What the vectorized batches that keep their observation planes share.

    Each game's planes (int8 [*obs_shape], two channels: the mover's pieces, the
    opponent's) are kept up to date rather than rebuilt. Seen as one uint16 per cell
    (`_cell_pairs`, both channels), they swap the two channels of every game with one
    in-place byte swap (the player to move changes in all of them), and a cell is
    empty exactly where its pair is 0. A subclass sets `obs_shape` and `num_actions`,
    fills `_legal` and steps the games.

    Args:
      num_games: the number of games stepped together.
    """

    obs_shape: tuple[int, int, int]
    num_actions: int

    def __init__(self, num_games: int):
        if num_games < 1:
            raise ValueError(f"num_games must be at least 1, got {num_games}")
        self.size = int(num_games)
        self._games = np.arange(self.size)
        self._planes = np.zeros((self.size, *self.obs_shape), np.int8)
        self._cell_pairs = self._planes.view(np.uint16).reshape(self.size, -1)
        self._legal = np.ones((self.size, self.num_actions), bool)

    def observe(self) -> tuple[np.ndarray, np.ndarray]:
        """int8 planes [M, *obs_shape] and bool legal moves [M, A] of the players to move.

        The arrays belong to the batch and are overwritten by the next `step`.
        """
        return self._planes, self._legal


def unwrap_guards(env):
    """The game under PettingZoo's guard wrappers (exact types only; others are kept).

    The order-enforcing, out-of-bounds and illegal-move wrappers only guard against
    misuse; an actor's moves are always legal and always follow a reset, so stepping
    the game under them gives the same games, without a Python call per attribute.
    """
    from pettingzoo.utils.wrappers import (
        AssertOutOfBoundsWrapper,
        OrderEnforcingWrapper,
        TerminateIllegalWrapper,
    )

    guards = (OrderEnforcingWrapper, AssertOutOfBoundsWrapper, TerminateIllegalWrapper)
    while type(env) in guards:
        env = env.env
    return env


class EnvGames:
    """A GameBatch over PettingZoo AEC environments, stepped one after the other.

    Args:
      envs: fresh environments of one game (with an action mask in the observation).
      seeds: one reset seed per environment.
      score: black's points minus white's of a finished game's environment (the first
        player is black; `Setup.score`), for `Outcome.lead`; None: no count.
      points: the most a game can be won by, for the lead's scale (the board's points).
      owners: each point's owner in a finished game's environment, black's view
        (`Setup.owners`), for `Outcome.owner`; None: not asked for.
    """

    def __init__(
        self,
        envs: Sequence,
        seeds: Sequence[int],
        score: Callable[[Any], float] | None = None,
        points: float = 1.0,
        owners: Callable[[Any], np.ndarray] | None = None,
    ):
        self.envs = list(envs)
        self.size = len(self.envs)
        self._score, self._points, self._owners = score, float(points), owners
        self.counts_lead = score is not None
        self.counts_owners = owners is not None
        env0 = self.envs[0]
        agent0 = env0.possible_agents[0]
        self.obs_shape = tuple(env0.observation_space(agent0)["observation"].shape)
        self.num_actions = int(env0.action_space(agent0).n)
        self._obs = np.zeros((self.size, *self.obs_shape), np.int8)
        self._mask = np.zeros((self.size, self.num_actions), bool)
        for env, seed in zip(self.envs, seeds, strict=True):
            env.reset(seed=int(seed))
        self._games = [unwrap_guards(env) for env in self.envs]
        for i, game in enumerate(self._games):
            self._set(i, game.observe(game.agent_selection))

    def _set(self, i: int, observation: dict) -> None:
        self._obs[i] = observation["observation"]
        self._mask[i] = observation["action_mask"]

    def observe(self) -> tuple[np.ndarray, np.ndarray]:
        return self._obs, self._mask

    def step(self, actions: np.ndarray) -> Outcome:
        reward = np.zeros(self.size, np.float32)
        done = np.zeros(self.size, bool)
        first = np.zeros(self.size, bool)
        lead = np.zeros(self.size, np.float32) if self._score is not None else None
        owner = None
        if self._owners is not None:
            owner = np.zeros((self.size, int(self._points)), np.int8)
        for i, (game, action) in enumerate(zip(self._games, actions.tolist(), strict=True)):
            mover = game.agent_selection
            first[i] = mover == game.possible_agents[0]
            game.step(action)
            reward[i] = game.rewards[mover]
            if game.terminations[mover] or game.truncations[mover]:
                done[i] = True
                if lead is not None:
                    lead[i] = mover_lead(self._score(game), first[i], self._points)
                if owner is not None:
                    black = np.asarray(self._owners(game), np.int8)
                    owner[i] = black if first[i] else -black
                game.reset()
            self._set(i, game.observe(game.agent_selection))
        return Outcome(reward, done, first, lead, owner)
