"""The `boardq` command: train, play, serve, evaluate, league, replay, export, gtp, bench.

Each command is a module here with `add_command(subparsers)`; its `run(args)` is
imported lazily where it needs TensorFlow, so `boardq --help` stays fast.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from boardq._quiet import import_tensorflow_quietly
from boardq.commands import bench, evaluate, export, gtp, league, play, replay, serve, train
from boardq.commands.args import Parser
from boardq.errors import EXIT_ERROR, EXIT_INTERRUPTED, BoardqError

__all__ = ["build_parser", "entry", "main"]

_COMMANDS = (train, play, serve, evaluate, league, replay, export, gtp, bench)


def build_parser() -> Parser:
    """The `boardq` parser with every command."""
    from boardq import __version__

    parser = Parser(
        prog="boardq", description="Self-play deep Q-learning for two-player board games."
    )
    parser.add_argument("--version", action="version", version=f"boardq {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    sub.required = True
    for command in _COMMANDS:
        command.add_command(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Runs one command; returns its exit code (see `boardq.errors`)."""
    args = build_parser().parse_args(argv)
    try:
        if getattr(args, "needs_tensorflow", True):
            import_tensorflow_quietly()
        return int(args.func(args) or 0)
    except BoardqError as e:  # ConfigError is one too
        print(f"boardq {args.command}: error: {e}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print(f"boardq {args.command}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return EXIT_ERROR


def entry(argv: Sequence[str] | None = None) -> NoReturn:
    """The `boardq` program: `main`, then the process ends with its exit code.

    Every command closes what it opened (the run directory and its logs, actor
    processes, the ladder's process) before it returns, so only stdout and stderr are
    left to flush. The interpreter's own teardown is then skipped (`os._exit`): it
    destroys TensorFlow's objects when TensorFlow's threads can no longer run Python,
    and a training run that had saved and printed everything once hung there for
    minutes instead of exiting. Usage errors, `--help` and `--version` exit from the
    parser as usual (TensorFlow is not started then).
    """
    code = main(argv)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe: what was left unsaid is lost
            code = code or EXIT_ERROR
    os._exit(code)


if __name__ == "__main__":
    entry()
