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

Exit codes: 0 done; 1 a bad or missing agent file, an opponent the game cannot have, or
a record folder that cannot be written (one line on stderr); 2 a bad command line (a bad
spec or depth).
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from boardq.commands.args import (
    add_handicap_option,
    add_search_options,
    counted,
    handicap_of,
    number,
    search_settings,
    searching_player,
)
from boardq.commands.play import add_komi_option, komi_of
from boardq.commands.progress import GameProgress
from boardq.players.factory import check_symmetric
from boardq.players.gtp_player import DEFAULT_OPENING_PLIES
from boardq.players.specs import FORMS, Kind, PlayerSpec, parse_spec

__all__ = ["SCORE_CONVENTION", "add_command", "default_opponents", "format_results", "run"]

SCORE_CONVENTION = "mean points per game: win 1, draw 0.5, loss 0"


def add_command(sub) -> None:
    """Registers `boardq evaluate`."""
    p = sub.add_parser(
        "evaluate",
        help="play a trained agent against reference opponents",
        description="Plays GAMES games from each seat against each opponent and prints "
        f"wins, draws, losses and the score ({SCORE_CONVENTION}) with its 95% interval.",
        epilog=f"opponents: {FORMS}. perfect is for tic-tac-toe only; mcts needs OpenSpiel. "
        "exit codes: 0 done, 1 bad agent file or opponent, 2 bad command line",
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
        help="opponent (repeatable; default: random and winblock, plus perfect for "
        "tic-tac-toe); search:D is the evaluated agent itself with a depth-D lookahead, "
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
    with PlayerFactory(game, symmetric=None) as factory:
        factory.evaluated = agent = factory.agent(args.agent, symmetric=args.symmetric)
        results, engines, checked = _play(args, game, factory, specs, recorder, handicap)
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
    if recorder:
        header["records"] = str(args.record)
        if recorder.error:
            print(f"boardq evaluate: games no longer kept: {recorder.error}", file=sys.stderr)
    if args.json:
        print(json.dumps({**header, "opponents": results}, indent=2))
    else:
        print("\n".join(format_results(game.title, header, results)))
    return 0


def _handicap(args: argparse.Namespace, game):
    """The `Handicap` that `--handicap` asks for, or None.

    Raises:
        BoardqError: the game has no such handicap, or `--opening-plies` is given too.
    """
    from boardq.errors import BoardqError

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


def _play(args, game, factory, specs, recorder=None, handicap=None) -> tuple[dict, dict, bool]:
    """Plays each opponent; (results by opponent, engines' notes, rules cross-checked)."""
    from boardq.players.evaluation import Openings, TimedPlayer, evaluate
    from boardq.players.gtp_player import GtpPlayer, opening_plies
    from boardq.players.openspiel_bot import rule_checks
    from boardq.records import agent_info, spec_info
    from boardq.records.count import LeadCount

    player = searching_player(factory.evaluated, args)
    progress = GameProgress(2 * args.games * len(specs))  # on stderr while the games play
    observers = rule_checks(game)
    watchers = [*observers, progress] + ([recorder] if recorder else [])
    if recorder:
        player = recorder.seat(player, agent_info(factory.evaluated, **search_settings(args)))
    lead = LeadCount(game) if LeadCount.counts(game) else None
    if lead:
        watchers.append(lead)
        player = lead.seat(player)
    results, engines = {}, {}
    with progress:
        for spec in specs:
            progress.label = f"vs {spec.name}"
            t0 = time.perf_counter()
            opponent = factory.make(spec, args.seed)
            plies = opening_plies(opponent) if args.opening_plies is None else args.opening_plies
            plies = 0 if handicap else plies
            avoid = game.setup.pass_action
            seated = opponent
            if recorder:
                recorder.event = f"boardq evaluate vs {spec.name}"
                seated = recorder.seat(opponent, spec_info(spec))
            timed = TimedPlayer(player)
            r = evaluate(
                timed,
                seated,
                game.make_env,
                args.games,
                seed=args.seed,
                observers=watchers,
                openings=handicap or Openings(plies, avoid),
            )
            r["seconds"] = time.perf_counter() - t0
            r["opening_plies"] = float(plies)
            r.update(timed.summary())
            if lead:
                r.update(lead.summary())
            if isinstance(opponent, GtpPlayer):
                r.update(opponent.summary())
                engines[spec.name] = {
                    "engine": opponent.title,
                    "varied": opponent.varied,
                    "disagreeing_games": opponent.disagreed,
                }
            results[spec.name] = r
    return results, engines, bool(observers)


def warn_engines(specs, game, command: str) -> None:
    """Says on stderr what looks wrong with the engines' command lines (GNU Go's flags)."""
    import sys

    from boardq.players.gtp_player import engine_warnings

    for spec in specs:
        if spec.kind is Kind.GTP:
            for note in engine_warnings(spec.command, game):
                print(f"boardq {command}: warning: {spec.name}: {note}", file=sys.stderr)


def format_results(title: str, header: dict, results: dict[str, dict[str, float]]) -> list[str]:
    """The results as lines of text: one per opponent and seat, then both seats."""
    depth, move_time = header["search_depth"], header.get("move_time_sec")
    how = f"depth-{depth} search" if depth else "greedy, no search"
    if move_time:
        how = f"tree search of {move_time:g} s a move"
    if header.get("visits"):
        how = f"tree search of {header['visits']} visits a move"
    if header.get("symmetries", 1) > 1:
        how += f", values averaged over {header['symmetries']} symmetries"
        if header.get("symmetric_as_its_run_chose"):
            how += " as its run chose"
    width = max([16, *(len(name) for name in results)])
    lines = [
        f"{title}: {header['agent']} ({how}), {counted(header['games_per_seat'], 'game')} per seat",
        "score = mean points per game (win 1, draw 0.5, loss 0), with its 95% interval",
        f"  {'opponent':<{width}} {'seat':<7} {'win':>5} {'draw':>5} {'loss':>5}  score  interval",
    ]
    for name, r in results.items():
        for i, (seat, prefix) in enumerate((("first", "first/"), ("second", "second/"))):
            games = r[f"{prefix}games"]
            counts = [round(r[f"{prefix}{k}"] * games) for k in ("win", "draw", "loss")]
            lines.append(
                f"  {name if i == 0 else '':<{width}} {seat:<7} {counts[0]:>5} {counts[1]:>5} "
                f"{counts[2]:>5}  {_score(r, prefix)}"
            )
        timing = f"{r['seconds']:.1f} s"
        if "move_sec_mean" in r:
            timing += (
                f"; the agent's move {r['move_sec_mean']:.3f} s, at most {r['move_sec_max']:.3f} s"
            )
        if "depth_mean" in r:
            low, high = r["depth_min"], r["depth_max"]
            timing += f"; depth {r['depth_mean']:.1f} on average, {low:.0f}-{high:.0f}"
        lines.append(f"  {'':<{width}} {'both':<7} {'':>17}  {_score(r, '')}  ({timing})")
    if header.get("handicap"):
        lines.append(
            f"as black (first) the agent started every game with {header['handicap']} "
            "handicap stones, its opponent passing (the komi stayed white's); as white "
            "(second) it played even games"
        )
    for name, r in results.items():
        lines += _varied(name, r, header.get("engines", {}).get(name))
    if header.get("records"):
        lines.append(f"games kept in {header['records']} (boardq replay opens them)")
    if not header["rules_checked_by_openspiel"]:
        lines.append("(rules not cross-checked: OpenSpiel is not installed or lacks the game)")
    return lines


def _varied(name: str, r: dict[str, float], engine: dict | None) -> list[str]:
    """How the games against `name` were varied, and what the engine's own count said."""
    plies = int(r.get("opening_plies", 0))
    opening = f"{counted(plies, 'random opening move')}, the same for both seats"
    own = []
    if "lead/mean" in r:
        seats = [
            f"{seat} {r[f'lead/{seat}/mean']:+.1f}"
            for seat in ("first", "second")
            if f"lead/{seat}/mean" in r
        ]
        own = [
            f"  boardq's count gave the agent a mean lead of {r['lead/mean']:+.1f} "
            f"over {counted(int(r['lead/games']), 'game')} ({', '.join(seats)})"
        ]
    if engine is None:
        if plies:
            return [f"{name}: games opened with {opening}", *own]
        return [f"{name}:", *own] if own else []
    how = [engine["varied"]] if engine["varied"] else ["nothing: it takes no seed"]
    how = ([] if plies and not engine["varied"] else how) + ([opening] if plies else [])
    lines = [f"{name}: {engine['engine']}; games varied by {'; '.join(how)}"]
    scored = int(r.get("engine/scored", 0))
    if scored:
        count = (
            f"its own count (final_score) disagreed with boardq's result in "
            f"{int(r['engine/disagreements'])} of {scored} games"
        )
        if "engine/opponent_margin" in r:
            count += f"; it gave the agent a mean lead of {r['engine/opponent_margin']:+.1f}"
        lines.append(f"  {count}")
    if r.get("engine/resigned"):
        lines.append(f"  it resigned {counted(int(r['engine/resigned']), 'game')}")
    return lines + own


def _score(r: dict[str, float], prefix: str) -> str:
    return (
        f"{r[prefix + 'score']:.3f}  {r[prefix + 'score_low']:.3f}-{r[prefix + 'score_high']:.3f}"
    )
