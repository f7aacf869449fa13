"""`boardq evaluate`: a trained agent against reference opponents, from both seats."""

from __future__ import annotations

import argparse
import enum
import json
import time

from boardq.commands.args import number

__all__ = ["Opponent", "add_command", "make_opponent"]


class Opponent(enum.Enum):
    """Reference opponents."""

    RANDOM = "random"
    WINBLOCK = "winblock"
    PERFECT = "perfect"


def make_opponent(kind: Opponent, rules, seed: int):
    """A fresh opponent of `kind` for a game's rules."""
    from boardq.evaluation import PerfectPlayer, RandomPlayer, WinBlockPlayer

    factories = {
        Opponent.RANDOM: lambda: RandomPlayer(seed=seed),
        Opponent.WINBLOCK: lambda: WinBlockPlayer(rules, seed=seed),
        Opponent.PERFECT: lambda: PerfectPlayer(rules, seed=seed),
    }
    return factories[kind]()


def add_command(sub) -> None:
    p = sub.add_parser(
        "evaluate",
        help="play a trained agent against reference opponents",
        description="Plays GAMES games from each seat against each opponent and prints "
        "win/draw/loss rates. The perfect (minimax) opponent is for tic-tac-toe only.",
    )
    p.add_argument("game", help="game of the agent (tictactoe, connect_four)")
    p.add_argument("--agent", required=True, help="agent file or run directory")
    p.add_argument(
        "--opponent",
        action="append",
        choices=[o.value for o in Opponent],
        help="opponent(s) to play (repeatable; default: random and winblock, "
        "plus perfect for tic-tac-toe)",
    )
    p.add_argument(
        "--games", type=number(int, minimum=1), default=100, help="games per seat (default 100)"
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the opponents' choices")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    p.set_defaults(func=run, needs_tensorflow=False)


def run(args: argparse.Namespace) -> int:
    from boardq._quiet import import_tensorflow_quietly
    from boardq.errors import BoardqError
    from boardq.evaluation import evaluate
    from games import get_game

    game = get_game(args.game)
    kinds = (
        [Opponent(o) for o in args.opponent]
        if args.opponent
        else [
            Opponent.RANDOM,
            Opponent.WINBLOCK,
        ]
        + ([Opponent.PERFECT] if game.name == "tictactoe" else [])
    )
    if Opponent.PERFECT in kinds and game.name != "tictactoe":
        raise BoardqError("the perfect opponent is available for tic-tac-toe only")
    import_tensorflow_quietly()
    from boardq.agent import Agent

    agent = Agent.load(args.agent, game=game.name)
    results = {}
    for kind in kinds:
        t0 = time.perf_counter()
        opponent = make_opponent(kind, game.rules, args.seed)
        r = evaluate(agent, opponent, game.make_env, games_per_seat=args.games, seed=args.seed)
        r["seconds"] = time.perf_counter() - t0
        results[kind.value] = r
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    print(f"{game.title}: {agent.path} ({args.games} games per seat)")
    for name, r in results.items():
        print(
            f"  vs {name:<8}  first: win {r['first/win']:.0%} draw {r['first/draw']:.0%} "
            f"loss {r['first/loss']:.0%}   second: win {r['second/win']:.0%} "
            f"draw {r['second/draw']:.0%} loss {r['second/loss']:.0%}"
        )
    return 0
