"""The `boardq play` command: a person plays against a trained agent in the terminal.

The game loop is `boardq.play.session.Session`; the board and the move labels come from
the game's text board (`Game.text`); the agent (found by `boardq.commands.agents`)
answers with one forward pass, or with a lookahead search (`--search D`, see
`boardq.search.alphabeta`), whose values `hint` shows.
`--record FILE` saves every game (`save [FILE]` at the prompt saves one). Heavy
modules (TensorFlow, PettingZoo, rich) are imported only when the command runs, so
`boardq --help` stays fast.

Exit codes: 0 after `quit`, "n" to "play again?", or the end of input (Ctrl-D);
1 when the agent file is missing, unreadable or for another game (one line on
stderr); 2 for a bad command line (a bad --search depth among them); 130 after Ctrl-C.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from boardq.commands.agents import (
    add_agent_options,
    add_komi_option,
    add_resign_option,
    agent_title,
    komi_of,
    resolve_agent,
)
from boardq.commands.args import (
    add_handicap_option,
    add_search_options,
    handicap_of,
    search_spec,
)

if TYPE_CHECKING:
    from boardq.game import Game

__all__ = ["add_command", "check_record_file", "first_human_seat", "run"]

FIRST_CHOICES = ("human", "agent", "random")


# -- the command ----------------------------------------------------------------------
def add_command(subparsers) -> None:
    """Registers `boardq play`."""
    p = subparsers.add_parser(
        "play",
        help="play against a trained agent in the terminal",
        description="Play a game against a trained agent. Type moves as the board labels "
        "them; type help at the prompt for the commands. When stdin is not a terminal, "
        "moves are read line by line from it (a scripted game).",
        epilog="exit codes: 0 quit or end of input, 1 bad agent file, 2 bad command line, "
        "130 interrupted (Ctrl-C)",
    )
    p.add_argument(
        "game",
        help="game to play: tictactoe, connect_four, othello, gomoku, hex, go, or the "
        "openspiel:/pettingzoo: name the agent was trained as",
    )
    add_agent_options(p)
    p.add_argument(
        "--first",
        choices=FIRST_CHOICES,
        default="human",
        help="who moves first in the first game (default: human); seats swap each game",
    )
    p.add_argument("--seed", type=int, default=None, help="seed for --first random")
    p.add_argument(
        "--hints", action="store_true", help="show the agent's values after each of its moves"
    )
    add_search_options(
        p,
        "the agent",
        "the agent looks D moves ahead, its network at the leaves; hints show the "
        "searched values (default 0: the network alone)",
    )
    add_handicap_option(
        p,
        "black starts every game with N stones (2-9) on the fixed handicap points, whoever "
        "plays black (you, or the agent: --first agent), and white moves first; the komi "
        "stays white's",
    )
    add_resign_option(p)
    add_komi_option(p)
    p.add_argument("--ascii", action="store_true", help="draw the board with ASCII characters only")
    p.add_argument(
        "--record",
        metavar="FILE",
        help="save every game to FILE as it ends: FILE.sgf an SGF file (Go, Othello, Gomoku, "
        "Hex; later games to FILE-2.sgf...), any other name a JSON line a game added to it "
        "(boardq replay opens both; save at the prompt saves too)",
    )
    # TensorFlow is imported (quietly) only once the agent file has been checked.
    p.set_defaults(func=run, needs_tensorflow=False)


def run(args: argparse.Namespace) -> int:
    """Runs `boardq play`; returns the exit code."""
    from rich.console import Console

    from boardq.catalog import get_game
    from boardq.errors import BoardqError
    from boardq.play.session import LineReader, Session, View
    from boardq.players.advisor import SharedAgent

    game = get_game(args.game)
    search = search_spec(args)
    how = search.words()
    if search.searches and game.rules is None:
        raise BoardqError(f"{search.flag()} needs rules, and boardq has none for {game.title}")
    if args.record:
        check_record_file(args.record, game)
    handicap = handicap_of(args, game)
    if hasattr(sys.stdout, "reconfigure"):
        # On a terminal that cannot show a character (say, a typed Arabic digit), escape it.
        sys.stdout.reconfigure(errors="backslashreplace")
    console = Console(highlight=False, emoji=False, soft_wrap=True)
    ascii_only = args.ascii or not console.encoding.lower().startswith("utf")
    agent = resolve_agent(args, game)
    view = View(console, game.text, ascii_only)
    searching = f", searching {search.depth} moves ahead" if search.depth else ""
    if search.visits or search.move_time:
        searching = f", {how}"
    if agent.symmetries > 1:
        searching += f", values averaged over {agent.symmetries} symmetries"
        if args.symmetric is None:
            searching += " as its run chose (--no-symmetric: the network alone)"
    view.say(f"{game.title} against {agent_title(agent, game)}{searching}", "bold")
    agent.player(search)  # built now (the agent keeps it): the first move times its search alone
    session = Session(
        game,
        SharedAgent(agent),
        view,
        LineReader(console),
        hints=args.hints,
        search=search,
        record_to=args.record,
        handicap=handicap,
        resign_below=args.resign_below,
        komi=komi_of(args, game),
    )
    return session.run(first_human_seat(args.first, args.seed))


def check_record_file(path: str, game: Game) -> None:
    """Refuses a record file that cannot take this game's records, before any game.

    Raises:
      BoardqError: an SGF file for a game without SGF, or a folder (one line).
    """
    from boardq.errors import BoardqError
    from boardq.records import sgf_game

    if Path(path).suffix.lower() == ".sgf" and sgf_game(game.name) is None:
        raise BoardqError(
            f"--record {path}: {game.title} has no SGF game number; name a JSON lines file "
            "(say games.jsonl)"
        )
    if Path(path).is_dir():
        raise BoardqError(f"--record {path} is a folder; name a file in it")


def first_human_seat(first: str, seed: int | None = None) -> int:
    """The human's seat in the first game: 0 moves first, 1 second."""
    if first == "random":
        return random.Random(seed).randrange(2)
    return {"human": 0, "agent": 1}[first]
