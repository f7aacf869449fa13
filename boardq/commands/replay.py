"""`boardq replay FILE`: step through a recorded game in the terminal.

FILE is a record boardq wrote (an SGF file, or a JSON lines file of `evaluate --record`,
`league --record`, a run's ladder or `play --record`) or an SGF file another program
wrote of a game boardq plays (GNU Go, a GTP match runner, HexGui, Quarry). A file of
several games lists them and asks which to open (`--game N` opens one at once). The
moves are replayed in the game's own environment: a move that is not legal there, a
board of another size or another game is one line on stderr. Lines are read from the
terminal or, piped, one by one, as `boardq play` reads them.

Exit codes: 0 after quit or the end of input; 1 a file that cannot be read or holds no
game boardq can replay (one line on stderr); 2 a bad command line; 130 after Ctrl-C.
"""

from __future__ import annotations

import argparse
import sys

from boardq.commands.args import number

__all__ = ["add_command", "run"]


def add_command(sub) -> None:
    """Registers `boardq replay`."""
    p = sub.add_parser(
        "replay",
        help="step through a recorded game (SGF or JSON lines)",
        description="Shows a recorded game position by position: Enter for the next move, "
        "b for the one before, a number to go to that move, help for the rest. When "
        "stdin is not a terminal, commands are read line by line from it.",
        epilog="exit codes: 0 quit or end of input, 1 a file boardq cannot replay, "
        "2 bad command line, 130 interrupted (Ctrl-C)",
    )
    p.add_argument("file", metavar="FILE", help="an SGF file, or a JSON lines file of games")
    p.add_argument(
        "--game",
        type=number(int, minimum=1),
        metavar="N",
        help="open the file's N-th game at once (default: list them and ask)",
    )
    p.add_argument("--ascii", action="store_true", help="draw the board with ASCII characters only")
    p.set_defaults(func=run, needs_tensorflow=False)


def run(args: argparse.Namespace) -> int:
    """Runs `boardq replay`; returns the exit code."""
    from rich.console import Console

    from boardq.errors import EXIT_OK, BoardqError
    from boardq.play.replay import RecordReplay, choose
    from boardq.play.terminal import LineReader, View
    from boardq.records import RecordError, read_records, replay_named

    found = read_records(args.file)
    for problem in found.problems:  # the other games of the file are still there
        print(f"boardq replay: skipped {problem}", file=sys.stderr)
    records = found.records
    if args.game is not None and args.game > len(records):
        raise BoardqError(
            f"{args.file} holds {len(records)} game{'s' * (len(records) != 1)}; "
            f"--game takes 1-{len(records)}"
        )
    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(errors="backslashreplace")
    console = Console(highlight=False, emoji=False, soft_wrap=True)
    ascii_only = args.ascii or not console.encoding.lower().startswith("utf")
    reader = LineReader(console)
    while True:
        if args.game is not None:
            index = args.game - 1
        elif len(records) == 1:
            index = 0
        else:
            view = View(console, None, ascii_only)  # only messages: no board yet
            try:
                index = choose(records, view, reader)
            except EOFError:
                return EXIT_OK
            if index is None:
                return EXIT_OK
        record = records[index]
        try:
            game, replayed = replay_named(record)
        except RecordError as e:
            if args.game is not None or len(records) == 1:
                raise
            print(f"boardq replay: error: {e}", file=sys.stderr)
            continue  # the other games are still there
        code = RecordReplay(record, replayed, View(console, game.text, ascii_only), reader).run()
        if args.game is not None or len(records) == 1 or code != EXIT_OK:
            return code
