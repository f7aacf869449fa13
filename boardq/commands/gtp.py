"""`boardq gtp GAME`: the agent as a GTP engine on stdin and stdout.

GUIs (Sabaki, Lizzie, GoGui, HexGui), match runners and servers start it as a command
line, e.g. `boardq gtp go --agent runs/go/RUN`, and speak GTP v2 to it
(`boardq.gtp.engine`; docs/gui.md). The agent is loaded as `boardq play` loads it
(a run directory, an agent file, `bundled` or `bundled:GAME`), by default the one that
comes with boardq for the game. stdout carries GTP alone; notes go to stderr.

A move takes what the game's clock allows (`time_settings`...) and at most
`--move-time`, where the agent searches; the network alone answers at once. The value
a record keeps of each move (and resigning reads) is that of the search that chose it. The
analysis the Go GUIs show is the search's (a tree search's root), else the network's.

Exit codes: 0 after `quit` or the end of input; 1 a bad or missing agent file, or a
game whose moves have no GTP names (one line on stderr); 2 a bad command line.
"""

from __future__ import annotations

import argparse
import inspect
import math
import sys

import numpy as np

from boardq.commands.agents import add_agent_options, add_resign_option
from boardq.commands.args import add_search_options, search_spec

__all__ = ["add_command", "make_engine", "run", "timed_act"]

MIN_SEARCH_SECONDS = 0.05
"""Below this, a move is the network's alone: no search fits."""


def add_command(sub) -> None:
    """Registers `boardq gtp`."""
    p = sub.add_parser(
        "gtp",
        help="the agent as a GTP engine on stdin/stdout (GoGui, Sabaki, match runners)",
        description="Speaks GTP (the Go Text Protocol, version 2) on stdin and stdout, "
        "playing the agent's moves: give this command line to a GTP GUI or match runner. "
        "Games: go, othello, hex (HTP, as HexGui speaks it), connect_four, gomoku, "
        "tictactoe (GoGui's ruler commands for every game). See docs/gui.md.",
        epilog="exit codes: 0 quit or end of input, 1 bad agent file or game, 2 bad command line",
    )
    p.add_argument("game", help="game to play: go, othello, hex, connect_four, gomoku, tictactoe")
    add_agent_options(p)
    p.set_defaults(agent="bundled")
    add_search_options(
        p,
        "the agent",
        "the agent looks D moves ahead, its network at the leaves (default 0: the network alone)",
    )
    add_resign_option(p)
    p.set_defaults(func=run, needs_tensorflow=False)


def run(args: argparse.Namespace) -> int:
    """Runs `boardq gtp`; returns the exit code."""
    from boardq import __version__
    from boardq.catalog import get_game
    from boardq.commands.agents import resolve_agent
    from boardq.errors import BoardqError
    from boardq.records import agent_info

    game = get_game(args.game)
    if game.gtp is None:
        raise BoardqError(f"{game.title}'s moves have no GTP names")
    search = search_spec(args)
    how = search.words()
    if search.searches and game.rules is None:
        raise BoardqError(f"searching needs rules, and boardq has none for {game.title}")
    agent = resolve_agent(args, game)
    player = agent.player(search)
    how = how or "greedy"
    print(f"boardq gtp: {game.title}, the agent in {agent.path} ({how})", file=sys.stderr)
    version = f"{__version__} ({agent.path.name}, {how})"
    info = agent_info(agent, search)
    engine = make_engine(game, agent, player, version, info, args.move_time, args.resign_below)
    engine.run(sys.stdin, sys.stdout)
    return 0


def make_engine(game, agent, player, version="", info=None, move_time=None, resign_below=None):
    """The GTP engine of `boardq gtp`: `agent` playing `game` through `player`.

    Args:
        game: the game.
        agent: the loaded agent (`boardq.players.agent.Agent`).
        player: how it plays: the agent itself (the network alone) or one of its
            searching players (`Agent.searcher`).
        version: the engine's `version`.
        info: how a game record names the agent (None: by the engine's name).
        move_time: the most seconds a move may take (None: the clock's or the
            player's own).
        resign_below: the win rate it resigns below (None: never).
    """
    from boardq.gtp.analysis import NetworkAnalysis
    from boardq.gtp.engine import AgentEngine

    engine = AgentEngine(
        game,
        timed_act(agent, player),
        "boardq",
        version,
        agent=info,
        analyse=getattr(player, "analyse", None) or NetworkAnalysis(agent.q_batch, game.rules),
        values=agent.q_values,
        move_time=move_time,
        resign_below=resign_below,
    )
    if callable(getattr(player, "forget", None)):
        # The tree search loads its compiled growth on first use (a second or more):
        # here, before any clock runs, not in the first move's time.
        player.decide(engine.match.observation(), seconds=MIN_SEARCH_SECONDS)
        player.forget()
    return engine


def timed_act(agent, player):
    """`decide(observation, seconds) -> (action, value)`: the move within `seconds` and its value.

    Both come from the one search that chose the move, inside the time the engine counts
    on the clock: nothing is searched afterwards for the record or for resigning. The
    network alone (`player` is the agent) answers at once, with its own value of its
    move. A searching player searches for `seconds` (None: at its own pace): the tree
    search by its own `decide(observation, seconds)`; the alpha-beta of `--search D` as
    an alpha-beta as deep as about that long allows (one of 4 lengths a doubling, kept),
    whose value is then that search's. Under `MIN_SEARCH_SECONDS` the network answers.
    """

    def network(observation):
        q = np.asarray(agent.q_values(observation), np.float64)  # NaN: illegal
        action = int(np.nanargmax(q))  # the first best, as `Agent.act` chooses
        return action, float(q[action])

    if player is agent:
        return lambda observation, seconds: network(observation)
    takes_seconds = "seconds" in inspect.signature(player.decide).parameters

    def decide(observation, seconds):
        if seconds is None:
            return player.decide(observation)
        if seconds < MIN_SEARCH_SECONDS:
            return network(observation)
        if takes_seconds:
            return player.decide(observation, seconds=seconds)
        kept = 2 ** (math.floor(4 * math.log2(seconds)) / 4)
        return agent.alpha_beta(move_time=kept).decide(observation)  # as deep as time allows

    return decide
