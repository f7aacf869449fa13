"""Replaying a record's moves in the game's own environment: the check and the positions.

A record is only as good as its moves: `replay` plays them, one by one, in a fresh
environment of the game (PettingZoo's rules, as every game boardq plays), and refuses
the first move that is not legal there or that comes after the game has ended, naming
it. What it gives back, the position after every move and the result by boardq's
rules, is what `boardq replay` steps through and what a record's result is checked
against.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from boardq.catalog import find_game
from boardq.errors import BoardqError
from boardq.records.dialects import is_resignation, result_text, settings_of
from boardq.records.record import GameRecord, RecordError, result_words

__all__ = [
    "Replayed",
    "check_settings",
    "playable_game",
    "replay",
    "replay_named",
    "replay_record",
    "with_komi",
]


@dataclass(frozen=True)
class Replayed:
    """A game replayed.

    Attributes:
        boards: the position before the first move and after each move, as the game's
            text board draws it (`Game.board`): `len(actions) + 1` of them.
        result: +1 the first player won, -1 the second, 0 a draw, by boardq's rules;
            None if the moves end before the game does.
        result_text: the result as a record states it (`dialects.result_text`).
    """

    boards: tuple[Any, ...]
    result: int | None
    result_text: str


def _label(game, action: int) -> str:
    try:
        return game.text.label(action)
    except (IndexError, KeyError, ValueError):
        return f"action {action}"


def replay(game, actions: Sequence[int], keep_boards: bool = True) -> Replayed:
    """Plays `actions` from the start in a fresh environment of `game`.

    Args:
        game: the game (`boardq.game.Game`).
        actions: the moves, as action numbers.
        keep_boards: keep every position; False keeps only the first and the last.

    Raises:
        RecordError: a move that is not an action of the game, not legal where it is
            played, or played after the game ended (the message names its number).
    """
    env = game.make_env()
    try:
        env.reset()
        first, second = env.possible_agents
        boards = [game.board(env)]
        for number, action in enumerate(actions, start=1):
            if any(env.terminations.values()) or any(env.truncations.values()):
                raise RecordError(
                    f"move {number} ({_label(game, action)}) comes after the game ended"
                )
            if not 0 <= int(action) < game.num_actions:
                raise RecordError(f"move {number}: {action} is not an action of {game.title}")
            mask = np.asarray(env.observe(env.agent_selection)["action_mask"], bool)
            if not mask[action]:
                raise RecordError(f"move {number} ({_label(game, action)}) is not legal there")
            env.step(int(action))
            if keep_boards or number == len(actions):
                boards.append(game.board(env))
        result = None
        if any(env.terminations.values()) or any(env.truncations.values()):
            result = int(np.sign(env.rewards[first] - env.rewards[second]))
        text = result_text(game.name, result, boards[-1], game.setup.komi)
        return Replayed(tuple(boards), result, text)
    finally:
        env.close()


def check_settings(record: GameRecord, game) -> None:
    """Refuses a record whose settings (board size, komi) are not `game`'s.

    (`with_komi` sets a game up with a record's komi first.)

    Raises:
        RecordError: the settings differ (the message says how).
    """
    wanted: Mapping[str, Any] = settings_of(game)
    for key, value in record.settings.items():
        if key in wanted and wanted[key] != value:
            raise RecordError(
                f"{record.source + ': ' if record.source else ''}a game with {key} {value}; "
                f"boardq's {game.title} has {key} {wanted[key]}"
            )


def with_komi(game, komi: float | None, where: str | None):
    """`game` set up with a record's komi (Go); itself where either has none.

    Raises:
        RecordError: a komi the game cannot be set up with (the message says why).
    """
    if komi is None or game.setup.komi is None:
        return game
    try:
        return game.with_komi(komi)
    except ValueError as e:
        raise RecordError(f"{where + ': ' if where else ''}{e}") from None


def replay_record(record: GameRecord, game, keep_boards: bool = True) -> Replayed:
    """Replays a record and checks it: its settings, its moves' names and its result.

    Raises:
        RecordError: another board size or komi, a move that is not legal or whose
            name is not its action's, or a result the moves do not give (a game that
            ends by resignation ends before its moves give one).
    """
    where = f"{record.source}: " if record.source else ""
    check_settings(record, game)
    for number, move in enumerate(record.moves, start=1):
        if move.label and move.label.lower() != _label(game, move.action).lower():
            raise RecordError(
                f"{where}move {number} is named {move.label!r} but its action "
                f"{move.action} is {_label(game, move.action)!r} in {game.title}"
            )
    try:
        replayed = replay(game, record.actions, keep_boards)
    except RecordError as e:
        raise RecordError(f"{where}{e}") from None
    resigned = replayed.result is None and is_resignation(record.result_text)
    if record.finished and replayed.result != record.result and not resigned:
        raise RecordError(
            f"{where}the record says {result_words(record.result)}, "
            f"but its moves give {result_words(replayed.result)}"
        )
    return replayed


def playable_game(name: str):
    """The game called `name`, or None where boardq cannot play it.

    None for a name no catalog has, and for a game built from its name that boardq
    cannot train.
    """
    try:
        return find_game(name)
    except BoardqError:
        return None


def replay_named(record: GameRecord, keep_boards: bool = True) -> tuple[Any, Replayed]:
    """The game a record names, and the record replayed in it (`replay_record`).

    Raises:
        RecordError: boardq does not play the game the record names (no catalog has
            it, or it cannot be built), or `replay_record` refuses the record.
    """
    game = playable_game(record.game)
    if game is None:
        raise RecordError(f"{record.source}: a game of {record.game!r}, which boardq does not play")
    game = with_komi(game, record.settings.get("komi"), record.source)
    return game, replay_record(record, game, keep_boards)
