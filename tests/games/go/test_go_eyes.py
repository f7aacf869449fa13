"""Go's true eyes: the moves `prune_moves` leaves out."""

from __future__ import annotations

import numpy as np
import pytest

from boardq_games.go.planes import PLANES, own_eyes


def planes_of(rows: list[str]) -> np.ndarray:
    """Planes of a 9x9 board drawn as text: X the mover's stones, O the opponent's."""
    planes = np.zeros((9, 9, PLANES), np.int8)
    for r, row in enumerate(rows):
        for c, cell in enumerate(row.split()):
            planes[r, c, 0] = cell == "X"
            planes[r, c, 1] = cell == "O"
    return planes


EMPTY_ROW = ". . . . . . . . ."


def eyes_at(rows: list[str]) -> set[tuple[int, int]]:
    eyes = own_eyes(planes_of(rows))
    assert eyes.shape == (82,) and not eyes[81]  # the pass is never an eye
    return {divmod(int(p), 9) for p in np.flatnonzero(eyes)}


def board(*rows: str) -> list[str]:
    return list(rows) + [EMPTY_ROW] * (9 - len(rows))


@pytest.mark.parametrize(
    "rows, eyes",
    [
        # A corner eye; the opponent's stone on its one diagonal makes it false.
        (board(". X", "X X"), {(0, 0)}),
        (board(". X", "X O"), set()),
        # An edge eye: no opponent's diagonal allowed there.
        (board("X . X", "X X X"), {(0, 1)}),
        (board("X . X", "X X O"), set()),
        # In the middle one opponent's diagonal is allowed, two make it false.
        (board(EMPTY_ROW, ". O X . .", ". X . X .", ". X X X ."), {(2, 2)}),
        (board(EMPTY_ROW, ". O X O .", ". X . X .", ". X X X ."), set()),
        # An empty point with an empty or opponent's neighbour is no eye.
        (board(EMPTY_ROW, ". X X X .", ". X . . .", ". X X X ."), set()),
        (board(EMPTY_ROW, ". X X X .", ". X . O .", ". X X X ."), set()),
        # The opponent's eyes are not the mover's.
        (board(". O", "O O"), set()),
    ],
)
def test_true_eyes_of_the_mover(rows, eyes):
    assert eyes_at(rows) == eyes


def test_a_batch_is_looked_at_position_by_position():
    one, two = planes_of(board(". X", "X X")), planes_of(board("X . X", "X X X"))
    eyes = own_eyes(np.stack([one, two, np.zeros_like(one)]))
    assert eyes.shape == (3, 82)
    assert [set(np.flatnonzero(e)) for e in eyes] == [{0}, {1}, set()]
