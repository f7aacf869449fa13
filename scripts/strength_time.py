#!/usr/bin/env python3
"""Strength against thinking time: an agent's score at several times a move.

    python3 scripts/strength_time.py GAME --agent PATH --opponent SPEC [--opponent ...]
        [--times 0.1,0.3,1,3] [--games N] [--search tree|alpha-beta|both]
        --out FILE.jsonl [--plot FILE.png]

Plays every (search, time, opponent) cell not yet in FILE (`boardq.benchmark.timecurve`),
then prints the Markdown table of every cell FILE holds and, with --plot, draws it.
With --report-only it plays nothing. Exit codes: 0 done, 1 a bad agent, opponent or
results file, 2 a bad command line.
"""

from __future__ import annotations

import argparse
import sys

from boardq.commands.args import add_engine_timeout_option, list_of, number
from boardq.players.specs import FORMS, parse_spec

SECONDS = number(float, minimum=0.001)  # as --move-time takes them


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="strength_time.py", description=__doc__.split("\n\n")[0])
    p.add_argument("game")
    p.add_argument("--agent", required=True, help="agent file, run directory or bundled:GAME")
    p.add_argument(
        "--opponent",
        action="append",
        type=parse_spec,
        default=[],
        help=f"opponent (repeatable): {FORMS}",
    )
    p.add_argument(
        "--times",
        type=list_of(SECONDS, "seconds a move"),
        default=(0.1, 0.3, 1.0, 3.0),
        help="seconds a move, with commas (default 0.1,0.3,1,3)",
    )
    games = number(int, minimum=1)
    p.add_argument("--games", type=games, default=10, help="games a seat a cell (10)")
    p.add_argument("--search", choices=["tree", "alpha-beta", "both"], default="both")
    p.add_argument("--seed", type=number(int, minimum=0), default=0)
    p.add_argument("--opening-plies", type=number(int, minimum=0), default=None)
    add_engine_timeout_option(p)
    p.add_argument("--out", required=True, help="JSON lines file of the cells (carried on)")
    p.add_argument("--plot", help="PNG of score against time")
    p.add_argument("--report-only", action="store_true", help="play nothing; print FILE's table")
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    from boardq.benchmark import timecurve
    from boardq.catalog import get_game
    from boardq.errors import BoardqError
    from boardq.players.factory import PlayerFactory, check_spec
    from boardq.players.specs import Kind, PlayerSpec

    searches = timecurve.SEARCHES if args.search == "both" else (args.search,)
    try:
        game = get_game(args.game)
        if not args.report_only:
            if not args.opponent:
                raise BoardqError("give at least one --opponent")
            for spec in [PlayerSpec(Kind.AGENT, "agent", path=args.agent), *args.opponent]:
                check_spec(spec, game)
            cells = [
                timecurve.Cell(search, t, spec.name)
                for t in args.times
                for spec in args.opponent
                for search in searches
            ]
            with PlayerFactory(game, None, engine_timeout_sec=args.engine_timeout) as factory:
                factory.evaluated = factory.agent(args.agent, symmetric=None)  # as its run chose
                rows = timecurve.measure(
                    game, factory, cells, args.games, args.out, args.seed, args.opening_plies
                )
        else:
            rows = timecurve.load_rows(args.out)
    except (BoardqError, ValueError) as e:
        print(f"strength_time.py: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"strength_time.py: interrupted; what was played is in {args.out}", file=sys.stderr)
        return 130
    print("\n".join(timecurve.table(rows)))
    if args.plot and rows:
        try:
            timecurve.plot(rows, args.plot, f"{game.title}: score against time a move")
        except ImportError:
            print("no plot: matplotlib is not installed", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
