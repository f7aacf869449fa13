"""What a finished self-play game pays: the `reward_lead` setting (numpy only).

By default the move that ends a game earns the result: +1 a win, -1 where the rules
make the move lose, 0 a draw (the loser's -1 arrives through the bootstrap). In a game
that keeps a count (Go's area, Othello's discs), the result says nothing of by how
much: a game lost by the whole board teaches the same as one lost by half a point, and
two weak players' results are noisy. With a share w of the lead, the move that ends a
game earns

    (1 - w) * result + w * lead

where lead is the mover's final margin as a share of the most it can be
(`Outcome.lead`: Go's area margin with the komi over the board's 81 points, Othello's
disc margin over its 64 squares). The sign stays the result's (a lead has the result's
sign), so the values keep meaning "above zero: winning" and the search and the results
counted are unchanged; their size now also says by how much.

A `Rewards` answers one question per move, for a batch of games: what each mover
earned.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from boardq.gamebatch import Outcome
from boardq.settings import ConfigError

__all__ = ["LeadRewards", "Results", "Rewards", "check_lead", "make_rewards"]


class Rewards(Protocol):
    """The rewards of the moves a batch of games just made."""

    def rewards(self, outcome: Outcome) -> np.ndarray:
        """float32 [M]: each mover's reward for its move."""
        ...


class Results:
    """The result alone: the outcome's reward."""

    def rewards(self, outcome):
        return outcome.reward


class LeadRewards:
    """A share of each finished game's reward is the mover's final lead.

    Args:
      share: the share w in (0, 1].
    """

    def __init__(self, share: float):
        if not 0.0 < share <= 1.0:
            raise ValueError(f"share must be in (0, 1], not {share}")
        self.share = float(share)

    def rewards(self, outcome):
        if outcome.lead is None:
            raise ValueError("these games keep no count: reward_lead needs Outcome.lead")
        done = np.asarray(outcome.done, bool)
        reward = np.array(outcome.reward, np.float32, copy=True)
        lead = np.asarray(outcome.lead, np.float32)
        reward[done] = (1.0 - self.share) * reward[done] + self.share * lead[done]
        return reward


def make_rewards(share: float) -> Rewards:
    """The `reward_lead` setting's rule."""
    if share < 0:
        raise ValueError(f"reward_lead must be >= 0, not {share}")
    return LeadRewards(share) if share else Results()


def check_lead(share: float, games: object, name: str) -> None:
    """Refuses a `reward_lead` share for games whose batch keeps no count.

    Args:
      share: the setting.
      games: a `GameBatch` of the game as it is trained.
      name: the game's name, for the message.

    Raises:
      ConfigError: naming the setting.
    """
    if share and not getattr(games, "counts_lead", False):
        raise ConfigError(
            f"reward_lead needs a game that keeps a count (go, othello); {name} keeps "
            f"none: set reward_lead to 0"
        )
