"""Records written as SGF (FF[4]) files, with sgfmill (`to_sgf`).

The root holds the game (GM, SZ, KM, RU), the players (PB, PW), the date (DT), the
result by boardq's rules (RE), the event (EV) and a comment with what SGF has no
property for (`boardq.records.sgf_comments`); each move is a node, with the time it
took and the agent's value of it in its comment. Go's handicap stones are written as
SGF's setup (HA, AB). The moves' notation per game is in `boardq.records.dialects`;
reading files back is `boardq.records.sgf_read`.
"""

from __future__ import annotations

from sgfmill import sgf

from boardq.records.dialects import Passes, Points, SgfGame, sgf_game
from boardq.records.record import GameRecord, RecordError
from boardq.records.sgf_comments import APPLICATION, COLOURS, move_comment, root_comment

__all__ = ["to_sgf"]


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("boardq")
    except PackageNotFoundError:
        return "unknown"


def to_sgf(record: GameRecord) -> bytes:
    """The record as an SGF file (UTF-8).

    Raises:
        RecordError: the game has no SGF game number (tic-tac-toe, Connect Four...).
    """
    dialect = sgf_game(record.game)
    if dialect is None:
        raise RecordError(f"{record.game} has no SGF game number: its records are JSON lines")
    game = sgf.Sgf_game(size=dialect.size)
    root = game.get_root()
    root.set("GM", dialect.number)
    root.set("AP", (APPLICATION, _version()))
    if dialect.komi is not None:
        root.set("KM", record.settings.get("komi", dialect.komi))
    if dialect.rules is not None:
        root.set("RU", dialect.rules)
    root.set("PB", record.players[0].name)
    root.set("PW", record.players[1].name)
    if record.started:
        root.set("DT", record.started[:10])
    if record.event:
        root.set("EV", record.event)
    if record.result_text:
        root.set("RE", record.result_text)
    root.set("C", root_comment(record, dialect))
    placed = _handicap_plies(record, dialect)
    if placed:  # black's stones as the setup they are: HA, AB; white moves first
        stones = [m.action for m in record.moves[:placed:2]]
        root.set("HA", len(stones))
        root.set_raw_list("AB", [dialect.encode(a).encode("ascii") for a in stones])
    for number, move in enumerate(record.moves):
        if number < placed:
            continue
        if move.action == dialect.pass_action and dialect.passes is Passes.OMITTED:
            continue  # the next move, the other colour's again, says it
        node = game.extend_main_sequence()
        colour = COLOURS[number % 2]
        if dialect.points is Points.LETTERS:
            cell = dialect.point(move.action)  # sgfmill counts rows from the bottom
            node.set_move(colour, None if cell is None else (dialect.size - 1 - cell[0], cell[1]))
        else:
            node.set_raw(colour.upper(), dialect.encode(move.action).encode("ascii"))
        comment = move_comment(move)
        if comment:
            node.set("C", comment)
    return game.serialise()


def _handicap_plies(record: GameRecord, dialect: SgfGame) -> int:
    """How many of the first moves are handicap stones and the passes between them.

    A record states a handicap game in `settings["handicap"]` (`GameLog`); its first
    moves are then black's stones with white passing in between, written as SGF's
    setup (HA, AB) rather than as moves. 0 for an even game.
    """
    stones = int(record.settings.get("handicap", 0) or 0)
    plies = 2 * stones - 1
    if stones < 1 or dialect.pass_action is None or len(record.moves) < plies:
        return 0
    actions = [m.action for m in record.moves[:plies]]
    if any(a == dialect.pass_action for a in actions[::2]):
        return 0
    if any(a != dialect.pass_action for a in actions[1::2]):
        return 0
    return plies
