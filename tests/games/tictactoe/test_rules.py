"""Tic-tac-toe rules: hand-worked positions and PettingZoo's env."""

import numpy as np
import pytest

from boardq.boardtext import board_from_rows as parse
from boardq_games import get_game
from boardq_games.tictactoe.rules import RULES as tictactoe


def observed_board(env, module):
    observation, *_ = env.last()
    return module.board_from_planes(observation["observation"])


@pytest.mark.parametrize(
    "action, cell",
    [(0, (0, 0)), (1, (1, 0)), (2, (2, 0)), (3, (0, 1)), (4, (1, 1)), (5, (2, 1)), (6, (0, 2)),
     (7, (1, 2)), (8, (2, 2))],
)  # fmt: skip
def test_tictactoe_action_cell(action, cell):
    assert tictactoe.action_cell(action) == cell
    assert tictactoe.cell_action(*cell) == action


def test_tictactoe_apply_places_and_negates():
    board = parse(["X..", "...", ".O."])
    after = tictactoe.apply(board, 1)  # Middle-left.
    assert after.dtype == np.int8
    np.testing.assert_array_equal(after, -parse(["X..", "X..", ".O."]))
    np.testing.assert_array_equal(board, parse(["X..", "...", ".O."]))  # Not mutated.


@pytest.mark.parametrize("action", [0, 5])
def test_tictactoe_taken_cell_raises(action):
    with pytest.raises(ValueError):
        tictactoe.apply(parse(["X..", "...", ".O."]), action)


def test_tictactoe_legal_mask_follows_column_numbering():
    board = parse(["X.O", "...", "..."])
    expected = np.ones(9, bool)
    expected[[0, 6]] = False  # Top-left is action 0, top-right is action 6.
    np.testing.assert_array_equal(tictactoe.legal_mask(board), expected)


@pytest.mark.parametrize(
    "rows, expected",
    [
        (["XXX", "OO.", "..."], 1),
        (["OO.", "XXX", "..."], 1),
        (["O..", "O..", "XXX"], 1),
        (["XO.", "XO.", "X.."], 1),
        (["OX.", ".X.", "OX."], 1),
        (["O.X", "O.X", "..X"], 1),
        (["X.O", ".XO", "..X"], 1),
        (["O.X", ".X.", "XO."], 1),
        (["OOO", "XX.", "X.."], -1),
        (["X.O", ".O.", "OXX"], -1),
        (["..O", "X.O", "X.O"], -1),
        (["XX.", "OO.", "..."], 0),
        (["XOX", "XOO", "OXX"], 0),
    ],
)
def test_tictactoe_winner(rows, expected):
    board = parse(rows)
    assert tictactoe.winner(board) == expected
    assert tictactoe.winner(-board) == -expected


@pytest.mark.parametrize(
    "rows, full", [(["XOX", "XOO", "OXX"], True), (["XOX", "XO.", "OXX"], False)]
)
def test_tictactoe_is_full(rows, full):
    assert tictactoe.is_full(parse(rows)) is full


def test_tictactoe_planes_are_the_transpose_of_the_display():
    board = parse(["..X", "...", "O.."])  # X top-right (cell 6), O bottom-left (cell 2).
    planes = tictactoe.planes_from_board(board)
    assert planes.dtype == np.int8 and planes.shape == (3, 3, 2)
    # PettingZoo: planes[i, j] is cell 3 * i + j.
    assert planes[2, 0, 0] == 1 and planes[:, :, 0].sum() == 1
    assert planes[0, 2, 1] == 1 and planes[:, :, 1].sum() == 1
    np.testing.assert_array_equal(tictactoe.board_from_planes(planes), board)


def test_tictactoe_env_mapping_both_seats():
    env = get_game("tictactoe").make_env()
    env.reset(seed=0)
    assert env.agent_selection == "player_1"
    env.step(1)  # player_1 (X) takes the middle-left cell.
    assert env.agent_selection == "player_2"
    np.testing.assert_array_equal(observed_board(env, tictactoe), parse(["...", "O..", "..."]))
    env.step(5)  # player_2 (O) takes the bottom-middle cell.
    np.testing.assert_array_equal(observed_board(env, tictactoe), parse(["...", "X..", ".O."]))
    env.step(6)  # player_1 takes the top-right cell.
    np.testing.assert_array_equal(observed_board(env, tictactoe), parse(["..O", "O..", ".X."]))
    observation, *_ = env.last()
    np.testing.assert_array_equal(observation["action_mask"], [1, 0, 1, 1, 1, 0, 0, 1, 1])


def test_tictactoe_env_end_of_game_rewards_and_views():
    env = get_game("tictactoe").make_env()
    env.reset(seed=0)
    for action in [0, 1, 3, 4, 6]:  # X fills the top row (cells 0, 3, 6).
        env.step(action)
    seen = {}
    for agent in env.agent_iter():
        observation, reward, terminated, _, _ = env.last()
        assert terminated
        seen[agent] = (reward, tictactoe.board_from_planes(observation["observation"]))
        env.step(None)
    assert list(seen) == ["player_2", "player_1"]  # The loser is yielded first.
    assert seen["player_1"][0] == 1 and seen["player_2"][0] == -1
    np.testing.assert_array_equal(seen["player_1"][1], parse(["XXX", "OO.", "..."]))
    np.testing.assert_array_equal(seen["player_2"][1], -parse(["XXX", "OO.", "..."]))
