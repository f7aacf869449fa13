"""`boardq gtp GAME`: the agent as a GTP engine on stdin and stdout.

GUIs (GoGui, Sabaki), match runners and servers start it as a command line, e.g.
`boardq gtp go --agent runs/go/RUN`, and speak GTP v2 to it (`boardq.play.gtp_engine`).
The agent is loaded as `boardq play` loads it (a run directory, an agent file,
`bundled` or `bundled:GAME`), by default the one that comes with boardq for the game.
stdout carries GTP alone; notes go to stderr.

Exit codes: 0 after `quit` or the end of input; 1 a bad or missing agent file, or a
game whose moves have no GTP names (one line on stderr); 2 a bad command line.
"""

from __future__ import annotations

import argparse
import sys

from boardq.commands.args import (
    add_search_options,
    search_settings,
    search_words,
    searching_player,
)
from boardq.commands.play import add_agent_options

__all__ = ["add_command", "run"]


def add_command(sub) -> None:
    """Registers `boardq gtp`."""
    p = sub.add_parser(
        "gtp",
        help="the agent as a GTP engine on stdin/stdout (GoGui, Sabaki, match runners)",
        description="Speaks GTP (the Go Text Protocol, version 2) on stdin and stdout, "
        "playing the agent's moves: give this command line to a GTP GUI or match runner. "
        "Games whose moves have GTP names: go, othello.",
        epilog="exit codes: 0 quit or end of input, 1 bad agent file or game, 2 bad command line",
    )
    p.add_argument("game", help="game to play: go or othello")
    add_agent_options(p)
    p.set_defaults(agent="bundled")
    add_search_options(
        p,
        "the agent",
        "the agent looks D moves ahead, its network at the leaves (default 0: the network alone)",
    )
    p.set_defaults(func=run, needs_tensorflow=False)


def run(args: argparse.Namespace) -> int:
    """Runs `boardq gtp`; returns the exit code."""
    from boardq import __version__
    from boardq.catalog import get_game
    from boardq.commands.play import resolve_agent
    from boardq.errors import BoardqError
    from boardq.play.gtp_engine import AgentEngine
    from boardq.records import agent_info, chosen_value

    game = get_game(args.game)
    if game.gtp is None:
        raise BoardqError(f"{game.title}'s moves have no GTP names (boardq gtp plays go, othello)")
    how = search_words(args)
    if how and game.rules is None:
        raise BoardqError(f"searching needs rules, and boardq has none for {game.title}")
    agent = resolve_agent(args, game)
    player = searching_player(agent, args)
    how = how or "greedy"
    print(f"boardq gtp: {game.title}, the agent in {agent.path} ({how})", file=sys.stderr)
    engine = AgentEngine(
        game,
        player.act,
        "boardq",
        f"{__version__} ({agent.path.name}, {how})",
        agent=agent_info(agent, **search_settings(args)),
        value=lambda observation, action: chosen_value(player, observation, action),
    )
    engine.run(sys.stdin, sys.stdout)
    return 0
