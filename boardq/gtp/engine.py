"""The agent as a GTP engine: GUIs, match runners and servers drive it.

`AgentEngine` answers GTP v2 commands, one line each, for a game whose moves have GTP
names (`Game.gtp`): `protocol_version`, `name`, `version`, `known_command`,
`list_commands`, `quit`, `clear_board`, `play`, `genmove` (and `kgs-genmove_cleanup`),
`undo`; and from a module each: the board's settings and views (`gtp_views`), Go's
komi, handicap and count (`gtp_go`), the clock (`gtp_clock`), analysis streamed to the
Go GUIs (`gtp_analysis`, `gtp_stream`), GoGui's ruler commands (`gtp_gogui`). The game
is played through its real environment (`Match`, which takes moves back), so the
rules are PettingZoo's, as in training.

Bad input is answered `? message` and the engine goes on: an unknown command, a
malformed or illegal move, a number out of bounds (bounded before it is converted), a
move for the colour not to move (boardq's games alternate: in Go, play a pass first).
In Othello a pass happens only when it is forced, and controllers such as GRhino's do
not send it: a move for the other colour then passes for the colour to move
(`Move.implied`), and `undo` takes such a pass back with the move after it.

`genmove` gives the agent the time the clock allows (`Clock.budget`), at most
`move_time`, and one call of the agent gives the move and its value, both from the
search that chose the move and both inside the time counted on the clock; with
`resign_below`, it resigns when that win rate is below the threshold, never in the
opening (the first quarter of the board's points in plies) nor in a handicap game.
`record()` is the game as a game record (`boardq.records`): the colour the agent
played named by its file and search, the other "unknown" (GTP never says who that
is), each generated move's time and value, the result once over.
"""

from __future__ import annotations

import inspect
import sys
import time
from collections.abc import Callable, Mapping
from io import StringIO
from typing import TextIO

import numpy as np

from boardq.game import Game
from boardq.gtp import stream as gtp_stream
from boardq.gtp.analysis import ANALYSE_COMMANDS
from boardq.gtp.clock import Clock
from boardq.gtp.game import GameKeeping, GtpError, Move
from boardq.gtp.go import GoSetup
from boardq.gtp.gogui import GoGuiRuler
from boardq.gtp.protocol import (
    COLOURS,
    Command,
    GtpSyntaxError,
    format_response,
    parse_colour,
    parse_command,
)
from boardq.gtp.views import EngineViews
from boardq.play.match import Match
from boardq.play.resign import board_points, resigns
from boardq.records import PlayerInfo

__all__ = ["AgentEngine", "GtpError", "Move"]

Act = Callable[..., "int | tuple[int, float | None]"]
"""The agent's move for an observation, `act(observation)` or `act(observation, seconds)`:
the action, or `(action, value)` with its value from the search that chose it."""
Analyse = Callable[[Mapping[str, np.ndarray], float], list]


class AgentEngine(GameKeeping):
    """A GTP engine over one game, whose `genmove` asks `act`.

    Args:
        game: the game; it needs `game.gtp`.
        act: the agent's move for a PettingZoo observation of the player to move; if
            it takes `seconds` too, the seconds it may take (None: its own pace). It
            returns the action, or `(action, value)`: the value in [-1, 1] of the move
            from the search that chose it, kept in the record and read to resign (an
            action alone, or a value of None: no value, no resigning).
        name: the engine's `name`.
        version: its `version`.
        log: where notes go (never stdout, which carries GTP alone).
        agent: how a game record names the agent (its file and search).
        analyse: the agent's moves at the root of a position, best first, each with
            `action, visits, value, prior, pv` (`gtp_analysis.NetworkAnalysis`, or the
            tree search's `analyse`); None: no analysis commands.
        values: the agent's value of each action (NaN illegal), for GoGui's boards.
        move_time: the most seconds a move may take, clock or not (None: no cap).
        resign_below: resign when the agent's win rate of its move is below this.
    """

    Error = GtpError

    def __init__(
        self,
        game: Game,
        act: Act,
        name: str = "boardq",
        version: str = "",
        log: TextIO = None,
        agent: PlayerInfo | None = None,
        analyse: Analyse | None = None,
        values: Callable[[Mapping], np.ndarray] | None = None,
        move_time: float | None = None,
        resign_below: float | None = None,
    ):
        if game.gtp is None:
            raise ValueError(f"{game.title}'s moves have no GTP names")
        self.game = game
        self.dialect = game.gtp
        self.act = act
        self._timed = "seconds" in inspect.signature(act).parameters
        self.name = name
        self.version = version
        self.log = log or sys.stderr
        self.agent = agent or PlayerInfo(f"{name} {version}".strip(), {"kind": "agent"})
        self.analyse = analyse
        self.move_time = move_time
        self.resign_below = resign_below
        self.komi = game.setup.komi
        self.clock = Clock()
        self.match = Match(game)
        self.moves: list[Move] = []
        self.setup_plies = 0  # the handicap stones and the passes between them
        self.resigned: int | None = None
        self.start_log()
        self.done = False
        self._handlers: dict[str, Callable[[list[str]], str]] = {
            "protocol_version": lambda args: "2",
            "name": lambda args: self.name,
            "version": lambda args: self.version,
            "known_command": self._known_command,
            "list_commands": lambda args: "\n".join(self.commands()),
            "quit": self._quit,
            "clear_board": lambda args: self.clear(),
            "play": self._play,
            "genmove": self._genmove,
            "kgs-genmove_cleanup": self._genmove,
            "undo": self._undo,
        }
        self._handlers.update(EngineViews(self).handlers())
        self._handlers.update(GoSetup(self).handlers())
        self._handlers.update(self.clock.handlers())
        self._handlers.update(GoGuiRuler(self, values).handlers())
        self._streams = (
            set(ANALYSE_COMMANDS) if analyse is not None and not self.dialect.drop else set()
        )

    def commands(self) -> list[str]:
        """The commands it knows, as `list_commands` lists them."""
        return [*self._handlers, *sorted(self._streams)]

    # -- the loop ----------------------------------------------------------------------
    def run(self, stdin: TextIO, stdout: TextIO) -> None:
        """Answers commands from `stdin` until `quit` or the end of input; analysis streams."""
        gtp_stream.run(self, stdin, stdout)

    @staticmethod
    def parse(line: str) -> Command | None:
        """The command of a line (None for none)."""
        return parse_command(line)

    def answer(self, line: str) -> str | None:
        """The whole answer to one line (None for a line that holds no command).

        An analysis command answers one line of its stream, as if the next command had
        come at once.
        """
        command = parse_command(line)
        if command is None:
            return None
        if command.name in self._streams:
            out = StringIO()
            gtp_stream.stream(self, command, out, None)
            return out.getvalue()
        try:
            return format_response(command.id, True, self.execute(command))
        except Exception as e:  # a bug must not end a GUI's game: say it, go on
            return format_response(command.id, False, gtp_stream.refusal(self, command, e))

    def execute(self, command: Command) -> str:
        """The answer's text to a command; GtpError for `? message`."""
        handler = self._handlers.get(command.name)
        if handler is None:
            raise GtpError("unknown command")
        try:
            return handler(command.args)
        except GtpSyntaxError as e:
            raise GtpError(f"syntax error: {e}") from None

    def _genmove(self, args: list[str]) -> str:
        if len(args) != 1:
            raise GtpSyntaxError("genmove takes a color, e.g. genmove white")
        return self.generate(parse_colour(args[0]))

    def generate(self, seat: int) -> str:
        """The agent's move for `seat`, played (its vertex), or "resign"."""
        self._to_move(seat)
        observation = self.match.observation()
        seconds = self._budget(seat, observation)
        t0 = time.perf_counter()
        decided = self.act(observation, seconds) if self._timed else self.act(observation)
        spent = time.perf_counter() - t0
        self.clock.spent(seat, spent)
        action, value = _decision(decided)
        if not self.match.legal()[action]:
            raise GtpError(f"the agent chose {self.vertex_of(action)}, which is illegal")
        plies, points = len(self.moves), board_points(self.game)
        if resigns(self.resign_below, value, plies, points, bool(self.setup_plies)):
            self.resigned = seat
            return "resign"
        self.record_move(action, generated=True, seconds=spent, value=value)
        return self.moves[-1].vertex

    def _budget(self, seat: int, observation: Mapping[str, np.ndarray]) -> float | None:
        """The seconds the next move may take: the clock's share, at most `move_time`.

        The clock spreads main time over the moves the game has left by its own
        estimate (`Game.plies_left`: the empty points), not over the legal moves.
        """
        allowed = self.clock.budget(seat, self.game.plies_left(observation["observation"]))
        caps = [t for t in (allowed, self.move_time) if t is not None]
        return min(caps) if caps else None

    def analysed(self, seat: int | None) -> Mapping[str, np.ndarray]:
        """The observation an analysis of `seat` (None: the colour to move) looks at."""
        if self.match.over:
            raise GtpError("the game is over (clear_board starts a new one)")
        if seat is not None and seat != self.match.to_move:
            raise GtpError(f"it is {COLOURS[self.match.to_move]}'s move")
        return self.match.observation()

    # -- views ------------------------------------------------------------------------
    def _known_command(self, args: list[str]) -> str:
        return "true" if len(args) == 1 and args[0] in self.commands() else "false"

    def _quit(self, args: list[str]) -> str:
        self.done = True
        return ""


def _decision(decided) -> tuple[int, float | None]:
    """(action, value) of what `act` returned: an action, or an action and its value."""
    if isinstance(decided, tuple):
        action, value = decided
        return int(action), None if value is None else float(value)
    return int(decided), None
