"""Go's rules compiled (numba), for the tree search's compiled path.

The same rules as `boardq_games.go.rules` (go-v5's: captures, no suicide, simple ko,
two passes end the game, Tromp-Taylor area with komi, a tie white's) on the same
position, int16 [N * N + 3]: the points, the mover's colour, the passes in a row, the
ko point. Besides the rules, the moves the tree search is given: with `prune`, the
mover's own true eyes left out (`boardq_games.go.planes.own_eyes`); with `pass_to_end`,
the pass kept only where it is forced, ends the game, or no chain of the mover's can be
taken (`boardq.search.passing`, `boardq_games.go.fast_life`). The tests hold each
function equal to the plain one on random positions.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from boardq_games.go.fast_life import safe_to_pass

__all__ = ["apply", "end_value", "legal", "planes"]

_SIDES = ((-1, 0), (1, 0), (0, -1), (0, 1))
_CORNERS = ((-1, -1), (-1, 1), (1, -1), (1, 1))
_MET_EMPTY = 1 << 1
"""`_flood`'s bit of an empty neighbour."""


@nb.njit(cache=True)
def _flood(cells, start, size, seen, found):
    """The points of `start`'s colour joined to it, and the values met around them.

    Writes the points into `found` (`start` first) and marks them in `seen`, whose
    marked points it does not enter; returns how many, and a bit `1 << (v + 1)` set for
    each value `v` of a neighbour not of that colour (`_MET_EMPTY`: a liberty, for a
    group of stones; a stone's colour, for an empty region).
    """
    colour = cells[start]
    found[0] = start
    seen[start] = True
    count, head, met = 1, 0, 0
    while head < count:
        point = found[head]
        head += 1
        row, col = point // size, point % size
        for dr, dc in _SIDES:
            r, c = row + dr, col + dc
            if 0 <= r < size and 0 <= c < size:
                n = r * size + c
                if cells[n] != colour:
                    met |= 1 << (cells[n] + 1)
                elif not seen[n]:
                    seen[n] = True
                    found[count] = n
                    count += 1
    return count, met


@nb.njit(cache=True)
def _walk(cells, start, size, stones):
    """The stones of the group at `start` and whether it has a liberty."""
    count, met = _flood(cells, start, size, np.zeros(size * size, np.bool_), stones)
    return count, (met & _MET_EMPTY) != 0


@nb.njit(cache=True)
def _base_legal(pos, size, mask):
    """`GoRules.legal_mask`: empty points not suicide nor the ko point, and the pass."""
    points = size * size
    mask[:] = False
    mask[points] = True
    if pos[points + 1] >= 2:
        return
    cells = pos[:points].copy()
    stones = np.empty(points, np.int64)
    for p in range(points):
        if cells[p] != 0:
            continue
        row, col = p // size, p % size
        held = 0
        for dr, dc in _SIDES:
            r, c = row + dr, col + dc
            if not (0 <= r < size and 0 <= c < size) or cells[r * size + c] != 0:
                held += 1
        if held < 4:
            mask[p] = True
            continue
        cells[p] = 1  # the stone, as placed, while the groups around it are looked at
        ok = False
        for dr, dc in _SIDES:
            r, c = row + dr, col + dc
            if 0 <= r < size and 0 <= c < size:
                n = r * size + c
                _, free = _walk(cells, n, size, stones)
                if free == (cells[n] == 1):
                    ok = True
                    break
        cells[p] = 0
        mask[p] = ok
    if pos[points + 2] >= 0:
        mask[pos[points + 2]] = False


@nb.njit(cache=True)
def _own_eye(pos, size, p):
    """`own_eyes` of one point: empty, the mover's on every side, few corners not."""
    if pos[p] != 0:
        return False
    row, col = p // size, p % size
    for dr, dc in _SIDES:
        r, c = row + dr, col + dc
        if 0 <= r < size and 0 <= c < size and pos[r * size + c] != 1:
            return False
    theirs = 0
    for dr, dc in _CORNERS:
        r, c = row + dr, col + dc
        if 0 <= r < size and 0 <= c < size and pos[r * size + c] == -1:
            theirs += 1
    edge = row == 0 or col == 0 or row == size - 1 or col == size - 1
    return theirs <= (0 if edge else 1)


@nb.njit(cache=True)
def legal(pos, size, prune, pass_to_end, mask):
    """Fills bool `mask` [N * N + 1] with the moves the tree searches (see the module).

    Returns whether a legal move (the pass) was left out (`PassToEnd.searched_moves`).
    """
    points = size * size
    _base_legal(pos, size, mask)
    if prune:
        for p in range(points):
            if mask[p] and _own_eye(pos, size, p):
                mask[p] = False
    if not pass_to_end or not mask[points]:
        return False
    count = 0
    for a in range(points + 1):
        count += mask[a]
    if count == 1 or pos[points + 1] == 1 or safe_to_pass(pos[:points], size):
        return False  # forced, ending the game (the opponent passed), or nothing to lose
    mask[points] = False
    return True


@nb.njit(cache=True)
def apply(pos, size, action, out):
    """Writes into `out` the position after the mover's legal `action`, seen by the next."""
    points = size * size
    out[points] = 1 - pos[points]
    out[points + 2] = -1
    if action == points:
        out[points + 1] = pos[points + 1] + 1
        for p in range(points):
            out[p] = -pos[p]
        return
    cells = pos[:points].copy()
    row, col = action // size, action % size
    koish = True
    for dr, dc in _SIDES:
        r, c = row + dr, col + dc
        if 0 <= r < size and 0 <= c < size and cells[r * size + c] != -1:
            koish = False
    cells[action] = 1
    stones = np.empty(points, np.int64)
    captured, last = 0, -1
    for dr, dc in _SIDES:
        r, c = row + dr, col + dc
        if 0 <= r < size and 0 <= c < size and cells[r * size + c] == -1:
            count, free = _walk(cells, r * size + c, size, stones)
            if not free:
                for i in range(count):
                    cells[stones[i]] = 0
                captured += count
                last = stones[0]
    if koish and captured == 1:
        out[points + 2] = last
    out[points + 1] = 0
    for p in range(points):
        out[p] = -cells[p]


@nb.njit(cache=True)
def _area_margin(pos, size, black):
    """Black's area minus white's (Tromp-Taylor), `black` the sign of black's stones."""
    points = size * size
    margin = 0
    for p in range(points):
        margin += pos[p] * black
    seen = np.zeros(points, np.bool_)
    region = np.empty(points, np.int64)
    for start in range(points):
        if pos[start] != 0 or seen[start]:
            continue
        count, met = _flood(pos, start, size, seen, region)
        blacks, whites = (met & (1 << (black + 1))) != 0, (met & (1 << (1 - black))) != 0
        if blacks != whites:  # the region touches one colour alone: its area
            margin += count if blacks else -count
    return margin


@nb.njit(cache=True)
def end_value(pos, size, komi):
    """The exact value of the move that led to `pos` for its mover, or NaN: play goes on."""
    points = size * size
    if pos[points + 1] < 2:
        return math.nan
    mover_black = pos[points] == 0
    black = 1 if mover_black else -1
    black_won = _area_margin(pos, size, black) - komi > 0
    winner = 1 if black_won == mover_black else -1
    return float(-winner)


@nb.njit(cache=True)
def planes(pos, size, out):
    """Writes the mover's planes, int8 (N, N, 8) flattened, into `out`."""
    points = size * size
    colour, passed = pos[points], pos[points + 1] > 0
    liberties = np.zeros(points, np.int64)
    stones = np.empty(points, np.int64)
    mark = np.full(points, -1, np.int64)
    for p in range(points):
        if pos[p] == 0 or liberties[p] > 0:
            continue
        count, _ = _walk(pos, p, size, stones)
        free = 0
        for i in range(count):
            row, col = stones[i] // size, stones[i] % size
            for dr, dc in _SIDES:
                r, c = row + dr, col + dc
                if 0 <= r < size and 0 <= c < size:
                    n = r * size + c
                    if pos[n] == 0 and mark[n] != p:
                        mark[n] = p
                        free += 1
        for i in range(count):
            liberties[stones[i]] = free
    for p in range(points):
        mine, theirs, k = pos[p] == 1, pos[p] == -1, liberties[p]
        o = 8 * p
        out[o], out[o + 1], out[o + 2], out[o + 3] = mine, theirs, colour, passed
        out[o + 4], out[o + 5] = mine and k == 1, mine and k == 2
        out[o + 6], out[o + 7] = theirs and k == 1, theirs and k == 2
