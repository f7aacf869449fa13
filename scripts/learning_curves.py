#!/usr/bin/env python3
"""Learning curves of runs side by side: a held-out figure against minutes of training.

    python3 scripts/learning_curves.py GAME --run LABEL=DIR [--run LABEL=DIR ...]
        (--positions FILE | --ladder KEY | --opponent SPEC [--games N] [-- EVALUATE-ARGS])
        --out PREFIX

Each DIR is a run directory, or an `--out-dir` holding one run. `--positions FILE`
measures every kept agent of each run on FILE, the network alone (Connect Four:
games/connect_four/critical-positions.json); `--ladder KEY` reads a figure the run's
ladder wrote (`eval/mcts:100/score`); `--opponent SPEC` plays every kept agent against
SPEC with `boardq evaluate` (`--games` a seat, default 10; arguments after `--` go to
evaluate, `-- --handicap 9`). Writes PREFIX.json (every curve), PREFIX.png (the
chart) and prints each run's last and best points as a Markdown table
(`boardq.benchmark.learncurve`). Exit codes: 0 done, 1 a bad run or file, 2 a bad
command line.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from boardq.benchmark import learncurve


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="learning_curves.py", description=__doc__.split("\n\n")[0])
    p.add_argument("game")
    p.add_argument("--run", action="append", required=True, help="LABEL=DIR (repeatable)")
    figure = p.add_mutually_exclusive_group(required=True)
    figure.add_argument("--positions", help="a positions file: each kept agent's share")
    figure.add_argument("--ladder", help="a ladder figure of metrics.jsonl")
    figure.add_argument("--opponent", help="an opponent each kept agent plays (evaluate's)")
    p.add_argument("--games", type=int, default=10, help="with --opponent: games a seat (10)")
    p.add_argument("--seed", type=int, default=0, help="with --opponent: evaluate's seed")
    p.add_argument("extra", nargs="*", help="after --: more of evaluate's arguments")
    p.add_argument("--out", required=True, help="PREFIX of the .json and .png written")
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    from boardq.catalog import get_game
    from boardq.errors import BoardqError

    curves: dict[str, list[tuple[float, float]]] = {}
    try:
        game = get_game(args.game)
        for item in args.run:
            label, eq, path = item.partition("=")
            if not eq or not label or not path:
                print(f"learning_curves.py: --run takes LABEL=DIR, got {item!r}", file=sys.stderr)
                return 2
            run = learncurve.run_dir_of(path)
            if args.positions:
                curves[label] = learncurve.positions_curve(run, game, args.positions)
            elif args.opponent:
                curves[label] = learncurve.games_curve(
                    run, game.name, args.opponent, args.games, args.seed, args.extra
                )
            else:
                curves[label] = learncurve.ladder_curve(run, args.ladder)
    except (BoardqError, ValueError, OSError) as e:
        print(f"learning_curves.py: {e}", file=sys.stderr)
        return 1
    figure = f"share of {Path(args.positions).stem}" if args.positions else args.ladder
    if args.opponent:
        figure = f"score against {args.opponent}"
    with open(f"{args.out}.json", "w") as f:
        json.dump({"game": game.name, "figure": figure, "curves": curves}, f, indent=1)
    print(f"| run | points | last (minutes, {figure}) | best |")
    print("| --- | --- | --- | --- |")
    for label, curve in curves.items():
        last = f"{curve[-1][0]:.1f}, {curve[-1][1]:.3f}" if curve else "-"
        best = f"{max(v for _, v in curve):.3f}" if curve else "-"
        print(f"| {label} | {len(curve)} | {last} | {best} |")
    try:
        from boardq.plotting import chart
    except ImportError:
        return 0
    try:
        with chart(f"{args.out}.png", f"{game.title}: {figure}", "minutes of training",
                   figure) as ax:  # fmt: skip
            for label, curve in curves.items():
                ax.plot([m for m, _ in curve], [v for _, v in curve], marker="o", label=label)
    except ImportError:
        print("learning_curves.py: matplotlib is not installed: no chart", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
