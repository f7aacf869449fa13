"""What a Go player sees beyond the stones: the liberty planes and its own true eyes.

The observation planes of `boardq_games.go.rules` (built there and in the batched games of
`boardq_games.go.vector` and `boardq_games.go.env`) and the eyes that `--prune-moves`
leaves unfilled (`boardq.pruning`).
"""

from __future__ import annotations

import numpy as np

__all__ = ["PLANES", "fill_liberty_planes", "held_around", "own_eyes"]

PLANES = 8
"""Planes of an observation: the mover's stones, the opponent's, ones if the mover is
white, ones if the last move was a pass; then the mover's stones whose group has one
liberty (in atari), two liberties, and the opponent's with one, two.

A small network sees a few points around each point; a group's liberties are a count
over the whole group, which it cannot make, and on which life and capture turn (the
liberty planes of Maddison et al. 2014 and AlphaGo's inputs)."""


def fill_liberty_planes(
    planes: np.ndarray, mine: np.ndarray, theirs: np.ndarray, liberties: np.ndarray
) -> None:
    """Writes planes 4-7 of `planes` [..., N, N, PLANES] from the stones and liberties.

    Args:
      planes: the observation planes (batched or not), written in place.
      mine: bool [..., N, N]: the mover's stones.
      theirs: bool [..., N, N]: the opponent's stones.
      liberties: int [..., N, N]: the liberties of the group of the stone on each point
        (anything on an empty point).
    """
    one, two = liberties == 1, liberties == 2
    planes[..., 4] = mine & one
    planes[..., 5] = mine & two
    planes[..., 6] = theirs & one
    planes[..., 7] = theirs & two


def held_around(held: np.ndarray, off_board: bool) -> np.ndarray:
    """Int8 [..., N, N]: how many of each point's four neighbours are held.

    Args:
        held: bool [..., N, N].
        off_board: whether a side off the board counts as held.
    """
    held = np.asarray(held, bool)
    *lead, n, m = held.shape
    wide = np.full((*lead, n + 2, m + 2), off_board, np.int8)
    wide[..., 1:-1, 1:-1] = held
    return wide[..., :-2, 1:-1] + wide[..., 2:, 1:-1] + wide[..., 1:-1, :-2] + wide[..., 1:-1, 2:]


def own_eyes(planes: np.ndarray) -> np.ndarray:
    """Bool [..., N * N + 1]: the points of planes [..., N, N, C] that are the mover's true eyes.

    An eye is an empty point whose neighbours on the board are all the mover's stones; it
    is a true one (not false) when the opponent holds at most one of its diagonal
    points in the middle of the board, and none on the edge or in the corner (the rule
    of Monte Carlo Go programs since MoGo). Filling one's own true eye never helps
    and, in a group with two, kills it; the pass (the last entry) is never an eye.
    """
    planes = np.asarray(planes)
    mine, theirs = planes[..., 0] != 0, planes[..., 1] != 0
    *lead, n, _ = mine.shape
    sides = held_around(mine, True) == 4  # off the board counts as the mover's
    held = np.zeros((*lead, n + 2, n + 2), np.int8)
    held[..., 1:-1, 1:-1] = theirs
    corners = held[..., :-2, :-2] + held[..., :-2, 2:] + held[..., 2:, :-2] + held[..., 2:, 2:]
    edge = np.zeros((n, n), bool)
    edge[[0, -1], :] = edge[:, [0, -1]] = True
    allowed = np.where(edge, 0, 1)
    eyes = ~mine & ~theirs & sides & (corners <= allowed)
    out = np.zeros((*lead, n * n + 1), bool)
    out[..., : n * n] = eyes.reshape(*lead, n * n)
    return out
