"""A GTP engine as a player (`gtp:COMMAND`): GNU Go for Go, GRhino for Othello.

`GtpPlayer` follows every game as a `MoveObserver` (as the OpenSpiel MCTS mirror does):
at each game's start it clears the engine's board (`boardsize`, `clear_board`, `komi`),
it tells the engine every move it did not choose itself (`play`), and when its turn
comes it asks `genmove`. boardq's environment stays the referee: the engine's move must
be legal there, and the result is boardq's. Where the engine can count (`final_score`),
its count of each finished game is compared with boardq's result, and a disagreement
is counted, never hidden (`summary`).

Games are varied on purpose. An engine that takes a seed over GTP (`set_random_seed`,
GNU Go) gets its own for each game, the match's seed plus the game's number; one that
does not (GRhino seeds itself from the clock) should be met with seeded random
openings (`opening_plies`, `boardq.players.match_openings.Openings`).

An engine that answers `resign` loses the game (`Resigned`). Anything else wrong (an
illegal or unreadable move, an engine that dies or hangs) stops the match with an
`EngineError` that names the engine; `close` ends its process.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np

from boardq.errors import BoardqError
from boardq.gtp.client import (
    DEFAULT_TIMEOUT_SEC,
    EngineError,
    EngineRefusal,
    GtpEngine,
    find_program,
    split_command,
)
from boardq.gtp.protocol import COLOURS, GtpSyntaxError, parse_score
from boardq.players.evaluation import Resigned

if TYPE_CHECKING:
    from boardq.game import Game

__all__ = [
    "DEFAULT_OPENING_PLIES",
    "EngineError",
    "GtpPlayer",
    "check_engine",
    "engine_warnings",
    "opening_plies",
]

ONE_GAME_ENGINES = {"gnugo": ("GNU Go", "go"), "gtp-rhino": ("GRhino", "othello")}
"""Engines known to play one game only, by program name: their name for people and the
game. Any game with GTP names takes a GTP engine (another `boardq gtp` among them), but
these would play their own game on the board they are given (GNU Go: 3x3 Go)."""

DEFAULT_OPENING_PLIES = 4
"""Random first moves of each game against an engine that cannot be seeded (Othello:
244 different openings)."""


def check_engine(command: str, game: Game) -> None:
    """Refuses, without starting it, an engine for a game without GTP names or not found.

    Raises:
        BoardqError: the game's moves have no GTP names, the program is known to play
          another game only (`ONE_GAME_ENGINES`), or it is not found.
    """
    if game.gtp is None:
        from boardq.catalog import game_names, get_game

        named = [n for n in game_names() if get_game(n).gtp is not None]
        raise BoardqError(
            f"GTP engines play {', '.join(named)}, whose moves have GTP names; "
            f"{game.title}'s have none"
        )
    program = split_command(command)[0]
    known = ONE_GAME_ENGINES.get(os.path.basename(program))
    if known is not None and known[1] != game.name:
        from boardq.catalog import get_game

        raise EngineError(f"{known[0]} plays {get_game(known[1]).title} only, not {game.title}")
    if find_program(program) is None:
        raise EngineError(
            f"engine {program!r} not found on PATH or in /usr/games "
            "(Debian: apt-get install gnugo grhino)"
        )


def engine_warnings(command: str, game: Game) -> list[str]:
    """What is likely wrong with an engine's command line for this game (GNU Go's flags)."""
    words = split_command(command)
    if os.path.basename(words[0]) != "gnugo" or game.gtp is None or game.setup.komi is None:
        return []
    notes = []
    if "--capture-all-dead" not in words:
        notes.append(
            "GNU Go without --capture-all-dead passes with dead stones on the board, and "
            "boardq's area count takes them as alive: add --capture-all-dead"
        )
    if "--chinese-rules" not in words:
        notes.append(
            "GNU Go without --chinese-rules counts territory, not area as boardq does: "
            "its final_score may disagree (add --chinese-rules)"
        )
    return notes


def opening_plies(player) -> int:
    """Random first moves a match against `player` needs to vary its games.

    `DEFAULT_OPENING_PLIES` against an engine that takes no seed, else 0.
    """
    if isinstance(player, GtpPlayer) and not player.seeded:
        return DEFAULT_OPENING_PLIES
    return 0


class GtpPlayer:
    """A GTP engine playing through boardq's environment; a `MoveObserver`.

    Args:
        game: the game; it needs `game.gtp`.
        command: the engine's command line.
        seed: the first game's engine seed (`set_random_seed`, where the engine has it);
            each later game counts up from it.
        timeout_sec: how long the engine may take over one command.

    Raises:
        EngineError: the engine does not start, speak GTP, or take this board.
    """

    def __init__(
        self, game: Game, command: str, seed: int = 0, timeout_sec: float = DEFAULT_TIMEOUT_SEC
    ) -> None:
        check_engine(command, game)
        self.game = game
        self.dialect = game.gtp
        self.engine = GtpEngine(command, timeout_sec)
        self.seed = seed
        try:
            self._setup(f"boardsize {self.dialect.size}")
        except BaseException:
            self.engine.close()
            raise
        self.seeded = self.engine.knows("set_random_seed")
        self.scores = self.engine.knows("final_score")
        self.games = 0
        self.resignations = 0
        self.counted: list[float] = []  # the engine's count of each game, its opponent's lead
        self.disagreed: list[int] = []  # games (0-based) where its count and boardq's differ
        self.last_count: str | None = None  # its final_score of the game just ended (records)
        self._ply = 0
        self._mine: int | None = None
        self._seat: int | None = None

    @property
    def title(self) -> str:
        return self.engine.title

    @property
    def varied(self) -> str:
        """How the engine varies its games, for tables and JSON ("" where it cannot)."""
        if self.seeded:
            return f"its seed, one per game (set_random_seed {self.seed}, {self.seed + 1}, ...)"
        return ""

    def _setup(self, command: str) -> None:
        try:
            self.engine.send(command)
        except EngineRefusal as e:
            raise EngineError(f"cannot set up the game: {e}") from None

    def new_game(self) -> None:
        """Clears the engine's board (and seeds it) for a new game."""
        self._setup("clear_board")
        komi = self.game.setup.komi
        if komi is not None and self.engine.knows("komi"):
            self._setup(f"komi {komi:g}")
        if self.seeded:
            self._setup(f"set_random_seed {self.seed + self.games}")
        self.games += 1
        self._ply, self._mine, self._seat = 0, None, None
        self.last_count = None

    def moved(self, action: int, result: int | None) -> None:
        """Tells the engine a move it did not choose; at the end, compares its count."""
        seat, self._ply = self._ply % 2, self._ply + 1
        if self._mine is not None:
            self._mine = None  # its own move: it played it already
        elif not (self.dialect.passes_implied and action == self.dialect.pass_action):
            vertex = self.dialect.vertex(action)
            try:
                self.engine.send(f"play {COLOURS[seat]} {vertex}")
            except EngineRefusal as e:
                raise EngineError(f"{e} (legal in boardq's rules)") from None
        if result is not None:
            self._count(result)

    def act(self, observation: Mapping[str, np.ndarray]) -> int:
        """The engine's move (`genmove`), checked against boardq's legal moves.

        Raises:
            Resigned: the engine resigned.
            EngineError: the engine's answer is no legal move here.
        """
        seat = self._ply % 2
        self._seat = seat
        command = f"genmove {COLOURS[seat]}"
        answer = self.engine.send(command)
        if answer.strip().lower() == "resign":
            self.resignations += 1
            raise Resigned(f"{self.title} resigned")
        try:
            action = self.dialect.action(answer)
        except GtpSyntaxError:
            raise EngineError(
                f"{self.title} answered {command!r} with {answer!r}, which is no move"
            ) from None
        if not observation["action_mask"][action]:
            raise EngineError(
                f"{self.title} answered {command!r} with {answer!r}, which is not legal "
                "here by boardq's rules"
            )
        self._mine = action
        return action

    def _count(self, result: int) -> None:
        """Asks the engine's own count of the game just ended; notes a disagreement."""
        if not self.scores:
            return
        try:
            answer = self.engine.send("final_score")
        except EngineRefusal:
            return  # it cannot count this game
        self.last_count = answer.strip()
        lead = parse_score(answer)
        if lead is None or math.isinf(lead):
            return
        if int(np.sign(lead)) != result:
            self.disagreed.append(self.games - 1)
        if self._seat is not None:  # it moved: its opponent is the other colour
            self.counted.append(lead if self._seat == 1 else -lead)

    def summary(self) -> dict[str, float]:
        """The match as the engine saw it, as floats to log.

        `engine/games` played, `engine/resigned` by the engine, `engine/scored` games
        it counted (`final_score`), `engine/disagreements` of those whose winner by its
        count is not boardq's, and, where it counted any, `engine/opponent_margin`: the
        mean lead its count gives its opponent (negative: behind).
        """
        metrics = {
            "engine/games": float(self.games),
            "engine/resigned": float(self.resignations),
            "engine/scored": float(len(self.counted)),
            "engine/disagreements": float(len(self.disagreed)),
        }
        if self.counted:
            metrics["engine/opponent_margin"] = float(np.mean(self.counted))
        return metrics

    def close(self) -> None:
        """Ends the engine's process."""
        self.engine.close()
