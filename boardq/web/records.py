"""Game records on the web board: a session's game as a file, and a record opened to step through.

Two pure functions of `boardq.web.app`'s routes, no HTTP here:

- `saved_game`: the game of a session as the terminal's `save` writes it, SGF (Go,
  Othello, Gomoku, Hex) or a JSON line (every game), named as `save` names it
  (`boardq-GAME-YYYYmmdd-HHMMSS.sgf`);
- `opened_record`: the bytes of a record file a person opened on the page (boardq's
  own, or an SGF file of another program such as GNU Go), read and replayed in
  boardq's rules: the file's games, and of the one asked for every position as the
  page draws it (`BoardLayout`), with each move's time and the agent's value where
  the record holds them. A file that cannot be read is a `RequestError` (422) with
  the reader's one line; a game of the file that cannot be replayed (an illegal move,
  another board size) is that line in the answer's `error`, the file's list kept.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from boardq.game import Game
from boardq.play.layout import BoardLayout
from boardq.play.replay import seat_names
from boardq.records import (
    GameRecord,
    RecordError,
    Replayed,
    default_file_name,
    json_line,
    parse_records,
    playable_game,
    replay_named,
    sgf_game,
    to_sgf,
)
from boardq.web.request import RequestError

__all__ = ["FORMATS", "MAX_RECORD_BYTES", "SavedGame", "opened_record", "saved_game"]

MAX_RECORD_BYTES = 1024 * 1024
"""The largest record file the page may open (an evaluation's 80 Go games take about 0.3 MB)."""

FORMATS = {"sgf": "application/x-go-sgf", "jsonl": "application/jsonl"}
"""The formats a game is saved in, and their content types."""

_NAME = re.compile(r"[^A-Za-z0-9_.=+-]+")


@dataclass(frozen=True)
class SavedGame:
    """A game as a file to download.

    Attributes:
        data: the file's bytes.
        content_type: its HTTP content type.
        file_name: the name it is saved as.
    """

    data: bytes
    content_type: str
    file_name: str


def saved_game(record: GameRecord, game: Game, fmt: str) -> SavedGame:
    """The record as a file: `fmt` "sgf" (the SGF games only) or "jsonl".

    Raises:
        RequestError: 400 an unknown format, or SGF for a game without it; 409 no move
            has been played yet.
    """
    if fmt not in FORMATS:
        raise RequestError(400, f"format must be sgf or jsonl, not {fmt[:20]!r}")
    if fmt == "sgf" and sgf_game(game.name) is None:
        raise RequestError(
            400, f"{game.title} has no SGF; its games are saved as JSON lines (format=jsonl)"
        )
    if not record.moves:
        raise RequestError(409, "nothing to save yet: no move has been played")
    sgf = fmt == "sgf"
    data = to_sgf(record) if sgf else json_line(record).encode("utf-8")
    name = default_file_name(game, sgf)
    return SavedGame(data, f"{FORMATS[fmt]}; charset=utf-8", _NAME.sub("_", name))


def opened_record(
    data: bytes, name: str, number: int, layout_of: Callable[[Game], BoardLayout]
) -> dict[str, Any]:
    """A record file's games, and the `number`-th (from 1) replayed for the page.

    Args:
        data: the file's bytes.
        name: its name, for messages ("game.sgf"; any folders are dropped).
        number: which of its games to open, from 1.
        layout_of: the board layout of a game.

    Returns:
        `file`, `games` (each game's `game`, `title`, `players`, `result`, `moves` and
        `started`), `problems` (the lines of a JSON lines file that could not be read),
        `number`, and `record` (see `_record_json`) or, where that game cannot be
        replayed, `error`.

    Raises:
        RequestError: 422 the file holds no game boardq can read (not SGF or JSON, cut
            short, another game...); 400 there is no such game in it.
    """
    name = _NAME.sub("_", name.replace("\\", "/").rsplit("/", 1)[-1])[:100] or "record"
    try:
        found = parse_records(data, name)
    except RecordError as e:
        raise RequestError(422, str(e)) from None
    records = found.records
    if not 1 <= number <= len(records):
        raise RequestError(400, f"{name} holds {len(records)} games: game must be 1-{len(records)}")
    out: dict[str, Any] = {
        "file": name,
        "games": [_summary(record) for record in records],
        "problems": found.problems,
        "number": number,
        "record": None,
        "error": None,
    }
    record = records[number - 1]
    try:
        game, replayed = replay_named(record)
    except RecordError as e:
        out["error"] = str(e)
        return out
    out["record"] = _record_json(record, replayed, game, layout_of(game))
    return out


def _summary(record: GameRecord) -> dict[str, Any]:
    game = playable_game(record.game)
    return {
        "game": record.game,
        "title": game.title if game is not None else record.game,
        "players": [player.name for player in record.players],
        "result": record.result_text or "unfinished",
        "moves": len(record.moves),
        "started": record.started,
    }


def _record_json(
    record: GameRecord, replayed: Replayed, game: Game, layout: BoardLayout
) -> dict[str, Any]:
    """One game to step through: its players, moves and every position as the page draws it."""
    text = game.text
    positions = []
    for k, board in enumerate(replayed.boards):
        last = record.moves[k - 1].action if k else None
        cell = layout.last_cell(board, last)
        positions.append(
            {"board": layout.pieces(board), "last": None if cell is None else list(cell)}
        )
    end = replayed.result_text
    if not end and record.result_text:  # a resignation: the moves end before the game does
        end = f"{record.result_text} (resigned)"
    return {
        "game": {"name": game.name, "title": game.title},
        "marks": [text.mark(0), text.mark(1)],
        "seats": list(seat_names(record)),
        "layout": layout.to_json(),
        "players": [player.to_json() for player in record.players],
        "event": record.event,
        "started": record.started,
        "end": end,
        "claimed_result": record.claimed_result,
        "engine_count": record.engine_count,
        "komi": record.settings.get("komi"),
        "moves": [
            {
                "action": move.action,
                "label": text.label(move.action),
                "describe": text.describe(move.action),
                "seconds": move.seconds,
                "value": move.value,
            }
            for move in record.moves
        ],
        "positions": positions,
        "win": [list(cell) for cell in layout.winning(replayed.boards[-1])],
    }
