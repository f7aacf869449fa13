"""Go's count by area (Tromp-Taylor) and whether a board is settled, over a board's points.

A board here is a flat list of its points: +1 and -1 for the two colours (either may
be black), 0 empty; `near` gives each point's neighbours (`boardq_games.go.rules`).
An empty region is a largest set of connected empty points; it counts for the one
colour its border touches, and for nobody if it touches both (or none).

numpy only.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

from boardq_games.go.planes import held_around

__all__ = ["area", "owners", "regions", "settled"]


def regions(
    cells: list[int], near: Sequence[tuple[int, ...]]
) -> Iterator[tuple[set[int], set[int]]]:
    """Each empty region: its points and the colours its border touches."""
    seen: set[int] = set()
    for point, value in enumerate(cells):
        if value != 0 or point in seen:
            continue
        region, frontier, borders = {point}, [point], set()
        while frontier:
            for n in near[frontier.pop()]:
                if cells[n] == 0:
                    if n not in region:
                        region.add(n)
                        frontier.append(n)
                else:
                    borders.add(cells[n])
        seen |= region
        yield region, borders


def area(cells: list[int], near: Sequence[tuple[int, ...]]) -> dict[int, int]:
    """Each colour's area: its stones and the empty regions that touch it alone."""
    counted = {1: cells.count(1), -1: cells.count(-1)}
    for region, borders in regions(cells, near):
        if len(borders) == 1:
            counted[borders.pop()] += len(region)
    return counted


def owners(cells: list[int], near: Sequence[tuple[int, ...]]) -> list[int]:
    """Each point's owner by the count (+1, -1, or 0 for no one's).

    A stone is its colour's; an empty point the colour's that alone borders its
    region, else no one's (dame: a region that touches both colours, or none). The sum
    over the points is the +1 colour's area minus the -1 colour's (`area`).
    """
    out = list(cells)
    for region, borders in regions(cells, near):
        if len(borders) == 1:
            colour = borders.pop()
            for point in region:
                out[point] = colour
    return out


def settled(board: np.ndarray, size: int, near: Sequence[tuple[int, ...]]) -> bool:
    """Whether both colours have stones and every empty region touches one colour alone.

    What is left to play on such a board is inside someone's area: no boundary is open.
    It is not a proof that the count is final (an invasion, a group with too few eyes),
    only that nothing lies between the colours.

    Args:
      board: int [size * size] of +1, -1 and 0.
      size: the board's side.
      near: each point's neighbours.
    """
    points = np.asarray(board).reshape(size, size)
    mine, theirs = points > 0, points < 0
    if not mine.any() or not theirs.any():
        return False
    # An empty point next to both colours is a region touching both: the common case,
    # found without walking the regions.
    near_mine, near_theirs = held_around(mine, False) > 0, held_around(theirs, False) > 0
    if (near_mine & near_theirs & (points == 0)).any():
        return False
    cells = points.reshape(-1).tolist()
    return all(len(borders) == 1 for _, borders in regions(cells, near))
