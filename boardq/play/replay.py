"""Stepping through a recorded game in the terminal: `boardq replay`'s loop.

`RecordReplay` shows the position before the first move, then moves on a line at a
time: forward, back, to a move by its number, to the start or the end. At each
position it says which move led there, how long the mover took and, where the record
holds it, the agent's value of that move. Lines come from a `LineReader` (a terminal,
or a pipe, echoed as `boardq play` does) and boards go to a `View`.
"""

from __future__ import annotations

from collections.abc import Sequence

from boardq.errors import EXIT_INTERRUPTED, EXIT_OK
from boardq.play.terminal import LineReader, View
from boardq.records import GameRecord, Replayed, sgf_game

__all__ = ["RecordReplay", "game_line", "seat_names"]

_HELP = """\
Commands:
  Enter, n, next    the next move
  b, back           the move before
  NUMBER            the position after that move (0: the start)
  start, end        the first or the last position
  help              show this help
  quit              leave this game (in a file of several, back to the list);
                    Ctrl-D and Ctrl-C leave too"""


def seat_names(record: GameRecord) -> tuple[str, str]:
    """What the seats are called: black and white in the SGF games, else first and second."""
    if sgf_game(record.game) is not None:
        return "black", "white"
    return "first player", "second player"


def game_line(number: int, record: GameRecord) -> str:
    """One game in a list: its number, players, result and length."""
    black, white = record.players
    result = record.result_text or "unfinished"
    when = f", {record.started}" if record.started else ""
    return f"{number:>4}. {black.name} vs {white.name}: {result}, {len(record.moves)} moves{when}"


class RecordReplay:
    """One recorded game, stepped through position by position.

    Args:
        record: the game.
        replayed: its positions and result (`boardq.records.replay_record`).
        view: where boards and messages go (the game's text board).
        reader: where the person's lines come from.
    """

    def __init__(
        self, record: GameRecord, replayed: Replayed, view: View, reader: LineReader
    ) -> None:
        self.record = record
        self.replayed = replayed
        self.view = view
        self.reader = reader
        self.position = 0

    @property
    def length(self) -> int:
        return len(self.record.moves)

    def run(self) -> int:
        """Steps through the game until the person leaves; returns the exit code."""
        self._introduce()
        self.show()
        try:
            while True:
                line = self.reader.read(f"replay [{self.position}/{self.length}]: ")
                if not self.command(line):
                    return EXIT_OK
        except EOFError:
            return EXIT_OK
        except KeyboardInterrupt:
            self.view.console.print()
            return EXIT_INTERRUPTED

    def command(self, line: str) -> bool:
        """Carries out one line; False when the person leaves."""
        word = line.strip().lower()
        moves = {
            "": self.position + 1,
            "n": self.position + 1,
            "next": self.position + 1,
            "b": self.position - 1,
            "back": self.position - 1,
            "start": 0,
            "end": self.length,
        }
        if word in ("q", "quit", "exit"):
            return False
        if word in ("help", "?", "h"):
            self.view.say(_HELP)
        elif word in moves:
            self.go(moves[word])
        elif word.isascii() and word.isdigit():
            self.go(int(word), exact=True)
        else:
            self.view.error(f"{line.strip()[:20]!r} is not a command: type help for the commands")
        return True

    def go(self, position: int, exact: bool = False) -> None:
        """Shows the position after `position` moves (kept between the start and the end)."""
        if exact and not 0 <= position <= self.length:
            self.view.error(f"there is no move {position}: this game has moves 1-{self.length}")
            return
        if not 0 <= position <= self.length:
            self.view.error("that is the end of the game" if position > 0 else "that is the start")
            return
        self.position = position
        self.show()

    def _introduce(self) -> None:
        record, view = self.record, self.view
        names = seat_names(record)
        view.say(
            f"{record.game}: {len(record.moves)} moves"
            + (f", {record.event}" if record.event else ""),
            "bold",
        )
        for seat, player in enumerate(record.players):
            view.say(f"  {view.mark(seat)} {names[seat]}: {player.name}")
        if record.started:
            view.say(f"  started {record.started}")
        for extra, label in (
            (record.claimed_result, "the file's own result"),
            (record.engine_count, "the engine's count"),
        ):
            if extra:
                view.say(f"  {label}: {extra}")
        if record.settings.get("handicap"):
            view.say(
                f"  handicap: {record.settings['handicap']} stones, black's first moves "
                "with white passing between them"
            )
        if record.settings.get("komi") is not None:
            view.say(f"  komi: {record.settings['komi']:g}, counted with it")
        if any(move.value is not None for move in record.moves):
            view.say("  value: the agent's value of its move, +1 a win, -1 a loss")

    def show(self) -> None:
        """Draws the current position and says what led there."""
        k, record, view = self.position, self.record, self.view
        last = record.moves[k - 1].action if k else None
        view.board(self.replayed.boards[k], last)
        if k == 0:
            view.say("the start: Enter (or n) plays the moves one by one, help lists the rest")
        else:
            view.say(self._describe(k))
        if k == self.length:
            text = self.replayed.result_text
            if not text and record.result_text:  # a resignation: the moves end before the game
                text = f"{record.result_text} (resigned)"
            view.say(f"the end: {text}" if text else "the record ends before the game does", "bold")

    def _describe(self, k: int) -> str:
        move = self.record.moves[k - 1]
        seat = (k - 1) % 2
        who = f"{self.view.mark(seat)} {seat_names(self.record)[seat]}"
        line = f"move {k}: {who} plays {self.view.text.describe(move.action)}"
        notes = []
        if move.seconds is not None:
            notes.append(f"{move.seconds:.2f} s")
        if move.value is not None:
            notes.append(f"value {move.value:+.2f}")
        return line + (f" ({'; '.join(notes)})" if notes else "")


def choose(records: Sequence[GameRecord], view: View, reader: LineReader) -> int | None:
    """Asks which game of a file to open; its index, or None when the person leaves."""
    for number, record in enumerate(records, start=1):
        view.say(game_line(number, record))
    while True:
        answer = reader.read(f"which game? (1-{len(records)}, q to leave): ").strip().lower()
        if answer in ("q", "quit", "exit"):
            return None
        if answer.isascii() and answer.isdigit() and 1 <= int(answer) <= len(records):
            return int(answer) - 1
        view.error(f"type a game's number, 1-{len(records)}, or q")
