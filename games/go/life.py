"""Which of a colour's groups can still be taken: Benson's unconditional life, and seki.

Tromp-Taylor's count (`boardq_games.go.count`) takes every stone on the board as alive,
so a board where no empty region touches both colours (`count.settled`) may still hold
a group that the opponent, playing on, can take: one with an eye and a false eye, or
one with no eye at all inside the other's area. GNU Go with `--capture-all-dead` does
take it. Whether the mover may pass is judged here instead, by two rules of the field:

- Benson's algorithm (D. B. Benson, "Life in the game of Go", Information Sciences 10,
  1976): a chain is unconditionally alive (pass-alive) if the opponent cannot take it
  even when its owner passes at every turn. Over the chains X of a colour and the
  regions R it encloses (largest connected sets of points not of that colour), a
  region is vital to a chain if every empty point of it is a liberty of that chain;
  repeat until nothing changes: drop from X the chains with fewer than two vital
  regions in R, and from R the regions that touch a chain no longer in X. What is
  left in X is unconditionally alive, and nothing else is sure to be.
- Seki: chains of both colours that share liberties which neither side can fill
  without putting its own chain in atari (a stone there captures nothing and leaves
  its chain one liberty or none). The side that fills one loses its chain, so a
  shared liberty is not a point to play, and no one gains by the other's pass.

A board is a flat list of its points, +1 the mover's stones, -1 the opponent's, 0 empty,
with `near` giving each point's neighbours (`boardq_games.go.rules`). numpy only.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from boardq_games.go.count import regions
from boardq_games.go.planes import held_around

__all__ = ["chains", "safe_to_pass", "seki_point", "unconditionally_alive"]

Chain = tuple[int, list[int], set[int]]
"""A chain: its colour, its stones, its liberties."""


def chains(cells: list[int], near: Sequence[tuple[int, ...]]) -> tuple[list[int], list[Chain]]:
    """Each point's chain (an index, -1 on an empty point) and every chain of the board."""
    index = [-1] * len(cells)
    found: list[Chain] = []
    for point, colour in enumerate(cells):
        if colour == 0 or index[point] >= 0:
            continue
        k = len(found)
        index[point] = k
        stones, liberties, frontier = [point], set(), [point]
        while frontier:
            for n in near[frontier.pop()]:
                value = cells[n]
                if value == 0:
                    liberties.add(n)
                elif value == colour and index[n] < 0:
                    index[n] = k
                    stones.append(n)
                    frontier.append(n)
        found.append((colour, stones, liberties))
    return index, found


def _alive(cells, near, colour: int, index: list[int], found: list[Chain]) -> set[int]:
    """The indices of `colour`'s unconditionally alive chains (Benson's algorithm)."""
    seen = [False] * len(cells)
    vital: list[set[int]] = []  # each region: the chains it is vital to
    around: list[set[int]] = []  # each region: the chains of `colour` that touch it
    for start, value in enumerate(cells):
        if value == colour or seen[start]:
            continue
        seen[start] = True
        empty, touching, frontier = [], set(), [start]
        while frontier:
            point = frontier.pop()
            if cells[point] == 0:
                empty.append(point)
            for n in near[point]:
                if cells[n] == colour:
                    touching.add(index[n])
                elif not seen[n]:
                    seen[n] = True
                    frontier.append(n)
        around.append(touching)
        vital.append({c for c in touching if found[c][2].issuperset(empty)})
    alive = {k for k, chain in enumerate(found) if chain[0] == colour}
    kept = range(len(vital))
    while True:
        count = dict.fromkeys(alive, 0)
        for r in kept:
            for c in vital[r]:
                count[c] += 1  # every chain of a kept region is still alive
        dead = {c for c, k in count.items() if k < 2}
        if not dead:
            return alive
        alive -= dead
        kept = [r for r in kept if around[r] <= alive]


def unconditionally_alive(cells: list[int], near: Sequence[tuple[int, ...]], colour: int) -> set:
    """The stones of `colour`'s unconditionally alive chains (Benson's algorithm)."""
    index, found = chains(cells, near)
    return {s for k in _alive(cells, near, colour, index, found) for s in found[k][1]}


def _self_atari(cells, near, index, found, point: int, colour: int) -> bool:
    """Whether a stone of `colour` on the empty `point` would put its own chain in atari.

    It captures nothing and leaves its chain one liberty, or none (suicide).
    """
    liberties: set[int] = set()
    for n in near[point]:
        value = cells[n]
        if value == 0:
            liberties.add(n)
        elif value == colour:
            liberties |= found[index[n]][2]
        elif found[index[n]][2] == {point}:
            return False  # it captures
    liberties.discard(point)
    return len(liberties) <= 1


def seki_point(cells, near, index, found, point: int) -> bool:
    """Whether the empty `point` is a shared liberty of a seki.

    It touches both colours, and neither can fill it but by putting its own chain in atari.
    """
    colours = {cells[n] for n in near[point]}
    return (
        colours >= {1, -1}
        and _self_atari(cells, near, index, found, point, 1)
        and _self_atari(cells, near, index, found, point, -1)
    )


def safe_to_pass(board: np.ndarray, size: int, near: Sequence[tuple[int, ...]]) -> bool:
    """Whether the mover (+1) may pass without a group of its own being open to capture.

    True where the mover has stones, every empty region that touches both colours is
    made of seki's shared liberties, and each of the mover's chains is unconditionally
    alive, or in seki with an eye: its liberties are shared liberties of a seki and at
    least one eye of one point inside the mover's stones (the opponent's stone there is
    suicide). A seki without an eye is not enough: where the chain shares its liberties
    with a small one, the opponent sacrifices it, throws in again where it was taken,
    and the chain, left with one small eye space, is taken.
    What is left to play is then seki or one side's area, and no stone of the mover's
    can be taken, whatever the opponent plays (in seki, if the mover takes the chain
    that fills a shared liberty). False does not mean a group is lost: one with a
    single large eye space is alive in play, but not unconditionally.

    Args:
      board: int [size * size] of +1 (the mover), -1 and 0.
      size: the board's side.
      near: each point's neighbours.
    """
    points = np.asarray(board).reshape(size, size)
    mine, theirs, empty = points > 0, points < 0, points == 0
    if not mine.any():
        return False
    # Quick refusal, the middle game's case: a point touching both colours with two empty
    # neighbours is no shared liberty of a seki (a stone there keeps two liberties).
    shared = (held_around(mine, False) > 0) & (held_around(theirs, False) > 0) & empty
    if (shared & (held_around(empty, False) >= 2)).any():
        return False
    cells = points.reshape(-1).tolist()
    index, found = chains(cells, near)
    seki: set[int] = set()
    for region, borders in regions(cells, near):
        if len(borders) == 2:
            if not all(seki_point(cells, near, index, found, p) for p in region):
                return False  # a boundary still open, or a point to fill (dame)
            seki |= region
    alive = _alive(cells, near, 1, index, found)
    for k, (colour, _, liberties) in enumerate(found):
        if colour != 1 or k in alive:
            continue
        eyes = liberties - seki
        if not eyes or not liberties & seki:
            return False
        if any(cells[n] != 1 for p in eyes for n in near[p]):
            return False  # a liberty in a larger eye space: not sure to stay one
    return True
