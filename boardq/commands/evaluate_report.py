"""`boardq evaluate`'s results as text.

A line per opponent and seat, then how the games were varied and what engines said of
them.

A match that stopped early (`stopped` in its header) is shown as far as it went: a seat
without a game says so, and the last line says why it stopped.
"""

from __future__ import annotations

from boardq.commands.args import counted
from boardq.search.spec import SearchSpec

__all__ = ["SCORE_CONVENTION", "format_results"]

SCORE_CONVENTION = "mean points per game: win 1, draw 0.5, loss 0"


def format_results(title: str, header: dict, results: dict[str, dict[str, float]]) -> list[str]:
    """The results as lines of text: one per opponent and seat, then both seats."""
    search = SearchSpec.of(
        header["search_depth"], header.get("move_time_sec"), header.get("visits")
    )
    how = search.words() or "greedy, no search"
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
            label = name if i == 0 else ""
            if f"{prefix}games" not in r:
                lines.append(f"  {label:<{width}} {seat:<7} {'not played':>17}")
                continue
            games = r[f"{prefix}games"]
            counts = [round(r[f"{prefix}{k}"] * games) for k in ("win", "draw", "loss")]
            lines.append(
                f"  {label:<{width}} {seat:<7} {counts[0]:>5} {counts[1]:>5} "
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
    if header.get("stopped"):
        lines.append(f"the match stopped early: {header['stopped']}")
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
