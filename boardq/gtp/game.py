"""The game an engine keeps: its match, the moves so far, its record.

`GameKeeping` is the half of `AgentEngine` that keeps the game: a new game
(`clear_board`), a komi set mid-game, the moves played (`play`, and the forced passes
no command names in Othello), taken back (`undo`), and the game record. The engine
brings `game`, `dialect`, `komi`, `agent` and the rest (`gtp_engine`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from boardq.gtp.protocol import COLOURS, GtpSyntaxError, parse_colour
from boardq.play.match import Match
from boardq.records import GameLog, GameRecord, PlayerInfo

__all__ = ["GameKeeping", "GtpError", "Move", "OPPONENT"]

OPPONENT = PlayerInfo("unknown")
"""How a record names the colour the agent did not play: GTP never says who that is."""


class GtpError(Exception):
    """A command that cannot be carried out; its message is GTP's `? message`."""


@dataclass(frozen=True)
class Move:
    """A move of the game so far.

    Attributes:
        seat: 0 black (moves first), 1 white.
        action: the game's action.
        vertex: its GTP name ("E5", "pass").
        implied: a forced pass no command named (Othello).
        generated: the agent chose it (`genmove`).
    """

    seat: int
    action: int
    vertex: str
    implied: bool = False
    generated: bool = False


class GameKeeping:
    """The game of an engine: its match, moves and record (see the module)."""

    # -- the game ----------------------------------------------------------------------
    def clear(self) -> str:
        """A new game from the initial position."""
        self.match.close()
        self.match = self._new_match()
        self.moves = []
        self.setup_plies = 0
        self.resigned = None
        self.start_log()
        return ""

    def _new_match(self) -> Match:
        if self.komi is None or self.komi == self.game.setup.komi:
            return Match(self.game)
        return Match(self.game, komi=self.komi)

    def set_komi(self, komi: float) -> None:
        """Counts the game with `komi` from now on (the moves so far replayed)."""
        self.komi = komi
        moves = list(self.match.moves)
        self.match.close()
        self.match = self._new_match()
        for action in moves:
            self.match.play(action)

    def start_log(self, handicap: tuple[int, ...] = ()) -> None:
        """A new game record (`handicap`: its opening of stones and passes)."""
        self.game_log = GameLog(self.game, event="boardq gtp", handicap=handicap, komi=self.komi)

    def vertex_of(self, action: int) -> str:
        """The vertex of `action` now (Connect Four: the point its piece would land on)."""
        if not self.dialect.drop or action == self.dialect.pass_action:
            return self.dialect.vertex(action)
        board = np.asarray(self.match.board())
        empty = np.flatnonzero(board[:, action] == 0)
        return self.dialect.vertex(action, int(empty[-1]) if len(empty) else 0)

    def _to_move(self, seat: int) -> None:
        """Makes `seat` the colour to move, passing for the other where the pass is forced.

        Raises:
            GtpError: the game is over, or the other colour is to move and may do more
                than pass.
        """
        match = self.match
        if match.over:
            raise GtpError("the game is over (clear_board starts a new one)")
        if match.to_move == seat:
            return
        legal = match.legal()
        forced = self.dialect.pass_action is not None and legal.sum() == 1
        forced = forced and bool(legal[self.dialect.pass_action])
        if not (self.dialect.passes_implied and forced):
            raise GtpError(
                f"it is {COLOURS[match.to_move]}'s move: boardq's games alternate"
                + (" (play a pass first)" if self.dialect.pass_action is not None else "")
            )
        self.record_move(self.dialect.pass_action, implied=True)
        if match.over:
            raise GtpError("the game is over (clear_board starts a new one)")

    def record_move(
        self,
        action: int,
        implied: bool = False,
        generated: bool = False,
        seconds: float | None = None,
        value: float | None = None,
    ) -> None:
        """Plays `action` for the colour to move; `generated`: the agent's, with its time."""
        seat = self.match.to_move
        vertex = self.vertex_of(action)
        self.match.play(action)
        self.moves.append(Move(seat, action, vertex, implied, generated))
        self.game_log.add(action, seconds, value)

    def _play(self, args: list[str]) -> str:
        if len(args) != 2:
            raise GtpSyntaxError("play takes a color and a vertex, e.g. play black E5")
        seat = parse_colour(args[0])
        action = self.dialect.action(args[1])
        self._to_move(seat)
        if not self.match.legal()[action]:
            raise GtpError("illegal move")
        self.record_move(action)
        return ""

    def _undo(self, args: list[str]) -> str:
        if len(self.moves) <= self.setup_plies:  # handicap stones are not moves
            raise GtpError("cannot undo")
        count = 1
        while count < len(self.moves) and self.moves[-count - 1].implied:
            count += 1  # the forced pass went with the move that followed it
        self.match.take_back(count)
        del self.moves[-count:]
        self.game_log.take_back(count)
        self.resigned = None
        return ""

    def record(self) -> GameRecord:
        """The game so far as a game record (finished once the game has ended)."""
        agent_seats = {move.seat for move in self.moves if move.generated}
        if self.resigned is not None:
            agent_seats.add(self.resigned)
        log = self.game_log
        log.players = [self.agent if seat in agent_seats else OPPONENT for seat in (0, 1)]
        if self.resigned is not None:
            return log.record(1 if self.resigned else -1, resigned=True)
        return log.record(self.match.result())
