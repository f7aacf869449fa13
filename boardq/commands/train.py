"""`boardq train GAME`: trains a self-play agent; every setting is an option."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import os
import shlex
import signal
import sys
from collections.abc import Iterator
from typing import Any

from boardq.commands.args import add_config_options, config_from_args
from boardq.config import ConfigError, NetworkConfig, TrainConfig
from boardq.errors import EXIT_INTERRUPTED, EXIT_TERMINATED, RunDirError

__all__ = ["add_command", "resolve_config", "run"]


def add_command(sub) -> None:
    """Registers `boardq train`."""
    p = sub.add_parser(
        "train",
        help="train a self-play agent",
        description="Train a self-play deep Q-learning agent. Writes a run directory "
        "(config, checkpoints, agent.npz, TensorBoard logs) under --out-dir/GAME/.",
    )
    p.add_argument(
        "game",
        nargs="?",
        help="game to train: tictactoe, connect_four, othello, gomoku, hex, go, or any "
        "fitting openspiel:NAME[(key=value,...)] or pettingzoo:ENV_ID (docs/games.md); "
        "may be left out with --config or --resume, which name it",
    )
    p.add_argument(
        "--env-arg",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a parameter of an openspiel: or pettingzoo: game (repeatable), e.g. "
        "--env-arg board_size=9; it becomes part of the game's name",
    )
    p.add_argument(
        "--resume", metavar="RUN_DIR", help="continue the run in RUN_DIR from its last checkpoint"
    )
    p.add_argument(
        "--resume-without-replay",
        action="store_true",
        help="with --resume: go on with an empty replay (a fresh warm-up) when the "
        "checkpoint's replay file is missing or cannot be used, or is not wanted",
    )
    p.add_argument(
        "--config",
        metavar="FILE",
        help="start from the settings in FILE, a run's config.json or a .toml file (all "
        "settings or some; the rest are the preset's); options given override it",
    )
    p.add_argument(
        "--show-config",
        action="store_true",
        help="print the settings this run would use as JSON and exit",
    )
    add_config_options(p)
    # TensorFlow is imported only once the settings are known to be good.
    p.set_defaults(func=run, needs_tensorflow=False)


def resolve_config(args: argparse.Namespace) -> tuple[TrainConfig, Any]:
    """The validated settings and the game.

    The preset, or the resumed run's settings, or the preset with a --config file's
    settings, then the options given; a resumed run's network cannot change.
    """
    from boardq.catalog import get_game
    from boardq.rundir import read_run_config, read_settings_file
    from boardq_games.generic.spec import with_args

    if getattr(args, "resume_without_replay", False) and not args.resume:
        raise ConfigError("--resume-without-replay goes with --resume RUN_DIR")
    if args.resume and args.config:
        raise ConfigError(
            "--config starts a new run from a file; --resume continues a run with its own "
            "settings (give options to change them)"
        )
    resumed = read_run_config(args.resume) if args.resume else None
    values = read_settings_file(args.config) if args.config else {}
    named = args.game or values.get("game") or (resumed.game if resumed else None)
    if not named:
        raise ConfigError("name the game to train, or give --config FILE or --resume RUN_DIR")
    game = get_game(with_args(str(named), getattr(args, "env_arg", [])))
    base = resumed or game.preset
    if base.game != game.name:
        raise RunDirError(f"{args.resume} is a {base.game} run, not a {game.name} run")
    if values:
        if values.get("game", game.name) != game.name:
            raise ConfigError(f"{args.config} is for {values['game']}, not for {game.name}")
        base = base.updated(values, source=str(args.config))
    config = config_from_args(base, args)
    if config.actor_processes and config.pool_share and "pool_share" not in vars(args):
        # The opponent pool plays in actor threads only: the preset's pool gives way to
        # the processes asked for (an explicit --pool-share is refused by validate).
        config = config.replace(pool_share=0.0)
    if args.resume and config.network != base.network:
        changed = [
            f.name
            for f in dataclasses.fields(NetworkConfig)
            if getattr(config.network, f.name) != getattr(base.network, f.name)
        ]
        raise RunDirError(f"cannot change the network of an existing run ({', '.join(changed)})")
    config.validate()
    from boardq.pruning import check_pruning

    check_pruning(config.prune_moves, game)  # before a run directory exists
    if config.reward_lead:  # before a run directory exists
        from boardq.dqn.builder import Builder

        Builder(config, game).make_games(1, 0)  # refuses games that keep no count
    return config, game


@contextlib.contextmanager
def stop_once() -> Iterator[list[int]]:
    """Ctrl-C or SIGTERM stops training once; a second signal cannot cut the save short.

    The first SIGINT or SIGTERM (`kill`, a job scheduler, `docker stop`) raises
    KeyboardInterrupt in the main thread, so the run stops its threads and saves a
    checkpoint and its agents. Later ones are ignored with one line on stderr, so the
    save finishes: Ctrl-C pressed twice, or `timeout -s INT`, which signals the command
    and then its whole process group, would otherwise end the run in the middle of its
    save and lose what it collected since the last checkpoint. Yields a list that holds
    the first signal once one came. The previous handlers are back afterwards.
    """
    received: list[int] = []

    def on_signal(signum: int, frame: Any) -> None:
        if received:
            if len(received) == 1:
                print(
                    "boardq train: already stopping; the run ends once its checkpoint is "
                    f"saved (kill -9 {os.getpid()} abandons what was not saved)",
                    file=sys.stderr,
                    flush=True,
                )
            received.append(signum)
            return
        received.append(signum)
        raise KeyboardInterrupt

    stops = (signal.SIGINT, signal.SIGTERM)
    previous = {s: signal.signal(s, on_signal) for s in stops}
    try:
        yield received
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


def run(args: argparse.Namespace) -> int:
    """Runs `boardq train`; returns the exit code."""
    config, game = resolve_config(args)
    if args.show_config:
        print(config.to_json())
        return 0
    from boardq._quiet import import_tensorflow_quietly

    import_tensorflow_quietly()
    from boardq.rundir import AGENT_FILE, BEST_AGENT_FILE
    from boardq.training.loggers import TerminalLogger
    from boardq.training.trainer import Trainer

    trainer = Trainer(
        config, game, resume_dir=args.resume, resume_replay=not args.resume_without_replay
    )
    trainer.build()
    # The progress reads as the share of the budget spent: "elapsed 6:55 of 60:00".
    terminal = TerminalLogger(f"boardq train {shlex.quote(game.name)}", budget=trainer.budget)
    try:
        with stop_once() as stops:
            result = trainer.run([terminal], say=terminal.message)
    finally:
        terminal.close()
    m = result.metrics
    print(
        f"{'interrupted' if result.interrupted else 'finished'}: "
        f"{m['train_steps']:,} train steps, {m['transitions']:,} transitions, "
        f"{m['games']:,} games in {m['elapsed_sec']:.0f}s; "
        f"peak memory {m['peak_rss_mb']:.0f} MB (replay {m['replay_mb']:.0f} MB)"
    )
    print(f"run written to {result.run_dir}")
    print(f"agent: {result.run_dir / AGENT_FILE}")
    if (result.run_dir / BEST_AGENT_FILE).exists():  # what play and evaluate take from the run
        print(f"best agent by the evaluation ladder: {result.run_dir / BEST_AGENT_FILE}")
    if result.interrupted:
        print(
            f"resume with: boardq train {shlex.quote(game.name)} "
            f"--resume {shlex.quote(str(result.run_dir))}"
        )
        return EXIT_TERMINATED if stops[:1] == [signal.SIGTERM] else EXIT_INTERRUPTED
    return 0
