"""The `boardq serve` command: play against a trained agent in the browser.

A local web page (`boardq.web.server`, served by uvicorn) draws the board; you play by
clicking it or with the keyboard. The server answers only to the host names it was
started as (`--host`, `--allow-host`) and takes moves only from its own page. The
agent is found as `boardq play` finds it (one call,
`boardq.commands.agents.resolve_agent`). With a GAME, its agent is loaded before the
server starts, so a missing agent is one line on stderr; without one, the page offers
every game and loads a game's agent when it is first picked.

Exit codes: 0 after Ctrl-C (the way to stop the server); 1 for an unknown game, no
agent, an unusable agent file or an address that cannot be bound (one line on
stderr); 2 for a bad command line.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from boardq.commands import agents
from boardq.commands.args import add_search_options, number, search_spec
from boardq.errors import EXIT_OK, BoardqError

if TYPE_CHECKING:
    from boardq.game import Game
    from boardq.web.app import WebApp

__all__ = ["DEFAULT_HOST", "DEFAULT_PORT", "add_command", "run"]

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000


def add_command(subparsers) -> None:
    """Registers `boardq serve`."""
    p = subparsers.add_parser(
        "serve",
        help="play against a trained agent in the browser",
        description="Serve a web page where you play a game against a trained agent by "
        "clicking the board or with the keyboard: hints, undo, new game, your seat, the "
        "agent's thinking time and the session's score; save the game (SGF or JSON lines) "
        "and open a record to step through. The server answers only to its own "
        "address (and --allow-host names) and takes moves only from its own page. Ctrl-C "
        "stops the server.",
        epilog="exit codes: 0 stopped with Ctrl-C, 1 unknown game, no agent or address "
        "in use, 2 bad command line",
    )
    p.add_argument(
        "game",
        nargs="?",
        help="game to play: tictactoe, connect_four, othello, gomoku, hex, go, or the "
        "openspiel:/pettingzoo: name the agent was trained as (default: the page lets you "
        "pick one of the named games)",
    )
    agents.add_agent_options(p)
    agents.add_komi_option(p)
    add_search_options(
        p,
        "the agent",
        "new games start with the agent looking D moves ahead (the page changes it; games "
        "with rules only, each to its own deepest depth; default 0: the network alone)",
    )
    p.add_argument(
        "--host",
        default=DEFAULT_HOST,
        help=f"address to listen on (default: {DEFAULT_HOST}, this machine only; 0.0.0.0: "
        "every address of this machine, for others to play)",
    )
    p.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a host name the server answers to besides --host's address (and localhost "
        "on loopback, or any IP address with --host 0.0.0.0): the machine's name, say, "
        "when others reach it by name; repeat for more names",
    )
    p.add_argument(
        "--port",
        type=number(int, minimum=0),
        default=DEFAULT_PORT,
        help=f"port to listen on (default: {DEFAULT_PORT}; 0: any free port)",
    )
    p.set_defaults(func=run, needs_tensorflow=False)


def run(args: argparse.Namespace) -> int:
    """Runs `boardq serve`; returns the exit code."""
    from boardq.web.search import MAX_DEPTH, MAX_MOVE_TIME, MAX_VISITS
    from boardq.web.server import make_server

    if args.search > MAX_DEPTH:
        raise BoardqError(f"--search is at most {MAX_DEPTH} here")
    if args.move_time is not None and args.move_time > MAX_MOVE_TIME:
        raise BoardqError(f"--move-time is at most {MAX_MOVE_TIME:g} seconds here")
    if args.visits is not None and args.visits > MAX_VISITS:
        raise BoardqError(f"--visits is at most {MAX_VISITS} here")
    if args.port > 65535:
        raise BoardqError(f"--port must be from 0 to 65535, not {args.port}")
    app, playing = _app(args)
    try:
        server = make_server(app, args.host, args.port, tuple(args.allow_host))
    except OSError as e:
        raise BoardqError(f"cannot listen on {args.host}:{args.port}: {e.strerror or e}") from None
    host, port = server.server_address[:2]
    if playing:
        print(playing, flush=True)
    print(f"open http://{host}:{port}/ in a browser (Ctrl-C stops the server)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print("stopped", file=sys.stderr)
    finally:
        server.server_close()
        app.sessions.close()
    return EXIT_OK


def _app(args: argparse.Namespace) -> tuple[WebApp, str]:
    """The games to serve and their agents: GAME's, loaded now, or every named game's.

    Returns:
      The app, and a line naming the game and agent served ("" for every game).
    """
    from boardq._quiet import import_tensorflow_quietly
    from boardq.catalog import game_names, get_game
    from boardq.web.app import WebApp
    from boardq.web.search import max_depth_of

    if not args.game:
        import_tensorflow_quietly()  # now, not in the thread of the first request
        games = {name: _set_up(args, get_game(name)) for name in game_names()}
        app = WebApp(
            games,
            lambda game: agents.resolve_agent(args, game),
            None,
            search_spec(args),
        )
        return app, ""
    game = _set_up(args, get_game(args.game), needs_komi=True)
    search = search_spec(args)
    if search.searches and game.rules is None:
        raise BoardqError(f"{search.flag()} needs rules, and boardq has none for {game.title}")
    if args.search > max_depth_of(game):
        raise BoardqError(
            f"--search is at most {max_depth_of(game)} in {game.title} on the web board "
            "(deeper takes seconds a move; --move-time SEC gives the agent a time instead)"
        )
    agent = agents.resolve_agent(args, game)
    app = WebApp({game.name: game}, lambda _: agent, game.name, search)
    app.prepare(game)
    return app, f"{game.title} against {agents.agent_title(agent, game)}"


def _set_up(args: argparse.Namespace, game: Game, needs_komi: bool = False) -> Game:
    """`game` with `--komi` where it has a komi (said once on stderr, and on the page).

    Raises:
      BoardqError: `--komi` for a GAME without komi (`needs_komi`), or out of bounds.
    """
    if args.komi is None or (game.setup.komi is None and not needs_komi):
        return game
    komi = agents.komi_of(args, game)
    if komi is None or komi == game.setup.komi:
        return game
    print(f"boardq serve: {game.setup.komi_note(game.title, komi)}", file=sys.stderr)
    return game.with_komi(komi)
