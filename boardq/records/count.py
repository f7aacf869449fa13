"""The evaluated agent's final lead by boardq's own count, game by game.

A win rate says nothing of by how much: an agent that loses every game to a strong
engine, or wins every game against a weak one, can still be getting better. In the
games that count a margin (Go's area with every stone on the board alive and the komi,
Othello's discs), `LeadCount` follows the games `play_game` plays, replays each
finished one in a fresh environment and keeps the evaluated agent's margin on the final
board: `boardq evaluate` reports the mean beside the score, against every opponent.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

import numpy as np

from boardq.records.dialects import area_score, sgf_game
from boardq.records.replay import replay

__all__ = ["LeadCount"]


class LeadCount:
    """A `MoveObserver` that keeps the agent's final lead in every game it follows.

    Put it among `play_game`'s observers and play the agent through `seat(player)`,
    which notes the agent's colour at its first move of each game. Games that end by a
    resignation, or before the agent moved, are not counted.

    Args:
      game: the game (`boardq.game.Game`); see `counts`.
    """

    def __init__(self, game) -> None:
        dialect = sgf_game(game.name)
        self.game = game
        self._margin = dialect.margin if dialect is not None else None
        komi = game.setup.komi
        if dialect is not None and dialect.komi is not None and komi != dialect.komi:
            self._margin = functools.partial(area_score, komi=komi)  # set up with another
        self.leads: list[float] = []
        self.firsts: list[bool] = []
        """Whether the agent moved first, game by game beside `leads`."""
        self._actions: list[int] = []
        self._agent_first: bool | None = None

    @staticmethod
    def counts(game) -> bool:
        """Whether the game counts a margin (Go, Othello)."""
        dialect = sgf_game(game.name)
        return dialect is not None and dialect.margin is not None

    def seat(self, player) -> _Seat:
        """`player` (the evaluated agent), noting its colour each game."""
        return _Seat(player, self)

    def agent_moves(self) -> None:
        """The agent is to move: at its first move of a game, its colour is noted."""
        if self._agent_first is None:
            self._agent_first = len(self._actions) % 2 == 0

    def new_game(self) -> None:
        self._actions, self._agent_first = [], None

    def moved(self, action: int, result: int | None) -> None:
        self._actions.append(int(action))
        if result is None or self._agent_first is None or self._margin is None:
            return
        board = replay(self.game, self._actions, keep_boards=False).boards[-1]
        black_lead = float(self._margin(board))  # the first player is black
        self.leads.append(black_lead if self._agent_first else -black_lead)
        self.firsts.append(self._agent_first)

    def summary(self) -> dict[str, float]:
        """`lead/games` counted and, where there were any, `lead/mean`; then starts over.

        Per seat too, where the agent played it: `lead/first/mean` (it moved first,
        black), `lead/second/mean`.
        """
        out = {"lead/games": float(len(self.leads))}
        if self.leads:
            out["lead/mean"] = float(np.mean(self.leads))
        leads, firsts = np.asarray(self.leads), np.asarray(self.firsts, bool)
        for seat, games in (("first", firsts), ("second", ~firsts)):
            if games.any():
                out[f"lead/{seat}/mean"] = float(leads[games].mean())
        self.leads, self.firsts = [], []
        return out


class _Seat:
    """The agent, played through a `LeadCount` that learns its colour from its first move."""

    def __init__(self, player, count: LeadCount) -> None:
        self.player, self._count = player, count

    def act(self, observation: Mapping[str, np.ndarray]) -> int:
        self._count.agent_moves()
        return self.player.act(observation)

    def __getattr__(self, name: str) -> Any:  # q_values, move_time, depth... of the player
        return getattr(self.player, name)
