"""Go's count and settled boards (games/go/count.py): known boards, and random ones
where the quick look at single points must agree with walking the regions."""

from __future__ import annotations

import numpy as np
import pytest

from boardq_games.go.count import regions, settled
from boardq_games.go.rules import GoRules

RULES = GoRules(9, 7.5)


def board(rows: list[str]) -> np.ndarray:
    """A 9x9 board from text: X black, O white, . empty."""
    return np.array([{"X": 1, "O": -1, ".": 0}[c] for row in rows for c in row], np.int16)


WALLS = ["..XO....."] * 9  # black holds A-C, white D-J
SETTLED = {
    "two walls": (WALLS, True),
    "a stone inside the other's area": (WALLS[:4] + ["..XO..X.."] + WALLS[5:], False),
    "a gap in the walls": (["..X.O...."] + ["..XO....."] * 8, False),
    # The empty B-F touches black on A and white on G, but none of its points touches
    # both: only walking the region finds it open.
    "an open region no point of which touches both": (["X.....O.."] * 9, False),
    "one colour alone": (["..X......"] * 9, False),
    "the empty board": (["........."] * 9, False),
    "black's two eyes in a corner of white's area": (
        [".X.XO...."] + ["XXXXO...."] + ["OOOOO...."] * 7,
        True,
    ),
}


@pytest.mark.parametrize("name", list(SETTLED))
def test_a_board_is_settled_when_no_empty_region_touches_both_colours(name):
    rows, expected = SETTLED[name]
    cells = board(rows)
    assert settled(cells, 9, RULES._near) == expected
    assert settled(-cells, 9, RULES._near) == expected  # the same for either mover


def test_the_rules_look_at_the_points_of_a_position():
    position = RULES.start()
    position[:81] = board(WALLS)
    assert RULES.settled(position)
    position[:81] = board(SETTLED["a gap in the walls"][0])
    assert not RULES.settled(position)


def test_the_quick_look_agrees_with_walking_every_region():
    """Random walled boards, some with a few points changed: settled or not."""
    rng = np.random.default_rng(0)
    seen = {True: 0, False: 0}
    for k in range(600):
        wall = rng.integers(0, 8)  # black's wall on this column, white's on the next
        fill = rng.uniform(0.0, 0.8)
        side = np.where(np.arange(81) % 9 <= wall, 1, -1)
        cells = np.where(rng.random(81) < fill, side, 0)
        cells[np.arange(81) % 9 == wall] = 1
        cells[np.arange(81) % 9 == wall + 1] = -1
        changed = rng.choice(81, rng.integers(0, 4), replace=False)
        cells[changed] = rng.choice([1, -1, 0], len(changed))
        cells = cells.astype(np.int16)
        walked = (
            (cells == 1).any()
            and (cells == -1).any()
            and all(len(b) == 1 for _, b in regions(cells.tolist(), RULES._near))
        )
        assert settled(cells, 9, RULES._near) == walked, k
        seen[bool(walked)] += 1
    assert min(seen.values()) >= 100, seen  # both answers were tried


def test_the_count_is_unchanged_by_the_move_of_the_regions_into_their_module():
    # Black A-C (27), white D-J (54) and komi 7.5.
    assert RULES.area_margin(board(WALLS)) == 27 - 54 - 7.5
    # The open B-F counts for nobody; H-J is white's.
    assert RULES.area_margin(board(["X.....O.."] * 9)) == 9 - 27 - 7.5


def test_each_points_owner_on_a_finished_board_checked_by_hand():
    """Black A-C and a stone at G5 in white's area; white on D. The stone counts (no stone
    is dead in this count), so the empty E-J touches both colours: dame."""
    rows = WALLS[:4] + ["..XO..X.."] + WALLS[5:]
    owners = RULES.area_owners(board(rows)).reshape(9, 9)
    assert owners[0, 0] == owners[8, 1] == 1  # black's empty A and B
    assert owners[0, 2] == owners[4, 6] == 1  # black's stones, G5's too
    assert owners[0, 3] == owners[8, 3] == -1  # white's stones on D
    assert owners[0, 4] == owners[4, 5] == owners[8, 8] == 0  # dame
    assert (owners[:, :3] == 1).all() and (owners[:, 3] == -1).all()
    assert owners.sum() == 28 - 9 == RULES.area_margin(board(rows)) + 7.5
    # Walls: A-C black's, D-J white's; an open region between the colours is dame.
    walls = RULES.area_owners(board(WALLS)).reshape(9, 9)
    assert (walls[:, :3] == 1).all() and (walls[:, 3:] == -1).all()
    open_middle = RULES.area_owners(board(["X.....O.."] * 9)).reshape(9, 9)
    assert (open_middle[:, 0] == 1).all() and (open_middle[:, 1:6] == 0).all()
    assert (open_middle[:, 6:] == -1).all()
