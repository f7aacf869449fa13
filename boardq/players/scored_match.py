"""`ScoredMatch`: a match as `boardq evaluate` reports it, shared by the tools that play one.

Besides the scores of `Match`, it times the evaluated player's moves (`TimedPlayer`: the
mean and longest time a move, and a timed search's depth) and counts its final lead in
Go and Othello (`LeadCount`). A match that an engine or Ctrl-C stops keeps the games it played
and returns what stopped it. `boardq evaluate` and the strength-against-time cells
(`boardq.benchmark.timecurve`) play their matches through it.

It imports no TensorFlow.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from boardq.errors import BoardqError
from boardq.players.evaluation import Handicap, Match, MoveObserver, Openings, Player
from boardq.players.timing import TimedPlayer

__all__ = ["STOPS", "ScoredMatch", "stop_reason"]

STOPS = (BoardqError, KeyboardInterrupt)
"""What ends a match early and keeps its games: an engine that died or went silent
(`EngineError`, a `BoardqError`), or Ctrl-C."""


def stop_reason(stop: BaseException) -> str:
    """What stopped a match, as reports say it."""
    return "interrupted (Ctrl-C)" if isinstance(stop, KeyboardInterrupt) else str(stop)


class ScoredMatch:
    """`player` against `opponent` from both seats, timed and counted.

    Args:
        game: the game (`boardq.catalog.get_game`); its lead is counted where it has one.
        player: the evaluated player (wrapped: timed, and its colour noted for the lead).
        opponent: its opponent, as `Match` takes it.
        games_per_seat, seed, openings: as `Match` takes them.
        observers: told of every game's moves besides the lead count.
    """

    def __init__(
        self,
        game,
        player: Player,
        opponent: Player,
        games_per_seat: int,
        seed: int = 0,
        observers: Sequence[MoveObserver] = (),
        openings: Openings | Handicap | None = None,
    ) -> None:
        from boardq.records.count import LeadCount

        self.lead = LeadCount(game) if LeadCount.counts(game) else None
        self.timed = TimedPlayer(self.lead.seat(player) if self.lead else player)
        watchers = [*observers] + ([self.lead] if self.lead else [])
        self.match = Match(
            self.timed, opponent, game.make_env, games_per_seat, seed, watchers, openings
        )

    def play(self) -> BaseException | None:
        """Plays the games not yet played.

        Returns:
            None if every game was played; else what stopped the match (an engine's
            `BoardqError` or KeyboardInterrupt), the games before it kept.
        """
        try:
            self.match.play()
        except STOPS as e:
            return e
        return None

    def metrics(self) -> dict[str, Any]:
        """`Match.metrics` with the times a move and the lead; empty while no game ended."""
        out = self.match.metrics()
        if not out:
            return out
        out |= self.timed.summary()
        if self.lead:
            out |= self.lead.summary()
        return out
