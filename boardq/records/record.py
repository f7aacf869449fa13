"""One game as a record: who played, the moves, the result; as a JSON object and back.

A record holds what a person needs to look at a game again and what a program needs to
replay it: the game and its settings, a description of each seat, every move (its
action number, its name in the game's own notation, the time it took and, for an agent,
its value of the move), the result by boardq's rules, the start time, and room for an
engine's own count of the result. JSON lines files hold one record a line
(`to_json` / `from_json`); SGF files hold the games that have an SGF game number
(`boardq.records.sgf_write`, `boardq.records.sgf_read`).

No TensorFlow and no environment here: checking that the moves are legal is replaying
them (`boardq.records.replay`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from boardq.errors import BoardqError

__all__ = [
    "FORMAT",
    "VERSION",
    "GameRecord",
    "Move",
    "PlayerInfo",
    "RecordError",
    "now_iso",
    "result_words",
]

FORMAT = "boardq-game"
"""The `format` field of every JSON record."""
VERSION = 1
"""The version of the JSON record this module writes; it reads this one."""


class RecordError(BoardqError):
    """A record that cannot be read or replayed; the message says which and why, in one line."""


def now_iso() -> str:
    """The time now in UTC, as ISO 8601 to the second ("2026-03-01T12:00:05Z")."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass(frozen=True)
class PlayerInfo:
    """Who played a seat.

    Attributes:
        name: how the player is shown (an SGF file's PB or PW): "mcts:50", the agent's
            file, "you", or an engine's command line.
        details: what else is known, as JSON values: `kind` (agent, mcts, random,
            person, gtp...), an agent's `path`, `search_depth` and `symmetries`, an
            opponent's `spec`, an engine's `command`.
    """

    name: str
    details: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, **({"details": dict(self.details)} if self.details else {})}


UNKNOWN_PLAYER = PlayerInfo("unknown")


@dataclass(frozen=True)
class Move:
    """One move of a game.

    Attributes:
        action: the action number (the PettingZoo action).
        label: its name in the game's own notation ("E5", "pass", "4").
        seconds: the time the mover took to choose it; None where unknown.
        value: the mover's value of the move (an agent's: +1 a win, -1 a loss); None
            where the mover has none or it was not recorded.
    """

    action: int
    label: str
    seconds: float | None = None
    value: float | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"action": self.action, "move": self.label}
        if self.seconds is not None:
            out["seconds"] = round(self.seconds, 4)
        if self.value is not None:
            out["value"] = round(self.value, 4)
        return out


def result_words(result: int | None) -> str:
    """The result for people: "the first player won", "a draw", "unfinished"."""
    return {None: "unfinished", 1: "the first player won", -1: "the second player won"}.get(
        result, "a draw"
    )


@dataclass(frozen=True)
class GameRecord:
    """A game boardq played or read.

    Attributes:
        game: the game's name (`boardq.catalog`).
        settings: what the game's name does not say: an SGF game's `board_size` and
            Go's `komi`, or the `rows` and `cols` of a board.
        players: the first player (who moves first: black) and the second.
        moves: every move, in order.
        result: +1 the first player won, -1 the second did, 0 a draw, by boardq's rules;
            None while the game is unfinished.
        result_text: the result as SGF writes it for SGF games ("B+3.5", "W+", "Draw")
            and in words for the others; empty while unfinished.
        started: when the game started, ISO 8601 in UTC; None where unknown.
        event: what played it ("boardq evaluate", "boardq play"...).
        engine_count: an engine's own count of the result (GNU Go's "W+88.5"), where
            one was asked; free text.
        claimed_result: the result a record made by another program states (its RE),
            where it is not boardq's count.
        source: where a record that was read came from ("games.jsonl, line 3").
    """

    game: str
    players: tuple[PlayerInfo, PlayerInfo]
    moves: tuple[Move, ...]
    result: int | None = None
    result_text: str = ""
    settings: Mapping[str, Any] = field(default_factory=dict)
    started: str | None = None
    event: str = ""
    engine_count: str | None = None
    claimed_result: str | None = None
    source: str = ""

    @property
    def actions(self) -> list[int]:
        return [m.action for m in self.moves]

    @property
    def finished(self) -> bool:
        return self.result is not None

    def with_source(self, source: str) -> GameRecord:
        return replace(self, source=source)

    def to_json(self) -> dict[str, Any]:
        """The record as a JSON object (one line of a JSON lines file)."""
        out: dict[str, Any] = {
            "format": FORMAT,
            "version": VERSION,
            "game": self.game,
            "settings": dict(self.settings),
            "players": [p.to_json() for p in self.players],
            "started": self.started,
            "event": self.event,
            "result": self.result,
            "result_text": self.result_text,
            "moves": [m.to_json() for m in self.moves],
        }
        if self.engine_count is not None:
            out["engine_count"] = self.engine_count
        if self.claimed_result is not None:
            out["claimed_result"] = self.claimed_result
        return out

    @classmethod
    def from_json(cls, data: Any, source: str = "") -> GameRecord:
        """A record from its JSON object.

        Raises:
            RecordError: not a boardq game record, or a field of the wrong kind.
        """
        where = f"{source}: " if source else ""
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise RecordError(f'{where}not a boardq game record (no "format": "{FORMAT}")')
        if data.get("version") != VERSION:
            raise RecordError(
                f"{where}a game record of version {data.get('version')!r}; "
                f"this boardq reads version {VERSION}"
            )
        try:
            return cls(
                game=_text(data["game"], "game"),
                settings=_settings(data.get("settings", {})),
                players=_players(data["players"]),
                moves=tuple(_move(m, k + 1) for k, m in enumerate(_list(data["moves"], "moves"))),
                result=_result(data.get("result")),
                result_text=_text(data.get("result_text", ""), "result_text"),
                started=_optional_text(data.get("started"), "started"),
                event=_text(data.get("event", ""), "event"),
                engine_count=_optional_text(data.get("engine_count"), "engine_count"),
                claimed_result=_optional_text(data.get("claimed_result"), "claimed_result"),
                source=source,
            )
        except KeyError as e:
            raise RecordError(f"{where}the record has no {e.args[0]!r}") from None
        except (TypeError, ValueError) as e:
            raise RecordError(f"{where}{e}") from None


def _text(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{what} must be text, got {value!r}")
    return value


def _optional_text(value: Any, what: str) -> str | None:
    return None if value is None else _text(value, what)


def _list(value: Any, what: str) -> list:
    if not isinstance(value, list):
        raise ValueError(f"{what} must be a list, got {type(value).__name__}")
    return value


def _mapping(value: Any, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ValueError(f"{what} must be an object, got {type(value).__name__}")
    return value


def _settings(value: Any) -> dict[str, Any]:
    settings = _mapping(value, "settings")
    for key, (check, kind) in _NUMBER_SETTINGS.items():
        if key in settings and not check(settings[key]):
            raise ValueError(f"settings: {key} must be {kind}, got {settings[key]!r}")
    return settings


def _is_number(value: Any) -> bool:
    return not isinstance(value, bool) and isinstance(value, int | float) and math.isfinite(value)


def _is_count(value: Any) -> bool:
    return not isinstance(value, bool) and isinstance(value, int) and value >= 0


_NUMBER_SETTINGS = {
    "board_size": (_is_count, "a whole number >= 0"),
    "rows": (_is_count, "a whole number >= 0"),
    "cols": (_is_count, "a whole number >= 0"),
    "handicap": (_is_count, "a whole number >= 0"),
    "komi": (_is_number, "a number"),
}
"""The settings read as numbers (shown, compared, written to SGF), and what each must be."""


def _players(value: Any) -> tuple[PlayerInfo, PlayerInfo]:
    players = _list(value, "players")
    if len(players) != 2:
        raise ValueError(f"players must name 2 seats, got {len(players)}")
    out = []
    for player in players:
        player = _mapping(player, "a player")
        name = _text(player.get("name"), "a player's name")
        out.append(PlayerInfo(name, _mapping(player.get("details", {}), "a player's details")))
    return out[0], out[1]


def _number(value: Any, what: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError(f"{what} must be a number, got {value!r}")
    return float(value)


def _move(value: Any, number: int) -> Move:
    move = _mapping(value, f"move {number}")
    action = move.get("action")
    if isinstance(action, bool) or not isinstance(action, int) or action < 0:
        raise ValueError(f"move {number}: the action must be a whole number >= 0, got {action!r}")
    return Move(
        action=action,
        label=_text(move.get("move", ""), f"move {number}'s name"),
        seconds=_number(move.get("seconds"), f"move {number}'s seconds"),
        value=_number(move.get("value"), f"move {number}'s value"),
    )


def _result(value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or value not in (-1, 0, 1):
        raise ValueError(f"result must be 1, 0, -1 or null, got {value!r}")
    return int(value)
