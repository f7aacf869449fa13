"""`boardq bench GAME`: measures every stage of training on this machine.

Importing this module is cheap (the command line imports it on every call); the
benchmark itself is imported when the command runs.
"""

from __future__ import annotations

import argparse
import os

from boardq.commands.args import choice, list_of, number, parse_bool
from boardq.dqn.precision import PRECISIONS

__all__ = ["add_command", "run"]

# Settings that take several values: the first is the main setting, the others sweep.
_SWEPT = {
    "actor_threads": (number(int, minimum=1), "thread counts", "the collection"),
    "games_per_thread": (number(int, minimum=1), "game counts", "the collection"),
    "batch_size": (number(int, minimum=1), "batch sizes", "the learner"),
    "steps_per_call": (number(int, minimum=1), "step counts", "the learner"),
    "jit_compile": (parse_bool, "true/false values", "the learner"),
    "precision": (choice(PRECISIONS), "precisions", "the learner"),
    "batch_splits": (number(int, minimum=1), "split counts", "the learner"),
}


def _add_sweeps(p) -> None:
    """The settings one run compares side by side: `--batch-size 256,1024` and so on."""
    for name, (parse, what, stage) in _SWEPT.items():
        p.add_argument(
            "--" + name.replace("_", "-"),
            type=list_of(parse, what),
            metavar="V[,V...]",
            help=f"{name} (default: the preset's); more values sweep {stage}",
        )
    p.add_argument(
        "--actor-processes",
        type=list_of(number(int, minimum=1), "process counts"),
        metavar="P[,P...]",
        help="actor-process counts the Ray stage compares (default: 1 and the cores)",
    )


def add_command(sub) -> None:
    """Registers `boardq bench`."""
    p = sub.add_parser(
        "bench",
        help="measure the throughput of every stage, and GPU utilization",
        description="Measure, on this machine: random play (PettingZoo's and the "
        "vectorized rules'), self-play collection, actor processes on Ray, the learner "
        "alone and fed by the input pipeline, the search at play (the time a move at "
        "depths 1-3, the tree search's leaves a second), full training, GPU utilization "
        "(NVML), and the naive implementation as the baseline. Prints a table and writes "
        "a JSON report and a PNG plot.",
    )
    p.add_argument(
        "game",
        help="game to measure: any game train takes (the vectorized stages need "
        "vectorized rules, which every named game but othello has; the search stage "
        "needs rules, which every named game has)",
    )
    p.add_argument("--quick", action="store_true", help="short stages (about a minute and a half)")
    p.add_argument(
        "--out",
        metavar="PATH",
        help="directory for GAME-TIMESTAMP.json and .png (default bench-results), "
        "or a .json file path (the plot goes beside it)",
    )
    _add_sweeps(p)
    for stage, what in (("processes", "Ray stage"), ("training", "full-training stage"),
                        ("naive", "naive baseline"), ("search", "search stage")):  # fmt: skip
        p.add_argument(f"--no-{stage}", action="store_true", help=f"skip the {what}")
    p.add_argument(
        "--time-scale",
        type=number(float, minimum=0.01),
        default=1.0,
        metavar="F",
        help="multiply every stage's duration by F",
    )
    p.add_argument(
        "--check",
        action="store_true",
        help="exit with status 1 if a required figure is measured and missed",
    )
    p.add_argument(
        "--intra-op-threads",
        type=number(int, minimum=0),
        metavar="N",
        help="TensorFlow compute threads per op (default: the preset's rule; one value: "
        "it is set before TensorFlow starts, so compare values in separate runs)",
    )
    p.add_argument("--seed", type=number(int), default=0, help="random seed")
    # TensorFlow is imported only once the game and settings are known to be good.
    p.set_defaults(func=run, needs_tensorflow=False)


def run(args: argparse.Namespace) -> int:
    """Runs the benchmark the options describe; returns the exit status."""
    from rich.console import Console

    from boardq._quiet import import_tensorflow_quietly
    from boardq.benchmark.report import default_paths, render, write_json, write_plot
    from boardq.benchmark.runner import BenchSettings, Durations, run_benchmark
    from boardq.catalog import get_game

    game = get_game(args.game)
    values = {name: getattr(args, name) for name in _SWEPT if getattr(args, name)}
    config = game.preset.replace(seed=args.seed, **{n: v[0] for n, v in values.items()})
    if args.intra_op_threads is not None:
        config = config.replace(intra_op_threads=args.intra_op_threads)
    counts = args.actor_processes or (1, max(2, os.cpu_count() or 1))
    settings = BenchSettings(
        config=config.validate(),
        durations=(Durations.quick() if args.quick else Durations()).scaled(args.time_scale),
        processes=() if args.no_processes else tuple(sorted(set(counts))),
        naive=not args.no_naive,
        search_depths=() if args.no_search else (1, 2, 3),
        training=not args.no_training,
        sweeps={n: v[1:] for n, v in values.items() if len(v) > 1},
        quick=args.quick,
    )
    import_tensorflow_quietly()
    console = Console()
    json_path, png_path = default_paths(args.out, game.dir_name)
    report = run_benchmark(game, settings, lambda t: console.print(t, style="dim", markup=False))
    render(report, console)
    write_json(report, json_path)
    console.print(f"report: {json_path}")
    why_not = write_plot(report, png_path)
    console.print(why_not or f"plot:   {png_path}")
    if args.check and any(t["met"] is False for t in report["targets"].values()):
        return 1
    return 0
