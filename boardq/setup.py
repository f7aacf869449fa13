"""A game's count and setup in one home: its komi, its count, its pass, its handicap.

Go is counted by area with white's komi and may start with black's handicap stones on
fixed points; Othello counts its discs; the other games count nothing but who won.
Training reads the count for its lead reward, the GTP engine for `komi`,
`final_score` and `fixed_handicap`, evaluation and the ladder for their handicap
games, and records for what they state (`KM`, `HA`). A game declares its `Setup`
(`Game.setup`); `boardq.gtp.protocol.GtpDialect` only names the moves.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["MAX_KOMI", "Setup"]

MAX_KOMI = 1000.0
"""The largest komi a game may be set up with, either way."""


@dataclass(frozen=True)
class Setup:
    """How a game is counted and set up.

    Attributes:
        komi: white's komi the game is played with by default (Go), or None where it
            has none.
        score: black's points minus white's, komi included, of a finished game's
            environment; None where boardq has no count.
        pass_action: the action that passes, or None.
        owners: each point's owner by the count of a finished game's environment
            (int8 [points], +1 black's, -1 white's, 0 neither); None where the count
            names no owners. Training's ownership targets need it, and the game's
            vectorized rules, if any, to take `owners=True` (`Outcome.owner`).
        handicap: the actions of a fixed handicap of n stones (`handicap[n]`, as GNU
            Go places them), where the game has one (Go).
        variant: the game set up with another komi (`Game.with_komi`: its environments,
            rules, mirror and count all with that komi); None where it has none.
    """

    komi: float | None = None
    score: Callable[[Any], float] | None = None
    pass_action: int | None = None
    handicap: Mapping[int, tuple[int, ...]] = field(default_factory=dict)
    owners: Callable[[Any], Any] | None = None
    variant: Callable[[float], Any] | None = field(default=None, compare=False)

    def handicap_points(self, stones: int, title: str = "this game") -> tuple[int, ...]:
        """The actions of a fixed handicap of `stones` stones.

        Raises:
            ValueError: the game has no handicap stones, or none of that number (the
                message says which numbers it has).
        """
        if not self.handicap:
            raise ValueError(f"{title} has no handicap stones")
        if stones not in self.handicap:
            known = sorted(self.handicap)
            span = (
                f"{known[0]}-{known[-1]}"
                if known == list(range(known[0], known[-1] + 1))
                else ", ".join(str(n) for n in known)
            )
            raise ValueError(f"{title} places {span} handicap stones, not {stones}")
        return tuple(self.handicap[stones])

    def komi_note(self, title: str, komi: float) -> str:
        """What a command says once of a game set up with `komi`, not this game's own.

        (This game's own komi is the one its agents learnt with.)
        """
        return (
            f"the agent learnt {title} with komi {self.komi:g}; it plays on, the games "
            f"counted with komi {komi:g}"
        )

    def check(self, title: str, komi: float | None = None, handicap: int | None = None) -> None:
        """Refuses a run's or a match's settings that the game cannot be set up with.

        Args:
            title: the game's name for people.
            komi: the komi asked for (None: the game's own).
            handicap: the handicap stones asked for (None: none).

        Raises:
            ValueError: a komi for a game without komi, or one not a finite number of at
                most `MAX_KOMI` points either way; a handicap the game has not.
        """
        if komi is not None:
            if self.komi is None:
                raise ValueError(f"{title} has no komi")
            if not (isinstance(komi, int | float) and math.isfinite(komi)):
                raise ValueError(f"komi must be a number, got {komi!r}")
            if abs(komi) > MAX_KOMI:
                raise ValueError(f"komi must be within {MAX_KOMI:g} points, got {komi:g}")
        if handicap is not None:
            self.handicap_points(handicap, title)
