"""Which agent a command plays, and how: the options and loading shared by the commands.

`play`, `serve`, `gtp` and `evaluate` name an agent the same way (`--agent` a file, a
run directory or `bundled`; `--runs-dir`; `--symmetric`) and set up its games with the
same `--resign-below` and `--komi`. `resolve_agent` finds and loads the agent those
options name, and runs it once so its first reply is immediate. Heavy modules
(TensorFlow) are imported only when an agent is loaded, so `boardq --help` stays fast.
"""

from __future__ import annotations

import argparse
import shlex
from pathlib import Path
from typing import TYPE_CHECKING

from boardq._quiet import quiet_native_logs
from boardq.commands.args import number
from boardq.config import TrainConfig
from boardq.errors import AgentFileError
from boardq.rundir import AGENT_FILE

if TYPE_CHECKING:
    from boardq.game import Game
    from boardq.players.agent import Agent

__all__ = [
    "DEFAULT_RUNS_DIR",
    "add_agent_options",
    "add_komi_option",
    "add_resign_option",
    "agent_title",
    "komi_of",
    "load_agent",
    "newest_agent",
    "resolve_agent",
]

DEFAULT_RUNS_DIR = TrainConfig.__dataclass_fields__["out_dir"].default


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


def resolve_agent(args: argparse.Namespace, game: Game) -> Agent:
    """The agent the command line names for `game`, loaded (`play`, `serve` and `gtp` share it).

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
