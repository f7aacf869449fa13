"""Records read from SGF (FF[4]) files, with sgfmill (`from_sgf`).

`from_sgf` reads every game of a file: boardq's own (its comments read back,
`boardq.records.sgf_comments`), or one another program wrote (GNU Go, a GTP match
runner, HexGui, Quarry) for a game boardq plays, replayed move by move in boardq's
rules. The root's numbers are bounded before they are converted; Go's handicap stones
(AB) become black's first moves, white passing between them; Othello's left-out passes
are put back. The moves' notation per game is in `boardq.records.dialects`; writing is
`boardq.records.sgf_write`.
"""

from __future__ import annotations

from typing import Any

from sgfmill import sgf, sgf_grammar

from boardq import bounded
from boardq.bounded import NumberTextError
from boardq.catalog import find_game
from boardq.records.dialects import SGF_GAMES, Passes, SgfGame, is_resignation
from boardq.records.record import GameRecord, Move, PlayerInfo, RecordError
from boardq.records.replay import replay, with_komi
from boardq.records.sgf_comments import (
    APPLICATION,
    COLOURS,
    SEAT_NAMES,
    parse_move_comment,
    parse_root_comment,
)

__all__ = ["from_sgf"]

_DEFAULT_SIZES = {1: 19, 2: 8, 4: 15, 11: 11}
"""SZ where a file leaves it out, by game number (as the SGF specification says)."""
_GAME_NAMES = {3: "chess", 5: "nine men's morris", 6: "backgammon", 7: "Chinese chess",
               8: "shogi", 9: "lines of action", 18: "Amazons", 40: "Jungle"}  # fmt: skip
_ROOT_NUMBERS = ("GM", "SZ", "KM")
"""The root's numbers that are converted: the game, the board size (sgfmill too), komi."""


def from_sgf(data: bytes, source: str = "") -> list[GameRecord]:
    """Every game of an SGF file, replayed in boardq's rules.

    Args:
        data: the file's bytes.
        source: the file's name, for messages.

    Raises:
        RecordError: not SGF, a game boardq does not play, another board size, a
            set-up position other than Go's handicap stones (black's, before the first
            move), or a move that is not legal (one line naming the file, the game and
            the move).

    Go's handicap stones (AB, with or without HA) are replayed as black's first moves
    with white passing in between, and the record states them (`settings["handicap"]`).
    """
    try:
        trees = sgf_grammar.parse_sgf_collection(data)
    except ValueError as e:
        raise RecordError(f"{source}: not a readable SGF file ({e})") from None
    records = []
    for index, tree in enumerate(trees, start=1):
        where = source if len(trees) == 1 else f"{source}, game {index}"
        try:
            _check_root_numbers(tree.sequence[0])
            records.append(_read_game(sgf.Sgf_game.from_coarse_game_tree(tree), where))
        except ValueError as e:  # sgfmill: a property it cannot interpret; or ours
            raise RecordError(f"{where}: {e}") from None
    return records


def _check_root_numbers(properties: dict[str, list[bytes]]) -> None:
    """Refuses a number of the root that boardq or sgfmill converts, if it is too long.

    Raises:
      NumberTextError: one of `_ROOT_NUMBERS` is longer than boardq reads.
    """
    for name in _ROOT_NUMBERS:
        for raw in properties.get(name, ()):
            bounded.check_number_text(raw, name)


def _number_of(root, name: str, default: int, where: str) -> int:
    if not root.has_property(name):
        return default
    raw = root.get_raw(name).split(b":")[0]  # its length checked (`_check_root_numbers`)
    try:
        return bounded.whole_number(raw, f"{name}[{raw.decode('latin-1')}]")
    except NumberTextError as e:
        raise RecordError(f"{where}: {e}") from None


def _read_game(game: sgf.Sgf_game, where: str) -> GameRecord:
    root = game.get_root()
    number = _number_of(root, "GM", 1, where)
    name = next((n for n, d in SGF_GAMES.items() if d.number == number), None)
    board_game = find_game(name) if name else None
    if board_game is None:
        what = _GAME_NAMES.get(number, "a game boardq does not play")
        plays = ", ".join(f"GM[{d.number}] {n}" for n, d in SGF_GAMES.items())
        raise RecordError(f"{where}: an SGF file of GM[{number}] ({what}); boardq reads {plays}")
    dialect = SGF_GAMES[name]
    size = _number_of(root, "SZ", _DEFAULT_SIZES.get(number, dialect.size), where)
    if size != dialect.size:
        raise RecordError(
            f"{where}: a {size}x{size} board; boardq's {board_game.title} is "
            f"{dialect.size}x{dialect.size}"
        )
    ours = root.has_property("AP") and root.get("AP")[0] == APPLICATION
    komi = None
    if dialect.komi is not None:  # the file's komi is the one its game is counted with
        komi = root.get("KM") if root.has_property("KM") else board_game.setup.komi
        board_game = with_komi(board_game, komi, where)
    colours, actions, notes, claimed, stones = _moves(game, dialect, where)
    actions, notes = _fill_passes(colours, actions, notes, dialect, where)
    try:
        replayed = replay(board_game, actions, keep_boards=False)
    except RecordError as e:
        raise RecordError(f"{where}: {e}") from None
    moves = tuple(
        Move(a, board_game.text.label(a), *(parse_move_comment(note) if ours else (None, None)))
        for a, note in zip(actions, notes, strict=True)
    )
    info = parse_root_comment(root.get("C") if ours and root.has_property("C") else "")
    settings: dict[str, Any] = {"board_size": size}
    if stones:
        settings["handicap"] = stones
    if komi is not None:
        settings["komi"] = komi
    stated = root.get("RE") if root.has_property("RE") else None
    if stated is not None and stated.strip() == replayed.result_text:
        stated = None
    claimed = claimed or info.get("claimed") or stated
    result, text = replayed.result, replayed.result_text
    if result is None and claimed is not None and is_resignation(claimed):
        result, text, claimed = (1 if claimed.strip()[0] in "Bb" else -1), claimed.strip(), None
    return GameRecord(
        game=name,
        players=(_player(root, "PB", info.get("Black")), _player(root, "PW", info.get("White"))),
        moves=moves,
        result=result,
        result_text=text,
        settings=settings,
        started=info.get("started") or (root.get("DT") if root.has_property("DT") else None),
        event=root.get("EV") if root.has_property("EV") else "",
        engine_count=info.get("engine"),
        claimed_result=claimed,
        source=where,
    )


def _moves(
    game: sgf.Sgf_game, dialect: SgfGame, where: str
) -> tuple[list[str], list[int], list[str], str | None, int]:
    """The colours, actions and comments of the main line's moves.

    Also a stated end (resign), and the number of Go's handicap stones (placed as
    black's first moves, white passing between them).
    """
    colours: list[str] = []
    actions: list[int] = []
    notes: list[str] = []
    stones = 0
    for node in game.get_main_sequence():
        setup = [p for p in ("AB", "AW", "AE") if node.has_property(p)]
        if setup and not actions and setup == ["AB"] and dialect.number == 1:
            stones = _place_handicap(node, dialect, where, colours, actions, notes)
        elif setup and not _is_start_position(node, dialect):
            raise RecordError(
                f"{where}: it starts from a set-up position ({', '.join(setup)}: handicap "
                "or placed stones), and boardq replays games from the empty start only"
            )
        played = [c for c in COLOURS if node.has_property(c.upper())]
        if len(played) > 1:
            raise RecordError(f"{where}: a node with moves of both colours")
        if not played:
            continue
        colour = played[0]
        value = node.get_raw(colour.upper()).decode("latin-1").strip()
        if value.lower() in ("resign", "forfeit"):
            return colours, actions, notes, f"{'W' if colour == 'b' else 'B'}+R", stones
        if value.lower().startswith("swap"):
            raise RecordError(f"{where}: it uses the swap rule, which boardq's Hex does not play")
        action = dialect.decode(value)
        if action is None:
            raise RecordError(
                f"{where}: move {len(actions) + 1} ({colour.upper()}[{value}]) is not a point "
                f"of a {dialect.size}x{dialect.size} board"
            )
        colours.append(colour)
        actions.append(action)
        notes.append(node.get("C") if node.has_property("C") else "")
    return colours, actions, notes, None, stones


def _place_handicap(
    node, dialect: SgfGame, where: str, colours: list[str], actions: list[int], notes: list[str]
) -> int:
    """Go's handicap stones (AB before the first move) as black's first moves.

    White passes between them; returns how many there are.
    """
    values = [v.decode("latin-1") for v in node.get_raw_list("AB")]
    points = [dialect.decode(v) for v in values]
    for value, point in zip(values, points, strict=True):
        if point is None or point == dialect.pass_action:
            raise RecordError(
                f"{where}: handicap stone AB[{value}] is not a point of a "
                f"{dialect.size}x{dialect.size} board"
            )
    if len(set(points)) != len(points):
        raise RecordError(f"{where}: a handicap stone is placed twice (AB)")
    for i, point in enumerate(points):
        if i:
            colours.append("w")
            actions.append(int(dialect.pass_action))
            notes.append("")
        colours.append("b")
        actions.append(int(point))
        notes.append("")
    return len(points)


def _is_start_position(node, dialect: SgfGame) -> bool:
    """Whether a setup is Othello's start position (some programs write it out)."""
    if dialect.number != 2 or node.has_property("AE"):
        return False
    middle = dialect.size // 2
    black = {dialect.action(middle - 1, middle), dialect.action(middle, middle - 1)}
    white = {dialect.action(middle - 1, middle - 1), dialect.action(middle, middle)}
    try:
        placed = {p: {dialect.decode(v.decode("latin-1")) for v in node.get_raw_list(p)}
                  for p in ("AB", "AW")}  # fmt: skip
    except KeyError:
        return False
    return placed == {"AB": black, "AW": white}


def _fill_passes(
    colours: list[str], actions: list[int], notes: list[str], dialect: SgfGame, where: str
) -> tuple[list[int], list[str]]:
    """Puts in the passes a file leaves out (Othello), and checks the colours alternate."""
    out_actions: list[int] = []
    out_notes: list[str] = []
    for colour, action, note in zip(colours, actions, notes, strict=True):
        expected = COLOURS[len(out_actions) % 2]
        if colour != expected:
            if dialect.passes is not Passes.OMITTED:
                raise RecordError(
                    f"{where}: move {len(out_actions) + 1} is {SEAT_NAMES['bw'.index(colour)]}'s, "
                    f"but {SEAT_NAMES['bw'.index(expected)]} is to play: boardq's games "
                    "alternate (no handicap, no free placement)"
                )
            out_actions.append(int(dialect.pass_action))  # the replay checks it was forced
            out_notes.append("")
        out_actions.append(action)
        out_notes.append(note)
    return out_actions, out_notes


def _player(root, prop: str, details: dict | None) -> PlayerInfo:
    name = root.get(prop).strip() if root.has_property(prop) else ""
    return PlayerInfo(name or "unknown", details or {})
