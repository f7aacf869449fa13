"""Where a session's games are saved: `save [FILE]` at a prompt, and `--record FILE`.

`GameSaver` writes a `boardq.records.GameRecord` to a file (`save_record`: SGF where the
game has it and the name ends .sgf, else a line of JSON added to the file). A failure
to write is one line on the view and the session goes on: no game is lost to a typo in
a file name, and the person can save again elsewhere.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from boardq.game import Game
from boardq.records import GameRecord, RecordError, default_file_name, save_record

if TYPE_CHECKING:
    from boardq.play.terminal import View

__all__ = ["GameSaver"]


class GameSaver:
    """Saves a session's games: each game as it ends to `record_to`, and on request.

    Args:
      game: the game.
      view: where it says what was saved, or why not.
      record_to: the file every game is saved to as it ends (None: none); the games
        after the first of an SGF file go to NAME-2.sgf, NAME-3.sgf..., JSON lines all
        into the one file.
    """

    def __init__(self, game: Game, view: View, record_to: str | Path | None = None) -> None:
        self.game = game
        self.view = view
        self.record_to = None if record_to is None else Path(record_to)

    def keep(self, number: int, record: GameRecord) -> None:
        """Saves game `number` (1 first) to `record_to`, if the session was given one."""
        if self.record_to is not None:
            self.save(self._path(number), record)

    def command(self, line: str, record: GameRecord | None) -> bool:
        """Carries out `save [FILE]` (True), or says it is not one (False)."""
        word, _, rest = line.strip().partition(" ")
        if word.lower() != "save":
            return False
        if record is None or not record.moves:
            self.view.error("nothing to save yet: no move has been played")
            return True
        path = rest.strip() or default_file_name(self.game)  # a new file here
        self.save(Path(path), record)
        return True

    def save(self, path: Path, record: GameRecord) -> None:
        """Writes `record` to `path`; a failure is one line, and the session goes on."""
        try:
            save_record(record, path)
        except RecordError as e:
            self.view.error(f"not saved: {e}")
            return
        what = "game" if record.finished else "game so far"
        self.view.say(f"{what} saved to {path}", "green")

    def _path(self, number: int) -> Path:
        """Where `record_to` keeps game `number`: SGF files one a game, JSON lines all in one."""
        path = self.record_to
        if number == 1 or path.suffix.lower() != ".sgf":
            return path
        return path.with_name(f"{path.stem}-{number}{path.suffix}")
