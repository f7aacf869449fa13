"""The `boardq` command: train, play, bench.

The train options are generated from the fields of `TrainConfig` and `NetworkConfig`
in one place (`add_config_options`); each flag is the field's name with dashes.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import typing
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from boardq._quiet import import_tensorflow_quietly
from boardq.config import ConfigError, NetworkConfig, TrainConfig
from boardq.errors import BoardqError

__all__ = ["add_config_options", "build_parser", "config_from_args", "main"]

EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


class _Parser(argparse.ArgumentParser):
    """Prints usage errors as one line (and where to look for help)."""

    def error(self, message: str) -> typing.NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _parse_bool(text: str) -> bool:
    value = text.strip().lower()
    if value in {"1", "true", "yes", "on"}:
        return True
    if value in {"0", "false", "no", "off"}:
        return False
    raise argparse.ArgumentTypeError(f"expected true or false, got {text!r}")


def _parse_sizes(text: str) -> tuple[int, ...]:
    text = text.strip().lower()
    if text in {"", "none"}:
        return ()
    try:
        sizes = tuple(int(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected comma-separated whole numbers such as 256,256, got {text!r}"
        ) from None
    if any(s < 1 for s in sizes):
        raise argparse.ArgumentTypeError(f"layer sizes must be >= 1, got {text!r}")
    return sizes


def _number(kind: type) -> Callable[[str], Any]:
    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            noun = "whole number" if kind is int else "number"
            raise argparse.ArgumentTypeError(f"expected a {noun}, got {text!r}") from None
        if kind is float and value != value:  # NaN
            raise argparse.ArgumentTypeError("expected a number, got nan")
        return value

    parse.__name__ = kind.__name__
    return parse


def _parser_for(annotation: Any) -> Callable[[str], Any]:
    hint = annotation
    if hint is bool:
        return _parse_bool
    if hint is int:
        return _number(int)
    if hint is float:
        return _number(float)
    if hint is str:
        return str
    origin = typing.get_origin(hint)
    if origin is tuple:
        return _parse_sizes
    raise TypeError(f"unsupported option type {annotation!r}")


# Other names people use for the same setting.
_ALIASES = {"actor_threads": ["--threads"], "budget_steps": ["--steps"]}


def add_config_options(parser: argparse.ArgumentParser) -> None:
    """One option per config field; unset options keep the game's preset value."""
    group = parser.add_argument_group("training settings (default: the game's preset)")
    for cls in (TrainConfig, NetworkConfig):
        hints = typing.get_type_hints(cls)
        for f in dataclasses.fields(cls):
            meta = f.metadata
            if "help" not in meta or meta.get("cli") is False:
                continue
            flag = "--" + f.name.replace("_", "-")
            group.add_argument(
                flag,
                *_ALIASES.get(f.name, []),
                dest=f.name,
                type=_parser_for(hints[f.name]),
                default=argparse.SUPPRESS,
                metavar="BOOL" if hints[f.name] is bool else f.name.upper(),
                help=meta["help"],
            )


def config_from_args(base: TrainConfig, args: argparse.Namespace) -> TrainConfig:
    """The base config with every option the user gave applied."""
    names = {f.name for f in dataclasses.fields(TrainConfig)}
    names |= {f.name for f in dataclasses.fields(NetworkConfig)}
    changes = {k: v for k, v in vars(args).items() if k in names and k != "game"}
    return base.replace(**changes)


# -- train ------------------------------------------------------------------------
def _add_train(sub) -> None:
    p = sub.add_parser(
        "train",
        help="train a self-play agent",
        description="Train a self-play deep Q-learning agent. Writes a run directory "
        "(config, checkpoints, agent.npz, TensorBoard logs) under --out-dir/GAME/.",
    )
    p.add_argument("game", help="game to train (tictactoe, connect_four)")
    p.add_argument(
        "--resume",
        metavar="RUN_DIR",
        help="continue the run in RUN_DIR from its last checkpoint",
    )
    p.add_argument(
        "--show-config",
        action="store_true",
        help="print the settings this run would use as JSON and exit",
    )
    add_config_options(p)
    # TensorFlow is imported only once the settings are known to be good.
    p.set_defaults(func=_run_train, needs_tensorflow=False)


def _resolve_train_config(args: argparse.Namespace) -> tuple[TrainConfig, Any]:
    from boardq.checkpointing import read_run_config
    from boardq.errors import RunDirError
    from games import get_game

    game = get_game(args.game)
    if args.resume:
        stored = read_run_config(args.resume)
        if stored.game != game.name:
            raise RunDirError(f"{args.resume} is a {stored.game} run, not a {game.name} run")
        base = stored
    else:
        base = game.preset
    config = config_from_args(base, args)
    if args.resume and config.network != base.network:
        changed = [
            f.name
            for f in dataclasses.fields(NetworkConfig)
            if getattr(config.network, f.name) != getattr(base.network, f.name)
        ]
        raise RunDirError(f"cannot change the network of an existing run ({', '.join(changed)})")
    return config.validate(), game


def _run_train(args: argparse.Namespace) -> int:
    config, game = _resolve_train_config(args)
    if args.show_config:
        print(config.to_json())
        return 0
    import_tensorflow_quietly()
    from boardq.checkpointing import CONFIG_FILE, atomic_write_text
    from boardq.progress import Progress
    from boardq.trainer import Trainer

    trainer = Trainer(config, game, resume_dir=args.resume)
    with Progress(f"boardq train {game.name}") as progress:
        result = trainer.run(progress)
    if args.resume:
        atomic_write_text(Path(args.resume) / CONFIG_FILE, config.to_json())
    m = result.metrics
    print(
        f"{'interrupted' if result.interrupted else 'finished'}: "
        f"{m['updates']:,} updates, {m['transitions']:,} transitions, "
        f"{m['games']:,} games in {m['elapsed_sec']:.0f}s; "
        f"peak memory {m['peak_rss_mb']:.0f} MB (replay {m['replay_mb']:.0f} MB)"
    )
    print(f"run written to {result.run_dir}")
    print(f"agent: {result.run_dir / 'agent.npz'}")
    if result.interrupted:
        print(f"resume with: boardq train {game.name} --resume {result.run_dir}")
        return EXIT_INTERRUPTED
    return 0


# -- the command --------------------------------------------------------------------
def _command_modules() -> list[Callable[[Any], None]]:
    """The `add(subparsers)` functions of every command."""
    adders = [_add_train]
    for name in ("boardq.play", "boardq.evaluate_cmd", "boardq.bench"):
        try:
            module = __import__(name, fromlist=["add_command"])
        except ImportError as e:
            if e.name != name:
                raise
            continue
        adders.append(module.add_command)
    return adders


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="boardq",
        description="Self-play deep Q-learning for two-player board games.",
    )
    from boardq import __version__

    parser.add_argument("--version", action="version", version=f"boardq {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for add in _command_modules():
        add(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if getattr(args, "needs_tensorflow", True):
            import_tensorflow_quietly()
        return int(args.func(args) or 0)
    except (BoardqError, ConfigError) as e:
        print(f"boardq {args.command}: error: {e}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print(f"boardq {args.command}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return EXIT_ERROR


if __name__ == "__main__":
    sys.exit(main())
