"""`boardq league`: a round robin between players, rated in Elo.

Players are specs as for `evaluate --opponent` (random, winblock, perfect, mcts:N,
agent:PATH, search:D:PATH, gtp:COMMAND) or bare paths of agent files and run directories. The
`random` player is always in (it anchors the ratings at 0). With `--run RUN_DIR` the
agents the run kept over time (RUN_DIR/agents/agent-<step>.npz) join, the table lists
them in training order, and a PNG of rating against training time is written. With
`--symmetric` every agent averages its values over the board's symmetries, as
`evaluate --symmetric` plays the evaluated agent. While the games play, how many of
them are done goes to stderr (`boardq.commands.progress`). With `--record DIR` every
game is kept in DIR as it ends (`boardq.records`).

A league that an engine stops (it died, or went silent past `--engine-timeout`) or
Ctrl-C stops still rates the games it played: the table (or JSON, with `"stopped"`)
comes first, a player not yet reached is "not played", then the one line on stderr.

Exit codes: 0 done; 1 a bad or missing agent file or run directory, a player the game
cannot have, a record folder that cannot be written, or a league stopped by its engine
(one line on stderr); 2 a bad command line; 130 Ctrl-C.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

from boardq.commands.args import add_engine_timeout_option, counted, number
from boardq.commands.evaluate import warn_engines
from boardq.commands.progress import GameProgress
from boardq.players.scored_match import STOPS, stop_reason
from boardq.players.specs import FORMS, Kind, PlayerSpec, parse_league_player, parse_spec

__all__ = ["add_command", "format_table", "run"]

ANCHOR = "random"
RATING_NOTE = (
    "Elo: Bradley-Terry fit over all games (draw = half a win each way, one virtual "
    "draw per pairing), random = 0; 95% bootstrap interval"
)


def add_command(sub) -> None:
    """Registers `boardq league`."""
    p = sub.add_parser(
        "league",
        help="rate players in Elo by a round robin",
        description="Plays every pair of players GAMES times from each seat and fits Elo "
        "ratings over all games (random anchored at 0), with 95% bootstrap intervals.",
        epilog=f"players: {FORMS}, or a bare agent file or run directory (search:D and "
        "tree:N need their :PATH here). exit codes: 0 done, 1 bad agent file, run "
        "directory or player, 2 bad command line",
    )
    p.add_argument(
        "game",
        help="game to play: tictactoe, connect_four, othello, gomoku, hex, go, or the "
        "openspiel:/pettingzoo: name the agents were trained as",
    )
    p.add_argument(
        "players",
        nargs="*",
        type=parse_league_player,
        metavar="PLAYER",
        help="a player spec or an agent file or run directory (random is always in)",
    )
    p.add_argument(
        "--run",
        metavar="RUN_DIR",
        help="also rate the agents the run kept over time (RUN_DIR/agents/), "
        "list them in training order and plot their ratings",
    )
    p.add_argument(
        "--plot", metavar="PATH", help="where --run writes its plot (default RUN_DIR/league.png)"
    )
    p.add_argument(
        "--symmetric",
        action="store_true",
        help="every agent averages its network's values over the board's symmetries "
        "(rotations and mirror images: 8 in Gomoku, 2 in Connect Four), as evaluate "
        "--symmetric plays its agent",
    )
    p.add_argument(
        "--games",
        type=number(int, minimum=1),
        default=20,
        help="games per seat in each pairing (default 20)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the players and the bootstrap")
    add_engine_timeout_option(p)
    p.add_argument("--json", action="store_true", help="print the ratings as JSON")
    p.add_argument(
        "--record",
        metavar="DIR",
        help="keep every game in DIR: games.jsonl (a JSON line a game) and, for Go, Othello, "
        "Gomoku and Hex, an SGF file a game (docs/records.md); boardq replay opens them",
    )
    p.set_defaults(func=run, needs_tensorflow=False)


def run(args: argparse.Namespace) -> int:
    """Runs `boardq league`; returns the exit code."""
    import numpy as np

    from boardq.catalog import get_game
    from boardq.errors import BoardqError
    from boardq.players.factory import PlayerFactory, check_spec, check_symmetric
    from boardq.players.league import RoundRobin, kept_agents, rate
    from boardq.players.openspiel_bot import rule_checks

    game = get_game(args.game)
    if args.symmetric:
        check_symmetric(game)
    snapshots = kept_agents(args.run) if args.run else []
    kept = {str(s.path): s for s in snapshots}
    specs = [parse_spec(ANCHOR), *args.players]
    specs += [PlayerSpec(Kind.AGENT, s.path.stem, path=path) for path, s in kept.items()]
    specs = list({s.name: s for s in specs}.values())  # the first of equal names
    if len(specs) < 2:
        raise BoardqError("a league needs at least one player besides random")
    for spec in specs:  # everything that can be refused, before TensorFlow loads
        check_spec(spec, game, need_path=True)
    warn_engines(specs, game, "league")
    recorder = None
    if args.record:
        from boardq.records import Recorder, RecordFolder, spec_info

        recorder = Recorder(game, RecordFolder(args.record).add, event="boardq league")
    progress = GameProgress(len(specs) * (len(specs) - 1) * args.games)  # every pairing, 2 seats
    timeout = args.engine_timeout
    with PlayerFactory(game, args.symmetric, engine_timeout_sec=timeout) as factory:  # ends engines
        players = [factory.make(spec, args.seed + k) for k, spec in enumerate(specs)]
        if recorder:
            players = [recorder.seat(p, spec_info(s)) for p, s in zip(players, specs, strict=True)]
        t0 = time.perf_counter()
        watchers = [*rule_checks(game), progress] + ([recorder] if recorder else [])
        robin = RoundRobin(players, game.make_env, args.games, args.seed, watchers)
        stop = None
        with progress:
            try:
                robin.play()
            except STOPS as e:
                stop = e
    if stop is not None and robin.played == 0:
        raise stop  # nothing to show: the one line of `boardq.commands.main`
    wins, draws = robin.wins, robin.draws
    seconds = time.perf_counter() - t0
    if recorder and recorder.error:
        print(f"boardq league: games no longer kept: {recorder.error}", file=sys.stderr)
    ratings = rate([s.name for s in specs], wins, draws, 0, np.random.default_rng(args.seed))
    timeline = []  # (snapshot, rating) in training order
    for spec, r in zip(specs, ratings, strict=True):
        if spec.kind is Kind.AGENT and spec.path in kept and spec.name == Path(spec.path).stem:
            snap = kept[spec.path]
            r.extra = {"train_step": snap.train_step, "minutes": snap.minutes}
            if r.games:  # a stopped league may not have reached it
                timeline.append((snap, r))
    # With --run the table keeps training order (random and extra players first).
    order = ratings if snapshots else sorted(ratings, key=lambda r: (not r.games, -r.rating))
    plot = _plot(args, game, timeline)
    symmetries = len(game.symmetries) if args.symmetric else 1
    stopped = None if stop is None else _stop_reason(stop, robin)
    if args.json:
        result = _as_json(args, game, order, seconds, plot)
        result["symmetries"] = symmetries
        result["matrix"] = {"players": [s.name for s in specs], "wins": wins.tolist(),
                            "draws": draws.tolist()}  # fmt: skip
        if stopped:
            result["stopped"] = stopped
        print(json.dumps(result, indent=2))
    else:
        print("\n".join(format_table(game.title, args.games, order, seconds, symmetries)))
        if stopped:
            print(f"the league stopped early: {stopped}")
        if plot:
            print(f"plot: {plot}")
        if recorder:
            print(f"games kept in {args.record} (boardq replay opens them)")
    if stop is not None:
        raise stop  # its one line and exit code: `boardq.commands.main`, as for any error
    return 0


def _stop_reason(stop: BaseException, robin) -> str:
    return f"{stop_reason(stop)}; {robin.played} of {robin.games} games played"


def _plot(args, game, timeline) -> str | None:
    """Writes the ratings of the run's agents against training time; the PNG's path."""
    from boardq.players.league import plot_ratings

    if not timeline:
        return None
    path = Path(args.plot) if args.plot else Path(args.run) / "league.png"
    snapshots, ratings = zip(*timeline, strict=True)
    try:
        return str(plot_ratings(snapshots, ratings, path, f"{game.title}: {args.run}"))
    except ImportError:
        print("no plot: matplotlib is not installed (pip install matplotlib)", file=sys.stderr)
        return None


def format_table(
    title: str, games_per_seat: int, ratings, seconds: float, symmetries: int = 1
) -> list[str]:
    """The ratings as lines of text, in the order given.

    `symmetries` > 1 says that the agents' values were averaged over that many images.
    """
    timed = any(r.extra for r in ratings)
    width = max(len("player"), *(len(r.name) for r in ratings))
    averaged = f", agents' values averaged over {symmetries} symmetries" if symmetries > 1 else ""
    lines = [
        f"{title} league: {len(ratings)} players, {counted(games_per_seat, 'game')} per seat "
        f"per pairing{averaged} ({seconds:.1f} s)",
        RATING_NOTE,
        f"  {'player':<{width}}"
        + (f" {'step':>9} {'min':>6}" if timed else "")
        + f" {'Elo':>6}  {'interval':<13} {'games':>5}  score",
    ]
    for r in ratings:
        when = ""
        if timed:
            step = r.extra.get("train_step", "")
            minutes = r.extra.get("minutes")
            when = f" {step!s:>9} {'' if minutes is None else f'{minutes:.1f}':>6}"
        if not r.games:
            lines.append(f"  {r.name:<{width}}{when} {'-':>6}  {'not played':<13} {0:>5}  -")
            continue
        lines.append(
            f"  {r.name:<{width}}{when} {r.rating:>6.0f}  {f'{r.low:.0f} to {r.high:.0f}':<13} "
            f"{r.games:>5}  {r.score:.3f}"
        )
    return lines


def _as_json(args, game, ratings, seconds, plot) -> dict:
    return {
        "game": game.name,
        "games_per_seat": args.games,
        "rating": RATING_NOTE,
        "seconds": seconds,
        "plot": plot,
        "players": [
            {
                "name": r.name,
                **_numbers(elo=r.rating, elo_low=r.low, elo_high=r.high),
                "games": r.games,
                **_numbers(score=r.score),
                **r.extra,
            }
            for r in ratings
        ],
    }


def _numbers(**values: float) -> dict:
    """The values, None where not a number (a player a stopped league did not reach)."""
    return {k: None if math.isnan(v) else v for k, v in values.items()}
