"""`boardq evaluate`: a trained agent against reference opponents, from both seats.

Opponents are player specs (`boardq.players.specs`): random, winblock, perfect, mcts:N,
agent:PATH, search:D[:PATH], gtp:COMMAND (a GTP engine such as GNU Go or GRhino: how
its games were varied and, where it counts the games itself, how often its count and
boardq's disagree are printed too). Scores count a win 1, a draw 0.5 and a loss 0; each comes
with its 95% (Wilson) interval. Where OpenSpiel is installed and has the game, every
game is also played on an OpenSpiel state, which must agree with PettingZoo on every
end and winner. While they play, the games played out of the total go to stderr (a
progress bar on a terminal, else a line every few seconds: `boardq.commands.progress`).
With `--record DIR` every game is kept in DIR as it ends (`boardq.records`). With
`--positions FILE` no games are played: the agent moves once in each position of FILE
and the share of its moves that keep the best outcome is printed
(`boardq.commands.positions`).

The evaluated agent's time a move (mean and longest) comes with each opponent's
results: with a search, the time is what a depth costs.

A match that cannot go on (an engine that died, or took longer than `--engine-timeout`
over one answer) or is interrupted (Ctrl-C) still prints the games played so far, as
text or JSON (`"stopped"` says why), before its one line on stderr; the opponents after
it are not played.

Exit codes: 0 done; 1 a bad or missing agent file, an opponent the game cannot have, a
record folder that cannot be written, or a match stopped by its engine (one line on
stderr); 2 a bad command line (a bad spec or depth); 130 interrupted.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from boardq.commands.agents import add_komi_option, komi_of
from boardq.commands.args import (
    add_engine_timeout_option,
    add_handicap_option,
    add_search_options,
    handicap_of,
    number,
    search_spec,
)
from boardq.commands.evaluate_report import SCORE_CONVENTION, format_results
from boardq.commands.progress import GameProgress
from boardq.errors import BoardqError
from boardq.gtp.player import DEFAULT_OPENING_PLIES
from boardq.players.factory import check_symmetric
from boardq.players.scored_match import stop_reason
from boardq.players.specs import FORMS, Kind, PlayerSpec, parse_spec

__all__ = ["SCORE_CONVENTION", "add_command", "default_opponents", "format_results", "run"]


def add_command(sub) -> None:
    """Registers `boardq evaluate`."""
    p = sub.add_parser(
        "evaluate",
        help="play a trained agent against reference opponents",
        description="Plays GAMES games from each seat against each opponent and prints "
        f"wins, draws, losses and the score ({SCORE_CONVENTION}) with its 95% interval.",
        epilog=f"opponents: {FORMS}. perfect is for tic-tac-toe only; mcts needs OpenSpiel. "
        "exit codes: 0 done, 1 bad agent file or opponent or a match its engine stopped (the "
        "games played are printed), 2 bad command line, 130 interrupted (the same)",
    )
    p.add_argument(
        "game",
        help="game of the agent: tictactoe, connect_four, othello, gomoku, hex, go, or "
        "the openspiel:/pettingzoo: name it was trained as",
    )
    p.add_argument(
        "--agent",
        required=True,
        metavar="PATH",
        help="agent file, or run directory (its best-agent.npz, else agent.npz)",
    )
    p.add_argument(
        "--opponent",
        action="append",
        type=parse_spec,
        metavar="SPEC",
        help="opponent (repeatable; default: random and the game's rules-based players, "
        "winblock, line or greedy, plus perfect for tic-tac-toe; games with none of them, "
        "mcts:100); search:D is the evaluated agent itself with a depth-D lookahead, "
        "tree:N (tree:SECs) with a tree search of N visits (SEC seconds) a move",
    )
    add_search_options(
        p,
        "the evaluated agent",
        "the evaluated agent looks D moves ahead (default 0: its network alone)",
    )
    p.add_argument(
        "--symmetric",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="the evaluated agent averages its network's values over the board's "
        "symmetries (rotations and mirror images: 8 in Gomoku, 2 in Connect Four), or "
        "not (--no-symmetric: its network alone); default: as its run chose, which for "
        "the Connect Four and Gomoku presets' best agents is averaged",
    )
    p.add_argument(
        "--games", type=number(int, minimum=1), default=100, help="games per seat (default 100)"
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the opponents' choices")
    p.add_argument(
        "--opening-plies",
        type=number(int, minimum=0),
        default=None,
        metavar="N",
        help="open each game with N seeded random moves, the same for both seats (default: "
        f"{DEFAULT_OPENING_PLIES} against an engine that takes no seed, such as GRhino, "
        "else 0)",
    )
    add_komi_option(p)
    add_handicap_option(
        p,
        "as black the agent starts every game with N stones (2-9) on the fixed handicap "
        "points, its opponent passing while they are placed (the komi stays white's); as "
        "white it plays even games. A graded measure against an engine far stronger than "
        "the agent (docs/strength.md)",
    )
    p.add_argument(
        "--positions",
        metavar="FILE",
        help="instead of games, one move in each position of FILE (such as "
        "games/connect_four/critical-positions.json): the share where the agent's move keeps "
        "the best outcome (boardq.commands.positions)",
    )
    add_engine_timeout_option(p)
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    p.add_argument(
        "--record",
        metavar="DIR",
        help="keep every game in DIR: games.jsonl (a JSON line a game) and, for Go, Othello, "
        "Gomoku and Hex, an SGF file a game (docs/records.md); boardq replay opens them",
    )
    p.set_defaults(func=run, needs_tensorflow=False)


def default_opponents(game) -> list[PlayerSpec]:
    """The default opponents of a game.

    Random, the game's rules-based players, perfect play where the game is solved, and
    OpenSpiel's MCTS (100 simulations) where it has the game but boardq has no
    rules-based player for it.
    """
    from boardq.players.factory import SOLVABLE_GAMES

    names = ["random"]
    if game.rules is not None:
        names += list(game.players)
    if game.name in SOLVABLE_GAMES:
        names.append("perfect")
    if len(names) == 1 and game.openspiel is not None:
        names.append("mcts:100")
    return [parse_spec(name) for name in names]


def run(args: argparse.Namespace) -> int:
    """Runs `boardq evaluate`; returns the exit code."""
    from boardq.catalog import get_game
    from boardq.players.factory import PlayerFactory, check_spec

    if args.positions:
        from boardq.commands import positions

        return positions.run(args)
    game = get_game(args.game)
    komi = komi_of(args, game)
    if komi is not None:
        print(f"boardq evaluate: {game.setup.komi_note(game.title, komi)}", file=sys.stderr)
        game = game.with_komi(komi)
    if args.symmetric:
        check_symmetric(game)
    handicap = _handicap(args, game)
    specs = list({s.name: s for s in args.opponent or default_opponents(game)}.values())
    # Everything that can be refused is refused before TensorFlow loads (seconds).
    for spec in [PlayerSpec(Kind.AGENT, "agent", path=args.agent), *specs]:
        check_spec(spec, game)
    warn_engines(specs, game, "evaluate")
    recorder = _recorder(args.record, game, handicap)
    # Agents play as their runs chose (averaged or not) unless --[no-]symmetric says.
    with PlayerFactory(game, symmetric=None, engine_timeout_sec=args.engine_timeout) as factory:
        factory.evaluated = agent = factory.agent(args.agent, symmetric=args.symmetric)
        results, engines, checked, stop = _play(args, game, factory, specs, recorder, handicap)
    header = {
        "game": game.name,
        "agent": str(agent.path),
        "search_depth": args.search,
        "move_time_sec": args.move_time,
        "visits": args.visits,
        "symmetries": agent.symmetries,
        "symmetric_as_its_run_chose": args.symmetric is None,
        "games_per_seat": args.games,
        "handicap": args.handicap or 0,
        "score": SCORE_CONVENTION,
        "rules_checked_by_openspiel": checked,
    }
    if engines:
        header["engines"] = engines
    if stop is not None:
        header["stopped"] = stop_reason(stop)
    if recorder:
        header["records"] = str(args.record)
        if recorder.error:
            print(f"boardq evaluate: games no longer kept: {recorder.error}", file=sys.stderr)
    if args.json:
        print(json.dumps({**header, "opponents": results}, indent=2))
    else:
        print("\n".join(format_results(game.title, header, results)))
    if stop is not None:
        raise stop  # its one line and exit code: `boardq.commands.main`, as for any error
    return 0


def _handicap(args: argparse.Namespace, game):
    """The `Handicap` that `--handicap` asks for, or None.

    Raises:
        BoardqError: the game has no such handicap, or `--opening-plies` is given too.
    """
    if args.handicap is not None and args.opening_plies:
        raise BoardqError("--handicap and --opening-plies open the games two ways: give one")
    return handicap_of(args, game)


def _recorder(folder: str | None, game, handicap=None):
    """A recorder that keeps every game in `folder` (checked writable now), or None.

    `handicap`: the games' `Handicap`, which the records of black's games state.
    """
    if not folder:
        return None
    from boardq.records import Recorder, RecordFolder

    opening = handicap.opening if handicap is not None else ()
    return Recorder(game, sink=RecordFolder(folder).add, handicap=opening)


def _play(args, game, factory, specs, recorder=None, handicap=None):
    """Plays each opponent in turn.

    Returns:
        (results by opponent, engines' notes, whether OpenSpiel cross-checked the rules,
        what stopped the matches early or None). A match stopped by its engine
        (`BoardqError`) or by Ctrl-C keeps the games it played; the opponents after it
        are left out.
    """
    from boardq.gtp.player import GtpPlayer, opening_plies
    from boardq.players.evaluation import Openings
    from boardq.players.openspiel_bot import rule_checks
    from boardq.players.scored_match import ScoredMatch
    from boardq.records import agent_info, spec_info

    search = search_spec(args)
    player = factory.evaluated.player(search)
    progress = GameProgress(2 * args.games * len(specs))  # on stderr while the games play
    observers = rule_checks(game)
    watchers = [*observers, progress] + ([recorder] if recorder else [])
    if recorder:
        player = recorder.seat(player, agent_info(factory.evaluated, search))
    results, engines, stop = {}, {}, None
    with progress:
        for spec in specs:
            progress.label = f"vs {spec.name}"
            t0 = time.perf_counter()
            opponent = factory.make(spec, args.seed)
            plies = opening_plies(opponent) if args.opening_plies is None else args.opening_plies
            plies = 0 if handicap else plies
            seated = opponent
            if recorder:
                recorder.event = f"boardq evaluate vs {spec.name}"
                seated = recorder.seat(opponent, spec_info(spec))
            openings = handicap or Openings(plies, game.setup.pass_action)
            match = ScoredMatch(game, player, seated, args.games, args.seed, watchers, openings)
            stop = match.play()
            r = match.metrics()
            if not r:  # not one game ended
                break
            r["seconds"] = time.perf_counter() - t0
            r["opening_plies"] = float(plies)
            if isinstance(opponent, GtpPlayer):
                r.update(opponent.summary())
                engines[spec.name] = {
                    "engine": opponent.title,
                    "varied": opponent.varied,
                    "disagreeing_games": opponent.disagreed,
                }
            results[spec.name] = r
            if stop is not None:
                break
    if stop is not None and not results:
        raise stop  # nothing to show: the one line of `boardq.commands.main`
    return results, engines, bool(observers), stop


def warn_engines(specs, game, command: str) -> None:
    """Says on stderr what looks wrong with the engines' command lines (GNU Go's flags)."""
    import sys

    from boardq.gtp.player import engine_warnings

    for spec in specs:
        if spec.kind is Kind.GTP:
            for note in engine_warnings(spec.command, game):
                print(f"boardq {command}: warning: {spec.name}: {note}", file=sys.stderr)
