"""How self-play games open: the `opening_plies` setting (numpy only).

Self-play with a nearly greedy network plays the same few openings over and over, so
the replay holds little of the positions an opponent who opens differently leads to
(an engine, or an evaluation that opens with random moves). Random openings spread
the games: each game opens with k uniformly random legal moves, k drawn anew for each
game from 0 to `opening_plies`, and plays on as usual from there. The random moves are
transitions like any other (one-step Q-learning learns from any behaviour; a `watkins`
return stops at them, as at any move that is not the greedy one).

An `Openings` answers one question per move for a batch of games: which moves to
replace by random ones.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from boardq.dqn.policies import random_legal

__all__ = ["NoOpenings", "Openings", "RandomOpenings", "make_openings"]


class Openings(Protocol):
    """The moves of a batch of games, with the openings' random moves put in."""

    def moves(
        self, actions: np.ndarray, mask: np.ndarray, ply: np.ndarray, rng: np.random.Generator
    ) -> np.ndarray:
        """[M] the moves to make.

        Args:
          actions: [M] the moves the policy chose.
          mask: [M, A] the legal moves.
          ply: [M] the moves made so far in each game (0 at its start).
          rng: the actor's generator.
        """
        ...


class NoOpenings:
    """Every move the policy's; draws no random numbers."""

    def moves(self, actions, mask, ply, rng):
        return actions


class RandomOpenings:
    """Each game's first k moves uniformly random among the legal ones, k in 0..max_plies.

    A game's k is drawn when its first move is made (`ply` 0), so a game that restarts
    draws a new one.

    Args:
      max_plies: the longest opening (at least 1).
      games: the games in the batch.
    """

    def __init__(self, max_plies: int, games: int):
        if max_plies < 1:
            raise ValueError("max_plies must be >= 1")
        self.max_plies = int(max_plies)
        self._length = np.zeros(games, np.int64)

    def moves(self, actions, mask, ply, rng):
        starting = np.flatnonzero(ply == 0)
        if starting.size:
            self._length[starting] = rng.integers(0, self.max_plies + 1, starting.size)
        opening = ply < self._length
        if not opening.any():
            return actions
        actions = np.array(actions, copy=True)
        actions[opening] = random_legal(np.asarray(mask, bool)[opening], rng)
        return actions


def make_openings(max_plies: int, games: int) -> Openings:
    """The `opening_plies` setting's rule for a batch of `games` games."""
    if max_plies < 0:
        raise ValueError(f"opening_plies must be >= 0, not {max_plies}")
    return RandomOpenings(max_plies, games) if max_plies else NoOpenings()
