"""`boardq evaluate GAME --positions FILE`: the share of positions where the agent's move is best.

The file (`boardq.players.positions`) gives, for each position, the moves that keep the
best outcome with perfect play. The agent moves once in each, as `boardq evaluate` plays
it (`--search`, `--move-time` and the other search options of `boardq.commands.args`,
`--symmetric`), and the share of positions where its move is one of those comes with its
95% (Wilson) interval, overall and by the position's outcome for the player to move.

Options that only games have (`--opponent`, `--record`, `--handicap`, `--opening-plies`)
are refused with it, in one line.
"""

from __future__ import annotations

import argparse
import json

from boardq.commands.args import counted, search_spec
from boardq.errors import BoardqError

__all__ = ["GAME_ONLY", "SHARE_ROWS", "format_share", "run"]

GAME_ONLY = ("opponent", "record", "handicap", "opening_plies")
"""evaluate's options that only its games use, refused with --positions."""

SHARE_ROWS = (("", "all"), ("win/", "a win"), ("draw/", "a draw"), ("loss/", "a loss"))
"""The rows of the text report: every position, then by the best outcome for the mover."""


def run(args: argparse.Namespace) -> int:
    """Measures the agent on the positions of `args.positions`; returns the exit code."""
    from boardq.catalog import get_game
    from boardq.players.factory import PlayerFactory, check_spec, check_symmetric
    from boardq.players.positions import load_positions, measure, observations
    from boardq.players.specs import Kind, PlayerSpec

    for name in GAME_ONLY:
        if getattr(args, name, None):
            flag = "--" + name.replace("_", "-")
            raise BoardqError(f"{flag} is for games; --positions measures one move a position")
    game = get_game(args.game)
    if args.symmetric:
        check_symmetric(game)
    found = load_positions(args.positions, game.name, game.num_actions)
    try:
        seen = observations(game.make_env, found.positions)
    except ValueError as e:
        raise BoardqError(f"{args.positions}: {e}") from None
    check_spec(PlayerSpec(Kind.AGENT, "agent", path=args.agent), game)
    with PlayerFactory(game, symmetric=None) as factory:
        agent = factory.agent(args.agent, symmetric=args.symmetric)
        result = measure(agent.player(search_spec(args)), found.positions, seen)
    header = {
        "game": game.name,
        "agent": str(agent.path),
        "search": search_spec(args).words() or "none",
        "symmetries": agent.symmetries,
        "positions_file": str(args.positions),
        "positions_made": found.header.get("about", ""),
    }
    if args.json:
        print(json.dumps({**header, **result}, indent=2))
    else:
        print("\n".join(format_share(game.title, header, result)))
    return 0


def format_share(title: str, header: dict, r: dict) -> list[str]:
    """The share as lines of text: overall, then by the position's outcome."""
    how = header["search"] if header["search"] != "none" else "greedy, no search"
    if header["symmetries"] > 1:
        how += f", values averaged over {header['symmetries']} symmetries"
    lines = [
        f"{title}: {header['agent']} ({how})",
        f"positions: {header['positions_file']}",
        "share = positions where its move keeps the best outcome, with its 95% interval;",
        "by that outcome for the player to move:",
    ]
    for prefix, label in SHARE_ROWS:
        if f"{prefix}positions" in r:
            right, total = int(r[f"{prefix}right"]), int(r[f"{prefix}positions"])
            lines.append(
                f"  {label:<10} {right:>5} of {counted(total, 'position'):<15} "
                f"{r[f'{prefix}share']:.3f}  {r[f'{prefix}share_low']:.3f}-"
                f"{r[f'{prefix}share_high']:.3f}"
            )
    timing = (
        f"the agent's move {r['move_sec_mean']:.3f} s on average, at most {r['move_sec_max']:.3f} s"
    )
    if "depth_mean" in r:
        timing += (
            f"; depth {r['depth_mean']:.1f} on average, {r['depth_min']:.0f}-{r['depth_max']:.0f}"
        )
    lines.append(timing)
    return lines
