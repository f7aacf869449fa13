"""The `boardq bench` command: measures every stage of training on this machine.

Importing this module is cheap (the command line imports it on every call); the
benchmark itself is imported when the command runs.
"""

from __future__ import annotations

import argparse

from boardq.commands.args import list_of, number, parse_bool

__all__ = ["add_command", "run"]


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The bench options (shared by `boardq bench` and scripts/benchmark.py)."""
    p.add_argument("game", help="game to measure (tictactoe, connect_four)")
    p.add_argument(
        "--quick", action="store_true", help="short stages: the whole run in under a minute"
    )
    p.add_argument(
        "--out",
        metavar="PATH",
        help="directory for GAME-TIMESTAMP.json and .png (default bench-results), "
        "or a .json file path (the plot goes beside it)",
    )
    p.add_argument(
        "--threads",
        type=list_of(number(int, minimum=1), "thread counts"),
        metavar="N[,N...]",
        help="agent threads (default: the preset's); several values sweep the collection",
    )
    p.add_argument(
        "--games-per-thread",
        type=list_of(number(int, minimum=1), "game counts"),
        metavar="M[,M...]",
        help="games per agent thread (default: the preset's); several values sweep",
    )
    p.add_argument(
        "--batch-size",
        type=list_of(number(int, minimum=1), "batch sizes"),
        metavar="B[,B...]",
        help="train batch size (default: the preset's); several values sweep the learner",
    )
    p.add_argument(
        "--jit-compile",
        type=list_of(parse_bool, "true/false values"),
        metavar="BOOL[,BOOL...]",
        help="compile the train step with XLA (default: the preset's); true,false sweeps",
    )
    p.add_argument("--no-baseline", action="store_true", help="skip the seeds' recipe")
    p.add_argument("--no-training", action="store_true", help="skip the full-training stage")
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
        help="exit with status 1 if a required figure is not reached",
    )
    p.add_argument("--seed", type=int, default=0, help="random seed")


def add_command(sub) -> None:
    """Adds `bench` to the `boardq` subcommands."""
    p = sub.add_parser(
        "bench",
        help="measure the throughput of every stage, and GPU utilization",
        description="Measure, on this machine: the game's own speed, self-play "
        "collection, the learner alone and fed by the input pipeline, full training, "
        "GPU utilization (NVML), and the seeds' naive recipe as the baseline. Prints a "
        "table and writes a JSON report and a PNG plot.",
    )
    add_arguments(p)
    # TensorFlow is imported only once the game and settings are known to be good.
    p.set_defaults(func=run, needs_tensorflow=False)


def run(args: argparse.Namespace) -> int:
    """Runs the benchmark the options describe; returns the exit status."""
    from rich.console import Console

    from boardq._quiet import import_tensorflow_quietly
    from boardq.benchmark.report import default_paths, render, write_json, write_plot
    from boardq.benchmark.runner import BenchSettings, Durations, run_benchmark
    from games import get_game

    game = get_game(args.game)
    preset = game.preset.replace(seed=args.seed)
    durations = Durations.quick() if args.quick else Durations()
    settings = BenchSettings(
        game=game.name,
        config=preset,
        threads=args.threads or (preset.actor_threads,),
        games_per_thread=args.games_per_thread or (preset.games_per_thread,),
        batch_sizes=args.batch_size or (preset.batch_size,),
        jit_compile=args.jit_compile or (preset.jit_compile,),
        durations=durations.scaled(args.time_scale),
        baseline=not args.no_baseline,
        training=not args.no_training,
        quick=args.quick,
    )
    settings.main_config().validate()
    import_tensorflow_quietly()
    console = Console()
    json_path, png_path = default_paths(args.out, game.name)
    report = run_benchmark(
        game, settings, say=lambda text: console.print(text, style="dim", markup=False)
    )
    render(report, console)
    write_json(report, json_path)
    write_plot(report, png_path)
    console.print(f"report: {json_path}\nplot:   {png_path}")
    if args.check and not all(t["met"] for t in report["targets"].values()):
        return 1
    return 0
