"""What boardq writes in an SGF file beyond its properties, and reads back.

The root's comment holds what SGF has no property for (the start time, each player's
details, the result by boardq's rules and how it was counted, an engine's own count, a
result the source file claimed); each move's comment holds the time it took and the
agent's value of it. `root_comment` and `move_comment` write them, `parse_root_comment`
and `parse_move_comment` read them back from files whose AP is `APPLICATION`. Also the
names both directions share: the colours of the move properties (`COLOURS`) and of the
seats (`SEAT_NAMES`).
"""

from __future__ import annotations

import json
import re
from typing import Any

from boardq import bounded
from boardq.bounded import NumberTextError
from boardq.records.dialects import SgfGame
from boardq.records.record import GameRecord, Move

__all__ = [
    "APPLICATION",
    "COLOURS",
    "SEAT_NAMES",
    "move_comment",
    "parse_move_comment",
    "parse_root_comment",
    "root_comment",
]

APPLICATION = "boardq"
"""The AP name of the files boardq writes (their comments are read back)."""
COLOURS = ("b", "w")
"""The move properties' colours, first player first (B, W)."""
SEAT_NAMES = ("Black", "White")
"""The seats' names, first player first."""


def move_comment(move: Move) -> str:
    """A move's comment: the time it took and its value, where the record has them."""
    parts = []
    if move.seconds is not None:
        parts.append(f"time {move.seconds:g} s")
    if move.value is not None:
        parts.append(f"value {move.value:+g}")
    return ", ".join(parts)


def root_comment(record: GameRecord, dialect: SgfGame) -> str:
    """The root's comment: what the record holds that SGF has no property for."""
    lines = [f"Played by {APPLICATION}" + (f" ({record.event})" if record.event else "") + "."]
    if record.started:
        lines.append(f"Started {record.started}.")
    for name, player in zip(SEAT_NAMES, record.players, strict=True):
        if player.details:
            lines.append(f"{name} details: {json.dumps(dict(player.details), sort_keys=True)}")
    if record.result_text:
        how = {
            1: "area count with every stone on the board alive, komi for white",
            2: "disc count",
        }.get(dialect.number)
        lines.append(
            f"Result by boardq's rules: {record.result_text}" + (f" ({how})." if how else ".")
        )
    if record.engine_count is not None:
        lines.append(f"Engine's count: {record.engine_count}")
    if record.claimed_result is not None:
        lines.append(f"Result the source file claimed: {record.claimed_result}")
    return "\n".join(lines)


_TIME = re.compile(r"time ([0-9.]+(?:e-?[0-9]+)?) s")
_VALUE = re.compile(r"value ([+-]?[0-9.]+(?:e-?[0-9]+)?)")


def parse_move_comment(note: str) -> tuple[float | None, float | None]:
    """(seconds, value) from a move's comment as boardq writes it."""
    time, value = _TIME.search(note), _VALUE.search(note)
    seconds = float(bounded.check_number_text(time[1], "a move's time")) if time else None
    return seconds, (
        float(bounded.check_number_text(value[1], "a move's value")) if value else None
    )


def parse_root_comment(text: str) -> dict[str, Any]:
    """What boardq's root comment holds beyond SGF's properties."""
    info: dict[str, Any] = {}
    for line in text.splitlines():
        if match := re.fullmatch(r"Started (\S+)\.", line):
            info["started"] = match[1]
        elif match := re.fullmatch(r"(Black|White) details: (\{.*\})", line):
            try:
                details = bounded.loads(match[2])
            except (json.JSONDecodeError, NumberTextError):
                continue  # another program's words: not boardq's details
            if isinstance(details, dict):
                info[match[1]] = details
        elif line.startswith("Engine's count: "):
            info["engine"] = line.removeprefix("Engine's count: ")
        elif line.startswith("Result the source file claimed: "):
            info["claimed"] = line.removeprefix("Result the source file claimed: ")
    return info
