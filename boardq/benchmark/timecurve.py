r"""Strength against thinking time: an agent's score at several times a move, per search.

For one game, agent and opponent, `measure` plays `games_per_seat` games from each seat
for every (search, time a move) cell: the tree search and the timed alpha-beta
(iterative deepening), each a `SearchSpec` of SEC seconds a move, the same seeds and
openings for every cell. Each finished cell is one JSON line in a file,
so a long measurement can be stopped and carried on: the cells a file holds are not
played again. A cell that an engine or Ctrl-C stops is written as far as it went (with
`"stopped"`; the table marks it) and played again, whole, the next time. `table` and
`plot` turn the lines into docs/results/strength.md's tables and plots.

    python3 scripts/strength_time.py connect_four --agent bundled:connect_four \
        --opponent mcts:10000 --times 0.1,0.3,1,3 --games 10 \
        --out docs/results/strength-time/connect_four.jsonl

Two processes, one per search (`--search tree`, `--search alpha-beta`), run the two
columns side by side on a two-core machine, so both see the same load.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from boardq.search.spec import SearchKind, SearchSpec

__all__ = ["SEARCHES", "Cell", "load_rows", "measure", "plot", "table"]

SEARCHES = ("tree", "alpha-beta")
"""The searches compared: the tree search and the timed alpha-beta."""

SEATS = ("first", "second")


@dataclass(frozen=True)
class Cell:
    """One measurement: a search at a time a move against an opponent."""

    search: str
    move_time: float
    opponent: str

    def key(self) -> tuple[str, float, str]:
        return (self.search, round(self.move_time, 6), self.opponent)


def _player(agent, search: str, move_time: float):
    if search not in SEARCHES:
        raise ValueError(f"search must be one of {', '.join(SEARCHES)}, got {search!r}")
    spec = SearchSpec(SearchKind(search), move_time=move_time)
    player = agent.player(spec)
    if hasattr(player, "forget"):
        player.forget()  # each cell starts from a fresh tree
    return player


def load_rows(path: str | Path) -> list[dict]:
    """The cells measured so far in `path` (JSON lines); none if it does not exist.

    Raises:
        ValueError: a line is not a JSON object (the line's number is named).
    """
    path = Path(path)
    if not path.exists():
        return []
    rows = []
    for n, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as e:
            raise ValueError(f"{path}:{n}: not JSON ({e.msg})") from None
        if not isinstance(row, dict):
            raise ValueError(f"{path}:{n}: not a JSON object")
        rows.append(row)
    return rows


def _row_key(row: dict) -> tuple[str, float, str]:
    return Cell(row["search"], float(row["move_time"]), row["opponent"]).key()


def measure(
    game,
    factory,
    cells: Iterable[Cell],
    games_per_seat: int,
    out: str | Path,
    seed: int = 0,
    opening_plies: int | None = None,
    log: Callable[[str], None] = print,
) -> list[dict]:
    """Plays every cell not yet in `out`, appending each as a JSON line when it ends.

    Args:
        game: the game (`boardq.catalog.get_game`).
        factory: a `PlayerFactory` whose `evaluated` agent is measured; it builds the
            opponents from their specs.
        cells: the cells, played in this order.
        games_per_seat: games from each seat a cell.
        out: the JSON lines file (created, or carried on).
        seed: the games' seed (the same for every cell: the same openings and engine
            seeds, so cells differ by the search and its time only).
        opening_plies: random first moves a game; None: as `boardq evaluate` chooses
            for the opponent (4 against an engine that takes no seed, else 0).
        log: told of each cell as it ends.

    Returns:
        The rows of `out` after the measurement, old and new.
    """
    from boardq.gtp.player import opening_plies as default_plies
    from boardq.players.evaluation import Openings
    from boardq.players.scored_match import ScoredMatch, stop_reason
    from boardq.players.specs import parse_spec

    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    done = {_row_key(r) for r in load_rows(out) if "stopped" not in r}
    for cell in cells:
        if cell.key() in done:
            continue
        opponent = factory.make(parse_spec(cell.opponent), seed)
        plies = default_plies(opponent) if opening_plies is None else opening_plies
        player = _player(factory.evaluated, cell.search, cell.move_time)
        openings = Openings(plies, game.setup.pass_action)
        match = ScoredMatch(game, player, opponent, games_per_seat, seed, openings=openings)
        load_before, start = os.getloadavg()[0], time.perf_counter()
        try:
            stop = match.play()
        finally:
            factory.close()  # the cell's engine, if the opponent is one, ends with it
        r = match.metrics()
        if r:  # a stopped cell keeps its games in the file, and is played again next time
            row = {
                "game": game.name,
                "agent": str(factory.evaluated.path),
                "symmetries": factory.evaluated.symmetries,
                "search": cell.search,
                "move_time": cell.move_time,
                "opponent": cell.opponent,
                "games_per_seat": games_per_seat,
                "opening_plies": plies,
                "seed": seed,
                "seconds": round(time.perf_counter() - start, 1),
                "load_average": [round(load_before, 2), round(os.getloadavg()[0], 2)],
                **{k: round(v, 4) for k, v in r.items()},
            }
            if stop is not None:
                row["stopped"] = stop_reason(stop)
            with out.open("a") as f:
                f.write(json.dumps(row) + "\n")
        if stop is not None:
            raise stop
        done.add(cell.key())
        log(
            f"{cell.search} {cell.move_time:g} s vs {cell.opponent}: score {row['score']:.2f} "
            f"({row['score_low']:.2f}-{row['score_high']:.2f}), {row['seconds']:.0f} s"
        )
    return load_rows(out)


def _fmt_cell(row: dict | None) -> str:
    if row is None:
        return "-"
    games = int(row["games"])
    seats = [f"{row[f'{seat}/score']:.2f}" if f"{seat}/score" in row else "-" for seat in SEATS]
    text = (
        f"{row['score']:.2f} ({row['score_low']:.2f}-{row['score_high']:.2f}), "
        f"{seats[0]} / {seats[1]}, {games} games"
    )
    if "stopped" in row:
        text += " (stopped early)"
    if "lead/mean" in row:
        text += f", lead {row['lead/mean']:+.1f}"
    depth = f", depth {row['depth_mean']:.1f}" if "depth_mean" in row else ""
    return f"{text}; {row['move_sec_mean']:.2f} s a move{depth}"


def table(rows: Sequence[dict]) -> list[str]:
    """A Markdown table: a line per (opponent, time a move), a column per search.

    Each cell: the score over both seats with its 95% interval, first / second seat,
    the games, Go's or Othello's mean lead where counted, and the time a move taken
    (with the depth: the tree's principal variation, the alpha-beta's finished depth).
    """
    by_key = {_row_key(r): r for r in rows}
    lines = [
        "| opponent | time a move | tree search | alpha-beta |",
        "| --- | --- | --- | --- |",
    ]
    for opponent, t in sorted({(k[2], k[1]) for k in by_key}, key=lambda x: (x[0], x[1])):
        cells = [_fmt_cell(by_key.get((s, t, opponent))) for s in SEARCHES]
        lines.append(f"| {opponent} | {t:g} s | {cells[0]} | {cells[1]} |")
    return lines


def plot(rows: Sequence[dict], path: str | Path, title: str) -> Path:
    """Score (with its 95% interval) against time a move, a line per search and opponent.

    Raises:
        ImportError: matplotlib is not installed.
    """
    from boardq.plotting import chart

    with chart(path, title, "time a move (s)", "score (95% interval)") as ax:
        for opponent in sorted({r["opponent"] for r in rows}):
            for search, style in zip(SEARCHES, ("o-", "s--"), strict=True):
                mine = sorted(
                    (r for r in rows if r["search"] == search and r["opponent"] == opponent),
                    key=lambda r: r["move_time"],
                )
                if not mine:
                    continue
                x = [r["move_time"] for r in mine]
                y = [r["score"] for r in mine]
                err = [
                    [max(0.0, r["score"] - r["score_low"]) for r in mine],
                    [max(0.0, r["score_high"] - r["score"]) for r in mine],
                ]
                ax.errorbar(x, y, yerr=err, fmt=style, capsize=3, label=f"{search} vs {opponent}")
        ax.set_xscale("log")
        times = sorted({r["move_time"] for r in rows})
        ax.set_xticks(times, [f"{t:g}" for t in times], minor=False)
        ax.set_xticks([], minor=True)
        ax.set_ylim(-0.02, 1.02)
    return Path(path)
