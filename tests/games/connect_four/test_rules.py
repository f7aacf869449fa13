"""Connect Four rules: hand-worked positions and PettingZoo's env."""

import numpy as np
import pytest

from boardq.boardtext import board_from_rows as parse
from boardq_games import get_game
from boardq_games.connect_four.rules import RULES as connect_four

C4_DRAWN = parse(
    [
        "OOXOXOX",
        "XOXOXOX",
        "OXOXOXO",
        "OXOXOXO",
        "XOXOXOX",
        "XOXOXOX",
    ]
)


def observed_board(env, module):
    observation, *_ = env.last()
    return module.board_from_planes(observation["observation"])


def test_connect_four_gravity():
    board = np.zeros((6, 7), np.int8)
    assert connect_four.landing_row(board, 3) == 5
    board = connect_four.apply(board, 3)  # Mover's piece lands at the bottom.
    np.testing.assert_array_equal(np.argwhere(board == -1), [[5, 3]])
    assert connect_four.landing_row(board, 3) == 4
    board = connect_four.apply(board, 3)  # Stacks on top of it.
    expected = np.zeros((6, 7), np.int8)
    expected[5, 3], expected[4, 3] = 1, -1
    np.testing.assert_array_equal(board, expected)


def test_connect_four_full_column():
    board = np.zeros((6, 7), np.int8)
    for _ in range(6):
        board = connect_four.apply(board, 2)
    assert not connect_four.legal_mask(board)[2]
    assert connect_four.legal_mask(board).sum() == 6
    with pytest.raises(ValueError):
        connect_four.landing_row(board, 2)
    with pytest.raises(ValueError):
        connect_four.apply(board, 2)


@pytest.mark.parametrize(
    "rows, expected",
    [
        ([".......", ".......", ".......", ".......", "OOO....", "XXXX..."], 1),
        ([".......", ".......", ".......", ".......", "OOO....", "...XXXX"], 1),
        ([".......", ".......", "......X", "......X", "O.....X", "OO....X"], 1),
        ([".......", ".......", "X......", "X......", "X.....O", "X....OO"], 1),
        ([".......", ".......", "...X...", "..XO...", ".XOO...", "XOOX..."], 1),
        (["......X", ".....XO", "....XO.", "...XO..", ".......", "......."], 1),
        ([".......", ".......", "O......", "XO.....", "XXO....", "XXXO..."], -1),
        (["O......", "XO.....", "XXO....", "XXXO...", ".......", "......."], -1),
        ([".......", ".......", ".......", ".......", "XXX....", "OOO...."], 0),
        ([".......", ".......", ".......", "X......", "X......", "X......"], 0),
        ([".......", ".......", ".......", "..X....", ".X.....", "X......"], 0),
    ],
)
def test_connect_four_winner(rows, expected):
    board = parse(rows)
    assert connect_four.winner(board) == expected
    assert connect_four.winner(-board) == -expected


def test_connect_four_full_board_without_a_line():
    assert (C4_DRAWN == 1).sum() == (C4_DRAWN == -1).sum() == 21
    assert connect_four.winner(C4_DRAWN) == 0
    assert connect_four.is_full(C4_DRAWN)
    assert not connect_four.legal_mask(C4_DRAWN).any()


def test_connect_four_planes_keep_the_display_orientation():
    board = np.zeros((6, 7), np.int8)
    board[5, 0], board[5, 6] = 1, -1
    planes = connect_four.planes_from_board(board)
    assert planes.dtype == np.int8 and planes.shape == (6, 7, 2)
    assert planes[5, 0, 0] == 1 and planes[5, 6, 1] == 1 and planes.sum() == 2
    np.testing.assert_array_equal(connect_four.board_from_planes(planes), board)


def test_connect_four_env_mapping_both_seats():
    env = get_game("connect_four").make_env()
    env.reset(seed=0)
    assert env.agent_selection == "player_0"
    env.step(0)  # player_0 drops into the left column.
    assert env.agent_selection == "player_1"
    expected = np.zeros((6, 7), np.int8)
    expected[5, 0] = -1
    np.testing.assert_array_equal(observed_board(env, connect_four), expected)
    env.step(0)  # player_1 stacks on it.
    expected = np.zeros((6, 7), np.int8)
    expected[5, 0], expected[4, 0] = 1, -1
    np.testing.assert_array_equal(observed_board(env, connect_four), expected)
    env.step(6)  # player_0 drops into the right column.
    expected = -expected
    expected[5, 6] = -1
    np.testing.assert_array_equal(observed_board(env, connect_four), expected)
