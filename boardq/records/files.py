"""Where records go, and reading them back: a folder of games, one file, any record file.

A record folder (`evaluate --record DIR`, `league --record DIR`, a run's ladder) holds
`games.jsonl`, every game a line, and for the games with an SGF game number one SGF
file each, `game-0001.sgf`, numbered as the lines are: game-0007.sgf is the seventh
line. A folder that already holds games is added to. `save_record` writes one game to
a file named by the person (`.sgf`: SGF; else a JSON line added to the file), and
`read_records` reads any of them back: SGF or JSON lines, told apart by their content.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path

from boardq import bounded
from boardq.bounded import NumberTextError
from boardq.records.dialects import sgf_game
from boardq.records.record import GameRecord, RecordError
from boardq.records.sgf_read import from_sgf
from boardq.records.sgf_write import to_sgf
from boardq.rundir import atomic_write_bytes

__all__ = [
    "LINES_FILE",
    "ReadResult",
    "RecordFolder",
    "default_file_name",
    "json_line",
    "parse_records",
    "read_records",
    "save_record",
]

LINES_FILE = "games.jsonl"
"""The JSON lines file of a record folder."""
_MAX_BYTES = 64 * 1024 * 1024
"""Files larger than this are refused rather than read into memory."""


def json_line(record: GameRecord) -> str:
    """The record as one line of a JSON lines file (its newline included)."""
    return json.dumps(record.to_json(), ensure_ascii=False, separators=(",", ":")) + "\n"


def default_file_name(game, sgf: bool | None = None) -> str:
    """A new file name for one saved game: `boardq-GAME-YYYYmmdd-HHMMSS.sgf` (or `.jsonl`).

    Args:
        game: the game (`boardq.game.Game`).
        sgf: SGF or JSON lines; None: SGF where the game has it.
    """
    if sgf is None:
        sgf = sgf_game(game.name) is not None
    return f"boardq-{game.dir_name}-{time.strftime('%Y%m%d-%H%M%S')}{'.sgf' if sgf else '.jsonl'}"


def _append(path: Path, text: str) -> None:
    with open(path, "a", encoding="utf-8") as f:
        f.write(text)
        f.flush()


class RecordFolder:
    """A folder that keeps every game given to it (`add`), as it ends.

    Args:
        path: the folder; made if missing.

    Raises:
        RecordError: it cannot be made or written to.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        try:
            self.path.mkdir(parents=True, exist_ok=True)
            lines = self.path / LINES_FILE
            with open(lines, "a", encoding="utf-8"):
                pass  # writable, or the error is told before any game is played
            with open(lines, encoding="utf-8", errors="replace") as f:
                self.count = sum(1 for line in f if line.strip())
        except OSError as e:
            raise RecordError(f"cannot keep games in {self.path}: {e.strerror or e}") from None

    def add(self, record: GameRecord) -> Path | None:
        """Keeps one game: its line in games.jsonl and its SGF file; the SGF file's path."""
        self.count += 1
        sgf_path = None
        try:
            if sgf_game(record.game) is not None:
                sgf_path = self.path / f"game-{self.count:04d}.sgf"
                atomic_write_bytes(sgf_path, to_sgf(record))
            _append(self.path / LINES_FILE, json_line(record))
        except OSError as e:
            message = f"cannot keep game {self.count} in {self.path}: {e.strerror or e}"
            raise RecordError(message) from None
        return sgf_path


def save_record(record: GameRecord, path: str | Path) -> Path:
    """Writes one game to `path`: SGF if it ends in .sgf (a new file), else a JSON line added.

    Raises:
        RecordError: the game has no SGF, or the file cannot be written.
    """
    path = Path(path)
    try:
        if path.suffix.lower() == ".sgf":
            atomic_write_bytes(path, to_sgf(record))
        else:
            _append(path, json_line(record))
    except OSError as e:
        raise RecordError(f"cannot write {path}: {e.strerror or e}") from None
    return path


@dataclass(frozen=True)
class ReadResult:
    """What a file held: the records that could be read and a line for each that could not."""

    records: list[GameRecord]
    problems: list[str]


def read_records(path: str | Path) -> ReadResult:
    """Every game in a record file: SGF (each game of it) or JSON lines (each line).

    A JSON lines file with a bad line (cut short, another program's, a record of a
    game boardq does not know) gives the others and one line about it in `problems`.
    Moves are checked when a record is replayed (`replay_record`), SGF's as they are
    read, since their results are counted by replaying them.

    Raises:
        RecordError: the file cannot be read, is empty, or holds no game at all.
    """
    path = Path(path)
    try:
        if path.is_dir():
            raise RecordError(f"{path} is a folder; name a record file in it (say {LINES_FILE})")
        if path.stat().st_size > _MAX_BYTES:
            raise RecordError(f"{path} is larger than {_MAX_BYTES >> 20} MB: not a record file")
        data = path.read_bytes()
    except OSError as e:
        raise RecordError(f"cannot read {path}: {e.strerror or e}") from None
    return parse_records(data, path.name)


def parse_records(data: bytes, name: str) -> ReadResult:
    """Every game in the bytes of a record file (see `read_records`); `name` names it.

    Raises:
        RecordError: the bytes are empty, or hold no game at all.
    """
    text = data.lstrip(b"\xef\xbb\xbf \t\r\n")
    if not text:
        raise RecordError(f"{name} is empty")
    if text.startswith(b"("):
        return ReadResult(from_sgf(data, name), [])
    records, problems = [], []
    for number, line in enumerate(data.decode("utf-8", errors="replace").splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{name}, line {number}"
        try:
            records.append(GameRecord.from_json(bounded.loads(line), where))
        except json.JSONDecodeError as e:
            problems.append(f"{where}: not a JSON record ({e.msg}; cut short?)")
        except NumberTextError as e:
            problems.append(f"{where}: {e}")
        except RecordError as e:
            problems.append(str(e))
    if not records:
        more = f" (and {len(problems) - 1} more bad lines)" if len(problems) > 1 else ""
        raise RecordError(f"{problems[0]}{more}" if problems else f"{name} holds no game record")
    return ReadResult(records, problems)
