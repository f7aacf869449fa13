"""A person against an agent: the game loop.

`Session` plays games through `boardq.play.match.Match` (the game's real PettingZoo env),
asks a `LineReader` for each of the person's lines and draws on a `View` (both in
`boardq.play.terminal`). The agent is an `Advisor` (`boardq.players.advisor`, the web
board's too), asked its move, values and name for the session's search, so tests can
drive it with a stub; `boardq.players.advisor.SharedAgent` makes one of an agent file's
`Agent`. Each game is also kept as a record (`boardq.records`),
moves taken back taken out of it: `save [FILE]` writes it at a prompt, and a session
given a file (`--record FILE`) writes every game there as it ends (or is left):
`boardq.play.session_saves`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from boardq.boardtext import MoveError
from boardq.errors import EXIT_INTERRUPTED, EXIT_OK
from boardq.game import Game
from boardq.play.match import Match
from boardq.play.resign import board_points, resigns
from boardq.play.session_saves import GameSaver
from boardq.play.terminal import LineReader, View
from boardq.players.advisor import Advisor
from boardq.records import GameLog, GameRecord, PlayerInfo
from boardq.search.spec import NETWORK, SearchSpec

if TYPE_CHECKING:
    from boardq.players.match_openings import Handicap

# LineReader and View come from boardq.play.terminal.
__all__ = ["LineReader", "Session", "View"]


class _Quit(Exception):
    """The person asked to leave."""


_COMMANDS_HELP = """\
Commands:
  moves   list your legal moves
  hint    the agent's value of each of your legal moves (+1 win, 0 draw, -1 loss)
  undo    take back your last move and the agent's reply
  save [FILE]  save the game so far (FILE.sgf: SGF where the game has it; else a
          line of JSON added to FILE; no FILE: a new file here)
  help    show this help
  quit    leave (Ctrl-D and Ctrl-C leave too)"""


class Session:
    """Games between a person and an agent, seats swapping after each game."""

    def __init__(
        self,
        game: Game,
        agent: Advisor,
        view: View,
        reader: LineReader,
        hints: bool = False,
        search: SearchSpec = NETWORK,
        record_to: str | Path | None = None,
        handicap: Handicap | None = None,
        resign_below: float | None = None,
        komi: float | None = None,
    ) -> None:
        """Initialises the session.

        Args:
          game: the game.
          agent: the agent, asked with `search` (its `q_values` are what hints show; its
            `info` names it in the records).
          view: where boards and messages go.
          reader: where the person's lines come from.
          hints: show the agent's values after each of its moves.
          search: how the agent searches; its words for people ("depth-4 search", "tree
            search of 1 s a move") name the hints, and each of the agent's moves says
            how long its search took (the network alone: neither).
          record_to: the file every game is saved to as it ends (`save_record`; the
            games after the first of an SGF file go to NAME-2.sgf, NAME-3.sgf...).
          handicap: Go's handicap stones, black's in every game whoever plays black:
            placed before the first move, white passing between them (as `boardq
            evaluate --handicap` plays them); then white moves. Undo does not take them
            back.
          resign_below: the agent resigns when its win rate of its move is below this
            (`boardq.play.resign`: never in the opening nor in a handicap game).
          komi: Go's komi where not the game's own: the games are counted with it, and
            the session says once that the agent learnt with the game's own.
        """
        self.game = game
        self.agent = agent
        self.view = view
        self.reader = reader
        self.hints = hints
        self.search = search
        self._values_of = f"{search.words()} values" if search.searches else "values"
        self._searching = search.searches
        self.score = {"won": 0, "drawn": 0, "lost": 0}
        self.saves = GameSaver(game, view, record_to)
        self.agent_info = agent.info(search)
        self.log: GameLog | None = None
        self.handicap = handicap
        self.resign_below = resign_below
        own = game.setup.komi
        self.komi = None if komi is None or komi == own else komi
        self._options = {} if self.komi is None else {"komi": self.komi}
        self._setup = 0  # the plies of the handicap stones and the passes between them
        self.last_record: GameRecord | None = None
        self._commands: dict[str, Callable[[Match, int], bool]] = {
            "help": self._help,
            "?": self._help,
            "moves": self._moves,
            "hint": self._hint,
            "undo": self._undo,
            "quit": self._quit,
            "q": self._quit,
            "exit": self._quit,
        }

    def run(self, human_seat: int) -> int:
        """Plays games until the person leaves; returns the exit code."""
        code = EXIT_OK
        if self.komi is not None:
            note = self.game.setup.komi_note(self.game.title, self.komi)
            self.view.say(f"Komi {self.komi:g}: {note}.")
        try:
            number = 1
            while True:
                self.play_game(human_seat, number)
                if not self._again():
                    break
                human_seat, number = 1 - human_seat, number + 1
        except (_Quit, EOFError):
            pass
        except KeyboardInterrupt:
            self.view.console.print()
            code = EXIT_INTERRUPTED
        self.view.say("bye")
        return code

    def play_game(self, human_seat: int, number: int = 1) -> int:
        """Plays one game; returns its result for the person (+1 won, 0 drawn, -1 lost)."""
        match = Match(self.game, **self._options)
        person = PlayerInfo("you", {"kind": "person"})
        seats = (person, self.agent_info) if human_seat == 0 else (self.agent_info, person)
        opening = self._place_handicap(match)
        self.log = GameLog(self.game, seats, event="boardq play", handicap=opening, komi=self.komi)
        for action in opening:
            self.log.add(action)
        self._number = number
        try:
            self._announce(human_seat, number)
            if match.to_move == human_seat:
                self.view.board(match.board(), None)
            while not match.over:
                if match.to_move == human_seat:
                    self._human_turn(match, human_seat)
                elif self._agent_turn(match):
                    return self._finish(match, human_seat, resigned=True)
            return self._finish(match, human_seat)
        finally:
            match.close()
            if not match.over and self.log.moves:
                self.saves.keep(number, self.log.record())  # left before its end

    def _place_handicap(self, match: Match) -> tuple[int, ...]:
        """Plays black's handicap stones and white's passes between them; the moves."""
        opening = self.handicap.opening if self.handicap is not None else ()
        for action in opening:
            match.play(action)
        self._setup = len(opening)
        return opening

    def _announce(self, human_seat: int, number: int) -> None:
        self.view.console.print()
        you, it = self.view.mark(human_seat), self.view.mark(1 - human_seat)
        if self.handicap is not None:
            stones = f"{len(self.handicap.points)} handicap stones"
            if human_seat == 0:
                self.view.say(f"Game {number}: you are {you} with {stones}; the agent is {it}.")
            else:
                self.view.say(f"Game {number}: you are {you}; the agent is {it} with {stones}.")
            self.view.say("White moves first.")
        elif human_seat == 0:
            self.view.say(f"Game {number}: you are {you} and move first; the agent is {it}.")
        else:
            self.view.say(f"Game {number}: you are {you}; the agent is {it} and moves first.")
        if number == 1:
            self.view.say("Type your move as the board labels it, or help for the commands.")

    def _human_turn(self, match: Match, seat: int) -> None:
        """Reads lines until a move is played or the position changes (undo)."""
        t0 = time.monotonic()
        while True:
            line = self.reader.read(f"your move ({self.view.mark(seat)}): ")
            if self.saves.command(line, self.log.record()):
                continue
            command = self._commands.get(line.strip().lower())
            if command is not None:
                if command(match, seat):
                    return
                continue
            try:
                action = self.view.text.parse(line, match.legal())
            except MoveError as e:
                self.view.error(str(e))
                self.view.legal_moves(match.legal())
                continue
            match.play(action)
            self.log.add(action, time.monotonic() - t0)
            if match.over:
                self.view.board(match.board(), match.last_move())
            return

    def _agent_turn(self, match: Match) -> bool:
        """The agent's move, played; True if it resigned instead."""
        seat = match.to_move
        observation = match.observation()
        t0 = time.perf_counter()
        action, value = self.agent.move(observation, self.search)  # the value: in the record
        seconds = time.perf_counter() - t0
        took = f" (searched {seconds:.2f} s)" if self._searching else ""
        values = None
        if self.hints:
            values = np.asarray(self.agent.q_values(observation, self.search), np.float64)
        points = board_points(self.game)
        if resigns(self.resign_below, value, len(match.moves), points, bool(self._setup)):
            self.view.say(f"agent ({self.view.mark(seat)}) resigns")
            return True
        match.play(action)
        self.log.add(action, seconds, value)
        move = self.view.text.describe(action)
        self.view.say(f"agent ({self.view.mark(seat)}) plays {move}{took}")
        if values is not None:
            self.view.values(f"agent's {self._values_of} of its moves", values)
        self.view.board(match.board(), action)
        return False

    def _finish(self, match: Match, human_seat: int, resigned: bool = False) -> int:
        """Ends a game (`resigned`: the agent resigned it); the person's result."""
        first = 1 if human_seat == 0 else -1  # the result for seat 0 when the person wins
        outcome = first if resigned else match.result()
        result = outcome * first
        key, message, style = {
            1: ("won", "You win!", "bold green"),
            0: ("drawn", "Draw.", "bold"),
            -1: ("lost", "The agent wins.", "bold red"),
        }[result]
        self.score[key] += 1
        s = self.score
        self.view.say(message, style)
        self.view.say(f"score: you won {s['won']}, drew {s['drawn']}, lost {s['lost']}")
        self.last_record = self.log.record(outcome, resigned=resigned)
        self.saves.keep(self._number, self.last_record)
        return result

    def _again(self) -> bool:
        while True:
            line = self.reader.read("play again? [y/n] ")  # save [FILE] saves the game too
            if self.saves.command(line, self.last_record):
                continue
            answer = line.strip().lower()
            if answer in {"y", "yes"}:
                return True
            if answer in {"n", "no", "q", "quit", "exit"}:
                return False
            self.view.error("answer y or n")

    # Commands return True when the position changed and the turn must be re-read.
    def _help(self, match: Match, seat: int) -> bool:
        self.view.say(self.view.text.move_help)
        self.view.say(_COMMANDS_HELP)
        return False

    def _moves(self, match: Match, seat: int) -> bool:
        self.view.legal_moves(match.legal())
        return False

    def _hint(self, match: Match, seat: int) -> bool:
        values = self.agent.q_values(match.observation(), self.search)
        self.view.values(f"the agent's {self._values_of} of your moves", values)
        return False

    def _undo(self, match: Match, seat: int) -> bool:
        mine = [i for i in range(self._setup, len(match.moves)) if match.mover_of(i) == seat]
        if not mine:
            self.view.error("nothing to undo: you have not moved yet in this game")
            return False
        # It is the person's turn, so their last move was followed by the agent's reply.
        count = len(match.moves) - mine[-1]
        match.take_back(count)
        self.log.take_back(count)
        self.view.say("took back your last move and the agent's reply")
        self.view.board(match.board(), match.last_move())
        return True

    def _quit(self, match: Match, seat: int) -> bool:
        raise _Quit
