"""The `boardq play` command: a person plays against a trained agent in the terminal.

The game loop is `boardq.play.session.Session`; the board and the move labels come from
the game's text board (`Game.text`); the agent answers with one forward pass, or with
a lookahead search (`--search D`, see `boardq.players.search`), whose values `hint` shows.
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
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from boardq._quiet import quiet_native_logs
from boardq.commands.args import (
    add_handicap_option,
    add_search_options,
    handicap_of,
    number,
    search_flag,
    search_settings,
    search_words,
    searching_player,
)
from boardq.config import TrainConfig
from boardq.errors import AgentFileError
from boardq.rundir import AGENT_FILE

if TYPE_CHECKING:
    from boardq.game import Game
    from boardq.players.agent import Agent

__all__ = [
    "add_agent_options",
    "add_command",
    "agent_title",
    "check_record_file",
    "first_human_seat",
    "load_agent",
    "newest_agent",
    "resolve_agent",
    "run",
]

DEFAULT_RUNS_DIR = TrainConfig.__dataclass_fields__["out_dir"].default
FIRST_CHOICES = ("human", "agent", "random")


# -- the command ----------------------------------------------------------------------
def add_agent_options(p) -> None:
    """--agent, --runs-dir and --symmetric: which agent plays, as `resolve_agent` reads them."""
    p.add_argument(
        "--agent",
        metavar="PATH",
        help="agent file, or run directory (its best agent by the evaluation ladder, "
        "best-agent.npz, else its last, agent.npz), or 'bundled': the agent that comes "
        "with boardq (default: the newest run of the game under --runs-dir, else the "
        "bundled agent)",
    )
    p.add_argument(
        "--runs-dir",
        metavar="DIR",
        default=DEFAULT_RUNS_DIR,
        help=f"directory that holds run directories (train's --out-dir; default: "
        f"{DEFAULT_RUNS_DIR})",
    )
    p.add_argument(
        "--symmetric",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="average the network's values over the board's symmetries (its rotations "
        "and mirror images: 8 in Gomoku, 2 in Connect Four), a stronger agent for one "
        "batched forward pass, or not (--no-symmetric: the network alone); default: as "
        "its run chose, which for the Connect Four and Gomoku presets' best agents is "
        "averaged",
    )


def add_resign_option(p) -> None:
    """`--resign-below P`: the agent resigns a lost game (`boardq.play.resign`)."""
    p.add_argument(
        "--resign-below",
        type=_win_rate,
        default=None,
        metavar="P",
        help="the agent resigns when its win rate of its move is below P (0..1), never in "
        "the opening (the first quarter of the board's points in moves) nor in a handicap "
        "game (default: it never resigns)",
    )


def add_komi_option(p) -> None:
    """`--komi K`: Go set up with another komi (`komi_of` reads it)."""
    p.add_argument(
        "--komi",
        type=number(float),
        default=None,
        metavar="K",
        help="Go: white's komi (default: the game's own, 7.5); the games are counted and "
        "recorded with it, and the agent, which learnt with 7.5, plays on",
    )


def komi_of(args: argparse.Namespace, game: Game) -> float | None:
    """The komi `--komi` asks for (None: the game's own).

    Raises:
      BoardqError: a komi for a game without one, or one out of bounds (one line).
    """
    from boardq.errors import BoardqError

    if getattr(args, "komi", None) is None:
        return None
    try:
        game.setup.check(game.title, komi=args.komi)
    except ValueError as e:
        raise BoardqError(f"--komi {args.komi:g}: {e}") from None
    return args.komi


def _win_rate(text: str) -> float:
    """--resign-below's win rate: a number from 0 to 1."""
    value = number(float, minimum=0.0)(text)
    if value > 1:
        raise argparse.ArgumentTypeError(f"expected a win rate from 0 to 1, got {text!r}")
    return value


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
    from boardq.records import agent_info

    game = get_game(args.game)
    how = search_words(args)
    if how and game.rules is None:
        flag = search_flag(args)
        raise BoardqError(f"{flag} needs rules, and boardq has none for {game.title}")
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
    searching = f", searching {args.search} moves ahead" if args.search else ""
    if args.move_time or args.visits:
        searching = f", {how}"
    if agent.symmetries > 1:
        searching += f", values averaged over {agent.symmetries} symmetries"
        if args.symmetric is None:
            searching += " as its run chose (--no-symmetric: the network alone)"
    view.say(f"{game.title} against {agent_title(agent, game)}{searching}", "bold")
    advisor = searching_player(agent, args)
    session = Session(
        game,
        advisor,
        view,
        LineReader(console),
        hints=args.hints,
        search=how,
        record_to=args.record,
        agent_info=agent_info(agent, **search_settings(args)),
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


def resolve_agent(args: argparse.Namespace, game: Game) -> Agent:
    """The agent the command line names for `game`, loaded (`play` and `serve` share it).

    `args.agent`: a file or run directory, or `bundled` (the agent that comes with
    the install); without it, the newest run under `args.runs_dir`, else the bundled
    agent. Played averaged over the board's symmetries as `args.symmetric` says.

    Raises:
      BoardqError: no agent found, an unusable agent file, or `--symmetric` for a game
        without symmetries (one line each).
    """
    from boardq.players.agentfile import BUNDLED, agent_file
    from boardq.players.factory import check_symmetric

    if args.symmetric:
        check_symmetric(game)
    if args.agent == "bundled":
        path = agent_file(f"{BUNDLED}{game.name}")
    elif args.agent:
        path = Path(args.agent)
    else:
        try:
            path = newest_agent(args.runs_dir, game.name, game.dir_name)
        except AgentFileError:
            if game.bundled_agent is None:
                raise
            path = game.bundled_agent  # no run of this game yet: the one that comes with boardq
    return load_agent(path, game, args.symmetric)


def agent_title(agent: Agent, game: Game) -> str:
    """How the session names its agent: the one that comes with boardq, or its file."""
    if game.bundled_agent is not None and Path(agent.path) == game.bundled_agent:
        return "the agent that comes with boardq (--agent PATH plays your own)"
    return f"the agent in {agent.path}"


def first_human_seat(first: str, seed: int | None = None) -> int:
    """The human's seat in the first game: 0 moves first, 1 second."""
    if first == "random":
        return random.Random(seed).randrange(2)
    return {"human": 0, "agent": 1}[first]


def newest_agent(runs_dir: str | Path, game_name: str, dir_name: str | None = None) -> Path:
    """The run directory under RUNS_DIR/GAME whose agent.npz was written last.

    `Agent.load` takes its best agent by the ladder, else that agent.npz. `dir_name`:
    the game's folder under RUNS_DIR where it differs from its name
    (`openspiel:tic_tac_toe` trains into `openspiel_tic_tac_toe`).

    Raises:
      AgentFileError: there is none; the message says how to train one.
    """
    base = Path(runs_dir) / (dir_name or game_name)
    candidates = [p for p in base.glob(f"*/{AGENT_FILE}") if p.is_file()]
    if not candidates:
        raise AgentFileError(
            f"no trained {game_name} agent in {base}; train one with "
            f"`boardq train {shlex.quote(game_name)}`, or pass --agent PATH"
        )
    return max(candidates, key=lambda p: (p.stat().st_mtime, p.parent.name)).parent


def load_agent(path: Path, game: Game, symmetric: bool | None = None) -> Agent:
    """Loads an agent for `game` and runs it once, so its first reply is immediate.

    `symmetric`: as `Agent.load`'s (None: as its run chose).

    Raises:
      AgentFileError: missing, unreadable, for another game, or the wrong shape.
    """
    with quiet_native_logs(expected=(AgentFileError,)):
        from boardq.players.agent import Agent

        agent = Agent.load(path, game=game.name, symmetric=symmetric)
        env = game.make_env()
        env.reset()
        try:
            agent.q_values(env.observe(env.agent_selection))
        except ValueError as e:
            raise AgentFileError(f"{path} does not fit {game.title}: {e}") from None
        finally:
            env.close()
    return agent
