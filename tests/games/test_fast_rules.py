"""The games' compiled rules (`boardq_games.*.fast`) equal the plain rules on random positions.

Positions of seeded random play; on each, the legal moves, the planes, every legal
move's result and the end of the game (`tree_node.end_value`) by both.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from boardq.pruning import PrunedRules
from boardq.search.passing import PassToEnd
from boardq.search.tree_node import end_value
from boardq_games.connect_four import fast as c4_fast
from boardq_games.connect_four.rules import RULES as C4
from boardq_games.go import fast as go_fast
from boardq_games.go import fast_life
from boardq_games.go.planes import own_eyes
from boardq_games.go.rules import GoRules
from boardq_games.hex import fast as hex_fast
from boardq_games.hex.rules import HexRules
from boardq_games.othello import fast as othello_fast
from boardq_games.othello.rules import RULES as OTHELLO

GO = GoRules(9, 7.5)
GO5 = GoRules(5, 0.5)  # a small board: captures, ko, suicide and ends come often
HEX = HexRules(7)


def positions(rules, start, count: int, seed: int):
    """`count` positions of random play from `start`, games ended included."""
    rng = np.random.default_rng(seed)
    found, board = [], start
    while len(found) < count:
        found.append(board)
        legal = np.flatnonzero(rules.legal_mask(board))
        if end_value(rules, board) is not None or len(legal) == 0:
            board = start
            continue
        board = rules.apply(board, int(rng.choice(legal)))
    return found


# game: (plain rules, start, compiled functions taking (pos, ...) as the tree does)
GAMES = {
    "connect_four": (
        C4,
        np.zeros((6, 7), np.int8),
        lambda pos, mask: c4_fast.legal(pos, mask),
        lambda pos, a, out: c4_fast.apply(pos, a, out),
        c4_fast.end_value,
        c4_fast.planes,
    ),
    "othello": (
        OTHELLO,
        OTHELLO.start(),
        othello_fast.legal,
        othello_fast.apply,
        othello_fast.end_value,
        othello_fast.planes,
    ),
    "hex": (
        HEX,
        HEX.start(),
        lambda pos, mask: hex_fast.legal(pos, 7, mask),
        lambda pos, a, out: hex_fast.apply(pos, 7, a, out),
        lambda pos: hex_fast.end_value(pos, 7),
        lambda pos, out: hex_fast.planes(pos, 7, out),
    ),
    "go": (
        GO,
        GO.start(),
        lambda pos, mask: go_fast.legal(pos, 9, False, False, mask),
        lambda pos, a, out: go_fast.apply(pos, 9, a, out),
        lambda pos: go_fast.end_value(pos, 9, 7.5),
        lambda pos, out: go_fast.planes(pos, 9, out),
    ),
    "go5": (
        GO5,
        GO5.start(),
        lambda pos, mask: go_fast.legal(pos, 5, False, False, mask),
        lambda pos, a, out: go_fast.apply(pos, 5, a, out),
        lambda pos: go_fast.end_value(pos, 5, 0.5),
        lambda pos, out: go_fast.planes(pos, 5, out),
    ),
}


@pytest.mark.parametrize("name", sorted(GAMES))
def test_compiled_rules_equal_the_plain_rules(name):
    rules, start, legal, apply, end, planes = GAMES[name]
    moves = ends = 0
    for board in positions(rules, start, 300, seed=len(name)):
        pos = np.asarray(board, np.int16).reshape(-1)
        mask = np.zeros(rules.num_actions, bool)
        legal(pos, mask)
        np.testing.assert_array_equal(mask, rules.legal_mask(board))
        want = rules.planes_from_board(board)
        got = np.zeros(want.size, np.int8)
        planes(pos, got)
        np.testing.assert_array_equal(got.reshape(want.shape), want)
        value = end(pos)
        expected = end_value(rules, board)
        assert (expected is None and math.isnan(value)) or value == expected
        ends += expected is not None
        if expected is not None:
            continue
        for action in np.flatnonzero(mask):
            out = np.zeros_like(pos)
            apply(pos, int(action), out)
            after = rules.apply(board, int(action))
            np.testing.assert_array_equal(out, np.asarray(after, np.int16).reshape(-1))
            moves += 1
    assert moves > 1000 and ends > 0  # the positions reached ended games too


def test_go_pruned_legal_moves_leave_out_the_own_true_eyes_as_the_plain_pruning():
    pruned = PrunedRules(GO5, own_eyes)
    left_out = 0
    for board in positions(GO5, GO5.start(), 400, seed=3):
        mask = np.zeros(GO5.num_actions, bool)
        go_fast.legal(np.asarray(board, np.int16), 5, True, False, mask)
        np.testing.assert_array_equal(mask, pruned.legal_mask(board))
        left_out += int((GO5.legal_mask(board) & ~mask).sum())
    assert left_out > 0  # eyes were there to leave out


def long_games(rules, count: int, seed: int):
    """Positions of random play with own eyes left out and few passes: boards fill up."""
    pruned = PrunedRules(rules, own_eyes)
    rng = np.random.default_rng(seed)
    found, board = [], rules.start()
    while len(found) < count:
        found.append(board)
        legal = np.flatnonzero(pruned.legal_mask(board))
        if end_value(rules, board) is not None:
            board = rules.start()
            continue
        stones = legal[legal != rules.pass_action]
        passing = len(stones) == 0 or rng.random() < 0.02
        board = rules.apply(board, rules.pass_action if passing else int(rng.choice(stones)))
    return found


@pytest.mark.parametrize("rules", [GO5, GO], ids=["5x5", "9x9"])
def test_go_safe_to_pass_and_the_searched_pass_equal_the_plain_ones(rules):
    searched = PassToEnd(PrunedRules(rules, own_eyes), rules.pass_action)
    safe = left_out = 0
    for board in long_games(rules, 1500, seed=rules.size):
        pos = np.asarray(board, np.int16)
        want = rules.safe_to_pass(board)
        assert fast_life.safe_to_pass(pos[: rules.points], rules.size) == want
        mask = np.zeros(rules.num_actions, bool)
        partial = go_fast.legal(pos, rules.size, True, True, mask)
        want_mask, want_partial = searched.searched_moves(board)
        np.testing.assert_array_equal(mask, want_mask)
        assert partial == want_partial
        safe += want
        left_out += want_partial
    assert safe > 10 and left_out > 100  # both answers were met often
