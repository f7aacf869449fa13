"""The `boardq` command: train, play, evaluate, bench.

Each command is a module here with `add_command(subparsers)`; its `run(args)` is
imported lazily where it needs TensorFlow, so `boardq --help` stays fast.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from boardq._quiet import import_tensorflow_quietly
from boardq.commands import bench, evaluate, league, play, train
from boardq.commands.args import Parser
from boardq.errors import EXIT_ERROR, EXIT_INTERRUPTED, BoardqError

__all__ = ["build_parser", "main"]

_COMMANDS = (train, play, evaluate, league, bench)


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


if __name__ == "__main__":
    sys.exit(main())
