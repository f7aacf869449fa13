"""One game's record in the making, move by move (`GameLog`).

The recorder (`boardq.records.recorder`) keeps one per game it follows; the play
session, the browser board's sessions and the GTP engine keep one per game, with the
moves they take back taken out again.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from boardq.records.dialects import resignation_text, result_text, settings_of, sgf_game
from boardq.records.record import UNKNOWN_PLAYER, GameRecord, Move, now_iso
from boardq.records.replay import replay

__all__ = ["GameLog"]


class GameLog:
    """One game's record in the making.

    Args:
        game: the game (`boardq.game.Game`).
        players: who plays the first seat and the second (either may be filled later).
        event: what plays it ("boardq evaluate").
        handicap: the opening of a handicap game (`Handicap.opening`: the
            stones with the passes between them); a game that starts with it is a
            handicap game in its record (`settings["handicap"]`: the number of stones).
        komi: the komi it is played with, where not the game's own (Go); None: its own.
    """

    def __init__(
        self,
        game,
        players=(UNKNOWN_PLAYER, UNKNOWN_PLAYER),
        event: str = "",
        handicap: Sequence[int] = (),
        komi: float | None = None,
    ) -> None:
        self.game = game
        self.players = list(players)
        self.event = event
        self.handicap = tuple(int(a) for a in handicap)
        self.komi = komi
        self.started = now_iso()
        self.moves: list[Move] = []

    def _komi(self) -> float | None:
        """The komi the game is played with: the one given, else the game's setup's."""
        if self.komi is not None:
            return self.komi
        return getattr(getattr(self.game, "setup", None), "komi", None)

    def add(self, action: int, seconds: float | None = None, value: float | None = None) -> None:
        """Adds the move played next."""
        action = int(action)
        # Rounded as the JSON line keeps them: a record equals itself read back.
        seconds = None if seconds is None else round(float(seconds), 4)
        value = None if value is None or not np.isfinite(value) else round(float(value), 4)
        self.moves.append(Move(action, self.game.text.label(action), seconds, value))

    def take_back(self, count: int) -> None:
        """Drops the last `count` moves."""
        del self.moves[len(self.moves) - count :]

    def record(
        self, result: int | None = None, engine_count: str | None = None, resigned: bool = False
    ) -> GameRecord:
        """The record so far; with `result` (+1, 0, -1) a finished game.

        The result text of games that count a margin (Go's area, Othello's discs) is
        counted on the final position, replayed in a fresh environment. `resigned`: the
        loser resigned before the game's end ("B+R").
        """
        text = ""
        if resigned and result is not None:
            text = resignation_text(self.game.name, result)
        elif result is not None:
            dialect = sgf_game(self.game.name)
            board = None
            if dialect is not None and dialect.margin is not None:
                board = replay(self.game, [m.action for m in self.moves], keep_boards=False).boards[
                    -1
                ]
            text = result_text(self.game.name, result, board, self._komi())
        settings = settings_of(self.game)
        if self._komi() is not None and "komi" in settings:
            settings["komi"] = self._komi()
        opening = self.handicap
        if opening and tuple(m.action for m in self.moves[: len(opening)]) == opening:
            settings["handicap"] = (len(opening) + 1) // 2  # stones, passes between them
        return GameRecord(
            game=self.game.name,
            players=(self.players[0], self.players[1]),
            moves=tuple(self.moves),
            result=result,
            result_text=text,
            settings=settings,
            started=self.started,
            event=self.event,
            engine_count=engine_count,
        )
