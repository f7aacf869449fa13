"""The agent as a GTP engine: GUIs (GoGui, Sabaki), match runners and servers drive it.

`AgentEngine` answers GTP v2 commands, one line each, for a game whose moves have GTP
names (`Game.gtp`): `protocol_version`, `name`, `version`, `known_command`,
`list_commands`, `quit`, `boardsize`, `clear_board`, `komi`, `play`, `genmove`, `undo`,
`showboard`, `printsgf` (the game so far as an SGF file, as GNU Go and KataGo answer
it: in the answer, or written to the file it names), and `final_score` where boardq
counts the game (Go: area, Tromp-Taylor, komi included). Go also takes handicap stones
(`fixed_handicap`, `place_free_handicap` on the same fixed points, `set_free_handicap`):
black's first moves with white passing between them, as the ladder's handicap games
are played, which `undo` does not take back. The game is played through
its real environment (`Match`, which takes moves back), so the rules are PettingZoo's,
as in training.

Bad input is answered `? message` and the engine goes on: an unknown command, a
malformed or illegal move, a board size or komi the game is not played with, a move
for the colour not to move (boardq's games alternate: in Go, play a pass first). In
Othello a pass happens only when it is forced, and controllers such as GRhino's do
not send it: a move for the other colour then passes for the colour to move
(`Move.implied`), and `undo` takes such a pass back with the move after it.

`moves` is the game so far, and `record()` the game as a game record
(`boardq.records`): the colour the agent generated moves for is named by
the agent's file and search, the other "unknown" (GTP has no command that tells an
engine who its opponent is); the time of each generated move, and the agent's value
of it where the engine was given one (`value`); the result by boardq's rules once the
game has ended.
"""

from __future__ import annotations

import sys
import time
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

import numpy as np

from boardq.boardtext import plain
from boardq.game import Game
from boardq.gtp import (
    COLOURS,
    Command,
    GtpSyntaxError,
    format_response,
    parse_colour,
    parse_command,
    score_text,
)
from boardq.play.match import Match
from boardq.players.evaluation import Handicap
from boardq.records import GameLog, GameRecord, PlayerInfo, to_sgf
from boardq.rundir import atomic_write_bytes

__all__ = ["AgentEngine", "GtpError", "Move"]

Act = Callable[[Mapping[str, np.ndarray]], int]
Value = Callable[[Mapping[str, np.ndarray], int], float]
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


class AgentEngine:
    """A GTP engine over one game, whose `genmove` asks `act`.

    Args:
        game: the game; it needs `game.gtp`.
        act: the agent's move for a PettingZoo observation of the player to move.
        name: the engine's `name`.
        version: its `version`.
        log: where notes go (never stdout, which carries GTP alone).
        agent: how a game record names the agent (its file and search).
        value: the agent's value of the move it chose, for the record (None: not kept).
    """

    def __init__(
        self,
        game: Game,
        act: Act,
        name: str = "boardq",
        version: str = "",
        log: TextIO = None,
        agent: PlayerInfo | None = None,
        value: Value | None = None,
    ):
        if game.gtp is None:
            raise ValueError(f"{game.title}'s moves have no GTP names")
        self.game = game
        self.dialect = game.gtp
        self.act = act
        self.name = name
        self.version = version
        self.log = log or sys.stderr
        self.agent = agent or PlayerInfo(f"{name} {version}".strip(), {"kind": "agent"})
        self.value = value
        self.match = Match(game)
        self.moves: list[Move] = []
        self.game_log = GameLog(game, event="boardq gtp")
        self.done = False
        self._handlers: dict[str, Callable[[list[str]], str]] = {
            "protocol_version": lambda args: "2",
            "name": lambda args: self.name,
            "version": lambda args: self.version,
            "known_command": self._known_command,
            "list_commands": lambda args: "\n".join(self._handlers),
            "quit": self._quit,
            "boardsize": self._boardsize,
            "clear_board": lambda args: self.clear(),
            "komi": self._komi,
            "play": self._play,
            "genmove": self._genmove,
            "undo": self._undo,
            "showboard": self._showboard,
            "printsgf": self._printsgf,
        }
        if self.dialect.score is not None:
            self._handlers["final_score"] = self._final_score
        if self.dialect.handicap:
            self._handlers["fixed_handicap"] = self._fixed_handicap
            self._handlers["place_free_handicap"] = self._fixed_handicap
            self._handlers["set_free_handicap"] = self._set_free_handicap
        self.setup_plies = 0  # the handicap stones and the passes between them

    # -- the loop ----------------------------------------------------------------------
    def run(self, stdin: TextIO, stdout: TextIO) -> None:
        """Answers commands from `stdin` until `quit` or the end of input."""
        while not self.done:
            line = stdin.readline()
            if not line:
                return
            answer = self.answer(line)
            if answer is not None:
                stdout.write(answer)
                stdout.flush()

    def answer(self, line: str) -> str | None:
        """The whole answer to one line (None for a line that holds no command)."""
        command = parse_command(line)
        if command is None:
            return None
        try:
            return format_response(command.id, True, self.execute(command))
        except GtpError as e:
            return format_response(command.id, False, str(e))
        except Exception as e:  # a bug must not end a GUI's game: say it, go on
            print(f"boardq gtp: {command.name} failed:", file=self.log)
            traceback.print_exc(file=self.log)
            return format_response(command.id, False, f"internal error: {e}")

    def execute(self, command: Command) -> str:
        """The answer's text to a command; GtpError for `? message`."""
        handler = self._handlers.get(command.name)
        if handler is None:
            raise GtpError("unknown command")
        try:
            return handler(command.args)
        except GtpSyntaxError as e:
            raise GtpError(f"syntax error: {e}") from None

    # -- the game ----------------------------------------------------------------------
    def clear(self) -> str:
        """A new game from the initial position."""
        self.match.close()
        self.match = Match(self.game)
        self.moves = []
        self.game_log = GameLog(self.game, event="boardq gtp")
        self.setup_plies = 0
        return ""

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
        self._record(self.dialect.pass_action, implied=True)
        if match.over:
            raise GtpError("the game is over (clear_board starts a new one)")

    def _record(
        self,
        action: int,
        implied: bool = False,
        generated: bool = False,
        seconds: float | None = None,
        value: float | None = None,
    ) -> None:
        """Plays `action` for the colour to move; `generated`: the agent's, with its time."""
        seat = self.match.to_move
        self.match.play(action)
        self.moves.append(Move(seat, action, self.dialect.vertex(action), implied, generated))
        self.game_log.add(action, seconds, value)

    def _play(self, args: list[str]) -> str:
        if len(args) != 2:
            raise GtpSyntaxError("play takes a color and a vertex, e.g. play black E5")
        seat = parse_colour(args[0])
        action = self.dialect.action(args[1])
        self._to_move(seat)
        if not self.match.legal()[action]:
            raise GtpError("illegal move")
        self._record(action)
        return ""

    def _genmove(self, args: list[str]) -> str:
        if len(args) != 1:
            raise GtpSyntaxError("genmove takes a color, e.g. genmove white")
        seat = parse_colour(args[0])
        self._to_move(seat)
        observation = self.match.observation()
        t0 = time.perf_counter()
        action = int(self.act(observation))
        seconds = time.perf_counter() - t0
        if not self.match.legal()[action]:
            raise GtpError(f"the agent chose {self.dialect.vertex(action)}, which is illegal")
        value = None if self.value is None else float(self.value(observation, action))
        self._record(action, generated=True, seconds=seconds, value=value)
        return self.moves[-1].vertex

    def _undo(self, args: list[str]) -> str:
        if len(self.moves) <= self.setup_plies:  # handicap stones are not moves
            raise GtpError("cannot undo")
        count = 1
        while count < len(self.moves) and self.moves[-count - 1].implied:
            count += 1  # the forced pass went with the move that followed it
        self.match.take_back(count)
        del self.moves[-count:]
        self.game_log.take_back(count)
        return ""

    # -- handicap (Go) ------------------------------------------------------------------
    def _fixed_handicap(self, args: list[str]) -> str:
        """`fixed_handicap N` (and `place_free_handicap N`, placed the same way)."""
        stones = _whole(args, "fixed_handicap")
        if stones not in self.dialect.handicap:
            raise GtpError("invalid number of stones")
        vertices = self.dialect.handicap[stones]
        self._place_handicap([self.dialect.action(v) for v in vertices])
        return " ".join(vertices)

    def _set_free_handicap(self, args: list[str]) -> str:
        """`set_free_handicap V1 V2 ...`: the controller's points."""
        actions = [self.dialect.action(v) for v in args]
        if len(actions) < 2 or len(set(actions)) != len(actions):
            raise GtpError("bad vertex list")
        if self.dialect.pass_action in actions:
            raise GtpError("bad vertex list")
        self._place_handicap(actions)
        return ""

    def _place_handicap(self, actions: list[int]) -> None:
        """Black's stones on an empty board, white passing between them; white to move.

        The game's rules have no setup, so the stones are black's first moves (as in
        `boardq evaluate --handicap`, and as the Go agent's ladder trains it to see them),
        and the record states them as SGF's HA and AB.
        """
        if self.moves:
            raise GtpError("board not empty")
        opening = Handicap(tuple(actions), int(self.dialect.pass_action)).opening
        self.game_log = GameLog(self.game, event="boardq gtp", handicap=opening)
        for k, action in enumerate(opening):
            self._record(action, implied=bool(k % 2))
        self.setup_plies = len(opening)

    # -- settings and views ------------------------------------------------------------
    def _boardsize(self, args: list[str]) -> str:
        size = _whole(args, "boardsize")
        if size != self.dialect.size:
            raise GtpError("unacceptable size")
        return self.clear()

    def _komi(self, args: list[str]) -> str:
        if len(args) != 1:
            raise GtpSyntaxError("komi takes a number")
        try:
            komi = float(args[0])
        except ValueError:
            raise GtpSyntaxError("komi not a float") from None
        if self.dialect.komi is not None and komi != self.dialect.komi:
            raise GtpError(f"boardq's {self.game.title} is played with komi {self.dialect.komi:g}")
        return ""

    def _known_command(self, args: list[str]) -> str:
        return "true" if len(args) == 1 and args[0] in self._handlers else "false"

    def _quit(self, args: list[str]) -> str:
        self.done = True
        return ""

    def _showboard(self, args: list[str]) -> str:
        board = plain(self.game.text.draw(self.match.board(), self._last(), ascii_only=True))
        return "\n" + board

    def _last(self) -> int | None:
        return self.moves[-1].action if self.moves else None

    def record(self) -> GameRecord:
        """The game so far as a game record (finished once the game has ended)."""
        agent_seats = {move.seat for move in self.moves if move.generated}
        log = self.game_log
        log.players = [self.agent if seat in agent_seats else OPPONENT for seat in (0, 1)]
        return log.record(self.match.result())

    def _printsgf(self, args: list[str]) -> str:
        """The game as an SGF file: the answer's text, or written to the file named."""
        if len(args) > 1:
            raise GtpSyntaxError("printsgf takes at most a file name")
        data = to_sgf(self.record())
        if not args:
            return data.decode("utf-8").strip()
        try:
            atomic_write_bytes(Path(args[0]), data)
        except OSError as e:
            raise GtpError(f"cannot write {args[0]}: {e.strerror or e}") from None
        return ""

    def _final_score(self, args: list[str]) -> str:
        if not self.match.over and self.dialect.komi is None:
            raise GtpError("cannot score: the game is not over")
        return score_text(self.dialect.score(self.match.env))


def _whole(args: list[str], command: str) -> int:
    if len(args) != 1:
        raise GtpSyntaxError(f"{command} takes one number")
    try:
        return int(args[0])
    except ValueError:
        raise GtpSyntaxError(f"{command} not an integer") from None
