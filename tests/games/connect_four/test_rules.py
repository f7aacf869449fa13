"""Connect Four rules: hand-worked positions and PettingZoo's env."""

import numpy as np
import pytest

from boardq.boardtext import board_from_rows as parse
from boardq_games import get_game
from boardq_games.connect_four.rules import RULES as connect_four
from boardq_games.lines import line_winner

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


@pytest.mark.parametrize("seed", range(3))
def test_the_bitboard_winner_is_the_sum_of_every_run_of_four(seed):
    """Against `line_winner`, which sums the cells of every run: random boards, either side
    or both with lines (both: +1, as `line_winner` says), lines on every edge."""
    rng = np.random.default_rng(seed)
    boards = rng.choice(np.array([-1, 0, 1], np.int8), size=(3000, 6, 7), p=[0.4, 0.2, 0.4])
    outcomes = set()
    for board in boards:
        expected = line_winner(board, 4)
        assert connect_four.winner(board) == expected, board
        outcomes.add(expected)
    assert outcomes == {-1, 0, 1}  # every answer was asked for


@pytest.mark.parametrize("step", [1, 5, 7])
def test_no_line_runs_from_the_top_of_a_column_into_the_next(step):
    """Numbered up the columns from the bottom (cell j: column j // 6, 5 - j % 6 rows
    from the top), cells j, j + s, j + 2s, j + 3s make a line up a column (s = 1) or a
    diagonal (5, 7), unless they run off the board's top or bottom edge and on again in
    the next column: those four are no line, where a bitboard without an empty seventh
    bit a column would see one (a row, s = 6, never leaves the board so)."""
    wrapped = 0
    for j in range(42 - 3 * step):
        board = np.zeros((6, 7), np.int8)
        for k in range(4):
            cell = j + k * step
            board[5 - cell % 6, cell // 6] = 1
        expected = line_winner(board, 4)
        assert connect_four.winner(board) == expected
        wrapped += expected == 0
    assert wrapped > 0  # the test met such cells


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
