"""Go's life (games/go/life.py): Benson's unconditional life, seki, and where the mover
may pass, on known boards."""

from __future__ import annotations

import numpy as np
import pytest

from boardq_games.go import fast_life
from boardq_games.go.life import safe_to_pass, unconditionally_alive
from boardq_games.go.rules import GoRules


def cells(rows: list[str]) -> np.ndarray:
    """A board from text: X the mover, O the opponent, . empty."""
    return np.array([{"X": 1, "O": -1, ".": 0}[c] for row in rows for c in row], np.int16)


def alive(rows: list[str], colour: int = 1) -> set[tuple[int, int]]:
    size = len(rows)
    near = GoRules(size, 7.5)._near
    return {divmod(p, size) for p in unconditionally_alive(cells(rows).tolist(), near, colour)}


def stones(rows: list[str], mark: str = "X") -> set[tuple[int, int]]:
    return {(r, c) for r, row in enumerate(rows) for c, x in enumerate(row) if x == mark}


def safe(rows: list[str]) -> bool:
    size = len(rows)
    return safe_to_pass(cells(rows), size, GoRules(size, 7.5)._near)


# X's corner group in O's area: two true eyes, then the same with the eye at C9 false
# (O's stone at D8 puts X's D9 in atari; O takes it on C9 and the eye is gone).
TWO_EYES = [".X.XO....", "XXXXO....", *["OOOOO...."] * 7]
FALSE_EYE = [".X.XO....", "XXXOO....", *["OOOOO...."] * 7]
# Two chains, cut apart at C7 but joined diagonally, that share both eyes (A9, B8):
# each has two vital regions.
SHARED_EYES = [".XXO.....", "X.XO.....", "XXOO.....", "OOO......", *["........."] * 5]
# A wall with two columns of area behind it: alive in play, not unconditionally (the
# empty A column is not a liberty of the wall, so its region is vital to nothing).
WALLS = ["..XO....."] * 9
# O's stone dead inside one of X's eyes: the eye is still vital (its empty points are
# all liberties of X's chain).
STONE_IN_EYE = ["O.X.XO...", ".XX.XO...", "XXXXXO...", "OOOOOO...", *["........."] * 5]


@pytest.mark.parametrize(
    "rows, expected",
    [
        (TWO_EYES, stones(TWO_EYES)),
        (FALSE_EYE, set()),
        (SHARED_EYES, stones(SHARED_EYES)),
        (WALLS, set()),
        (STONE_IN_EYE, stones(STONE_IN_EYE)),
        (["........."] * 9, set()),
    ],
    ids=["two-eyes", "false-eye", "shared-eyes", "walls", "stone-in-eye", "empty"],
)
def test_bensons_unconditionally_alive_chains(rows, expected):
    assert alive(rows) == expected


def test_the_other_colour_is_judged_alike():
    flipped = [row.replace("X", "o").replace("O", "X").replace("o", "O") for row in TWO_EYES]
    assert alive(flipped, -1) == stones(TWO_EYES)
    assert alive(TWO_EYES, -1) == set()  # O's area is open: X could live in it


# A seki on 5x5: X's chain (eye A5) and O's (eye E5) share the liberty C3; a stone there
# puts its own chain in atari, so neither fills it.
SEKI = [".XXO.", "XXXOO", "XX.OO", "XXXOO", "XXXOO"]
# The same, but O's chain has two liberties of its own: X's filling C3 is answered by
# O's taking X; X is not in seki but dead.
NO_SEKI = [".XXO.", "XXXO.", "XX.OO", "XXXOO", "XXXOO"]
# From a game against GNU Go: X's chain at the top right shares H9 and J8 with O's stone
# on J9 and has no eye. Neither side fills a liberty without putting its own chain in
# atari, but O's stone is a sacrifice: O plays H9, X takes two stones on J8, O throws
# in on H9 again, and X's chain, left with a two-point eye space, is taken.
THROW_IN = [
    "O.OOOXX.O",
    "OOO.OOXX.",
    "XXOOXXOXX",
    "X.XXXOOOO",
    "XXXXXXXOO",
    "..XX.XXO.",
    "XXXXXOXOO",
    "XOOXOOOOO",
    "XOOOOOO.O",
]


@pytest.mark.parametrize(
    "rows, expected",
    [
        (TWO_EYES, True),
        (FALSE_EYE, False),  # settled, but a group the opponent can still take
        (SHARED_EYES, True),
        (WALLS, False),
        (STONE_IN_EYE, False),  # O's stone is to be taken first
        (SEKI, True),
        (NO_SEKI, False),
        (THROW_IN, False),  # no eye of its own: a seki only while no one sacrifices
        (["X........"] + ["........."] * 8, False),  # an open board
        (["........."] * 9, False),
    ],
    ids=[
        "two-eyes",
        "false-eye",
        "shared-eyes",
        "walls",
        "stone-in-eye",
        "seki",
        "no-seki",
        "throw-in",
        "one-stone",
        "empty",
    ],
)
def test_the_mover_may_pass_where_its_groups_are_safe(rows, expected):
    assert safe(rows) == expected
    # The compiled tree's twin (games/go/fast_life.py) judges every named board alike.
    assert fast_life.safe_to_pass(cells(rows).astype(np.int16), len(rows)) == expected


def test_seki_is_safe_for_either_mover_and_a_dead_group_for_neither():
    def flip(rows):
        return [row.replace("X", "o").replace("O", "X").replace("o", "O") for row in rows]

    assert safe(flip(SEKI))
    assert not safe(flip(FALSE_EYE))  # O's open area: O's chains are not all alive


def test_the_rules_look_at_the_points_of_a_position():
    rules = GoRules(9, 7.5)
    position = rules.start()
    position[:81] = cells(TWO_EYES)
    assert rules.safe_to_pass(position)
    position[:81] = cells(FALSE_EYE)
    assert rules.settled(position) and not rules.safe_to_pass(position)


def test_unconditionally_alive_stones_outlive_any_play_while_their_owner_passes():
    """Random 5x5 positions; the opponent plays random moves, the mover only passes."""
    rules = GoRules(5, 0.5)
    rng = np.random.default_rng(1)
    checked = 0
    for _ in range(400):
        position = rules.start()
        for _ in range(rng.integers(20, 80)):
            legal = np.flatnonzero(rules.legal_mask(position)[:-1])
            if len(legal) == 0:
                break
            position = rules.apply(position, int(rng.choice(legal)))
        found = unconditionally_alive(position[:25].tolist(), rules._near, 1)
        if not found:
            continue
        checked += 1
        for _ in range(40):
            position = rules.apply(position, rules.pass_action)
            legal = np.flatnonzero(rules.legal_mask(position)[:-1])
            if len(legal) == 0:
                break
            position = rules.apply(position, int(rng.choice(legal)))
            assert all(position[p] == 1 for p in found)
    assert checked >= 20, checked
