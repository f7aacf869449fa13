"""Where a multi-step return stops: the `returns` setting (numpy only).

An n-step return sums the rewards of the next n moves before it bootstraps. In
self-play those moves include exploring moves, of both players, that the greedy
policy Q-learning evaluates would not make: summed through, the return values a
position by what a random move later happened to do (docs/results/training.md,
"Multi-step returns that stop at exploring moves", measured `--n-step 3` weaker than
one step for that). A corrected return stops where the
behaviour leaves the target policy and bootstraps there:

- `plain`: never stops early; the uncorrected n-step return.
- `watkins`: stops before the first move, by either player, that is not the greedy
  move of the network the actor played with, and bootstraps from the position that
  move was made in. With a greedy target policy this is Watkins's Q(lambda) with
  lambda 1 cut at n moves, and Retrace's trace (min(1, pi/mu) is 1 on the greedy move,
  0 elsewhere). A past snapshot's move in a pool game counts as exploring where it
  differs from the newest network's choice.

With `n_step` 1 the two agree: a one-move return has nothing to stop.

A `Returns` answers one question per move, for a batch of games: which games' open
returns end before this move. The actor asks it and `NStepBatch.cut` closes them.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from boardq.dqn.policies import masked_argmax

__all__ = ["RULES", "Plain", "Returns", "Watkins", "make_returns"]


class Returns(Protocol):
    """Which games' open returns end before the moves about to be made."""

    def cuts(self, q: np.ndarray, mask: np.ndarray, actions: np.ndarray) -> np.ndarray | None:
        """[M] bool, or None for none of them.

        Args:
          q: [M, A] the newest network's Q-values the actor played with.
          mask: [M, A] the legal moves.
          actions: [M] the moves about to be made.
        """
        ...


class Plain:
    """The uncorrected n-step return: never ends early."""

    def cuts(self, q, mask, actions):
        return None


class Watkins:
    """Ends the open returns before every move that is not the greedy one."""

    def cuts(self, q, mask, actions):
        return masked_argmax(np.asarray(q), np.asarray(mask, bool)) != np.asarray(actions)


RULES = {"plain": Plain, "watkins": Watkins}  # the names are `boardq.target_settings.RETURNS`


def make_returns(name: str) -> Returns:
    """The `returns` setting's rule."""
    try:
        return RULES[name]()
    except KeyError:
        raise ValueError(f"returns must be one of {', '.join(RULES)}, not {name!r}") from None
