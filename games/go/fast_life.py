"""Whether the mover may pass in Go, compiled (numba): `boardq_games.go.life.safe_to_pass`.

The same rules as the plain module (Benson's unconditional life, seki's shared
liberties, the quick refusal of the middle game), on the points of a position (+1 the
mover), for the compiled tree's legal moves (`boardq_games.go.fast.legal`). A chain's
liberties are a row of a bool matrix [chains, points]. The tests hold it equal to the
plain function on positions of random play and on finished boards.
"""

from __future__ import annotations

import numba as nb
import numpy as np

__all__ = ["safe_to_pass"]

_SIDES = ((-1, 0), (1, 0), (0, -1), (0, 1))


@nb.njit(cache=True)
def _near(point, size, out):
    """Writes the on-board neighbours of `point` into `out`; returns how many."""
    row, col, k = point // size, point % size, 0
    for dr, dc in _SIDES:
        r, c = row + dr, col + dc
        if 0 <= r < size and 0 <= c < size:
            out[k] = r * size + c
            k += 1
    return k


@nb.njit(cache=True)
def _chains(cells, size):
    """Each point's chain (-1 empty), each chain's colour and liberties, the chains."""
    points = size * size
    index = np.full(points, -1, np.int64)
    colour = np.zeros(points, np.int64)
    libs = np.zeros((points, points), np.bool_)
    stack = np.empty(points, np.int64)
    near = np.empty(4, np.int64)
    k = 0
    for start in range(points):
        if cells[start] == 0 or index[start] >= 0:
            continue
        index[start], colour[k], stack[0], top = k, cells[start], start, 1
        while top > 0:
            top -= 1
            for i in range(_near(stack[top], size, near)):
                n = near[i]
                if cells[n] == 0:
                    libs[k, n] = True
                elif cells[n] == cells[start] and index[n] < 0:
                    index[n] = k
                    stack[top] = n
                    top += 1
        k += 1
    return index, colour, libs, k


@nb.njit(cache=True)
def _alive(cells, size, side, index, colour, libs, k):
    """Bool [chains]: `side`'s unconditionally alive chains (Benson's algorithm)."""
    points = size * size
    seen = np.zeros(points, np.bool_)
    vital = np.zeros((points, k), np.bool_)
    around = np.zeros((points, k), np.bool_)
    region = np.empty(points, np.int64)
    empty = np.empty(points, np.int64)
    near = np.empty(4, np.int64)
    regions = 0
    for start in range(points):
        if cells[start] == side or seen[start]:
            continue
        seen[start], region[0], top, size_empty = True, start, 1, 0
        while top > 0:
            top -= 1
            point = region[top]
            if cells[point] == 0:
                empty[size_empty] = point
                size_empty += 1
            for i in range(_near(point, size, near)):
                n = near[i]
                if cells[n] == side:
                    around[regions, index[n]] = True
                elif not seen[n]:
                    seen[n] = True
                    region[top] = n
                    top += 1
        for c in range(k):
            if around[regions, c]:
                whole = True
                for j in range(size_empty):
                    whole &= libs[c, empty[j]]
                vital[regions, c] = whole
        regions += 1
    alive = np.zeros(k, np.bool_)
    for c in range(k):
        alive[c] = colour[c] == side
    kept = np.ones(regions, np.bool_)
    while True:
        dead = False
        for c in range(k):
            if alive[c]:
                count = 0
                for r in range(regions):
                    count += kept[r] and vital[r, c]
                if count < 2:
                    alive[c], dead = False, True
        if not dead:
            return alive
        for r in range(regions):
            if kept[r]:
                for c in range(k):
                    if around[r, c] and not alive[c]:
                        kept[r] = False
                        break


@nb.njit(cache=True)
def _self_atari(cells, size, index, libs, point, side, union):
    """Whether `side`'s stone on the empty `point` captures nothing and keeps <= 1 liberty."""
    near = np.empty(4, np.int64)
    union[:] = False
    for i in range(_near(point, size, near)):
        n = near[i]
        if cells[n] == 0:
            union[n] = True
        elif cells[n] == side:
            union |= libs[index[n]]
        elif libs[index[n]].sum() == 1 and libs[index[n], point]:
            return False  # it captures
    union[point] = False
    return union.sum() <= 1


@nb.njit(cache=True)
def _seki_point(cells, size, index, libs, point, union):
    near = np.empty(4, np.int64)
    mine = theirs = False
    for i in range(_near(point, size, near)):
        mine |= cells[near[i]] == 1
        theirs |= cells[near[i]] == -1
    return (
        mine
        and theirs
        and _self_atari(cells, size, index, libs, point, 1, union)
        and _self_atari(cells, size, index, libs, point, -1, union)
    )


@nb.njit(cache=True)
def safe_to_pass(cells, size):
    """`life.safe_to_pass` of the points `cells` (+1 the mover): no chain of its can be taken."""
    points = size * size
    near = np.empty(4, np.int64)
    has_mine = False
    for p in range(points):
        has_mine |= cells[p] == 1
    if not has_mine:
        return False
    for p in range(points):  # the quick refusal: a point between the colours, room around
        if cells[p] != 0:
            continue
        mine = theirs = False
        empties = 0
        for i in range(_near(p, size, near)):
            v = cells[near[i]]
            mine |= v > 0
            theirs |= v < 0
            empties += v == 0
        if mine and theirs and empties >= 2:
            return False
    index, colour, libs, k = _chains(cells, size)
    seki = np.zeros(points, np.bool_)
    seen = np.zeros(points, np.bool_)
    region = np.empty(points, np.int64)
    union = np.zeros(points, np.bool_)
    for start in range(points):
        if cells[start] != 0 or seen[start]:
            continue
        seen[start], region[0], top, borders = True, start, 1, 0
        while top > 0:
            top -= 1
            for i in range(_near(region[top], size, near)):  # `near` read before pushing
                n = near[i]
                if cells[n] == 0:
                    if not seen[n]:
                        seen[n] = True
                        region[top] = n
                        top += 1
                else:
                    borders |= 1 if cells[n] > 0 else 2
        if borders == 3:
            if not _region_seki(cells, size, index, libs, start, union, seki):
                return False  # a boundary still open, or a point to fill (dame)
    alive = _alive(cells, size, 1, index, colour, libs, k)
    for c in range(k):
        if colour[c] != 1 or alive[c]:
            continue
        touches_seki = has_eye = False
        for p in range(points):
            if not libs[c, p]:
                continue
            if seki[p]:
                touches_seki = True
                continue
            has_eye = True  # a liberty not shared: an eye, if one point inside its stones
            for i in range(_near(p, size, near)):
                if cells[near[i]] != 1:
                    return False  # a liberty in a larger eye space: not sure to stay one
        if not (touches_seki and has_eye):
            return False  # a seki without an eye of its own can be thrown in and taken
    return True


@nb.njit(cache=True)
def _region_seki(cells, size, index, libs, start, union, seki):
    """Whether every point of the empty region at `start` is a seki's shared liberty.

    Marks them in `seki` if so.
    """
    points = size * size
    near = np.empty(4, np.int64)
    inside = np.zeros(points, np.bool_)
    stack = np.empty(points, np.int64)
    inside[start], stack[0], top = True, start, 1
    while top > 0:
        top -= 1
        for i in range(_near(stack[top], size, near)):
            n = near[i]
            if cells[n] == 0 and not inside[n]:
                inside[n] = True
                stack[top] = n
                top += 1
    for p in range(points):
        if inside[p] and not _seki_point(cells, size, index, libs, p, union):
            return False
    for p in range(points):
        if inside[p]:
            seki[p] = True
    return True
