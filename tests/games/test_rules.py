"""Tests of the pure board rules, against hand-worked positions and the PettingZoo envs."""

import numpy as np
import pettingzoo
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from games import Rules
from games.connect_four.rules import RULES as connect_four
from games.tictactoe.rules import RULES as tictactoe

BOARD_MODULES = [tictactoe, connect_four]
ENV_IDS = {tictactoe: "classic/tictactoe-v3", connect_four: "classic/connect_four-v3"}


def parse(rows: list[str]) -> np.ndarray:
    """Builds a board from display rows: X = +1 (the mover), O = -1, . = empty."""
    return np.array([["O.X".index(cell) - 1 for cell in row] for row in rows], dtype=np.int8)


def make_env(board_module):
    env = pettingzoo.make("aec", ENV_IDS[board_module])
    env.reset(seed=0)
    return env


# A full Connect Four board without four in a row, 21 pieces a side.
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


# --- interface --------------------------------------------------------------------------


@pytest.mark.parametrize("module", BOARD_MODULES)
def test_rules_follow_the_protocol(module):
    assert isinstance(module, Rules)
    for name in ("rows", "cols", "line_length", "num_actions"):
        assert isinstance(getattr(module, name), int)


@pytest.mark.parametrize("module", BOARD_MODULES)
def test_empty_board(module):
    board = np.zeros((module.rows, module.cols), np.int8)
    assert module.legal_mask(board).dtype == bool
    assert module.legal_mask(board).shape == (module.num_actions,)
    assert module.legal_mask(board).all()
    assert module.winner(board) == 0
    assert not module.is_full(board)


@pytest.mark.parametrize("module", BOARD_MODULES)
def test_key_distinguishes_boards(module):
    board = np.zeros((module.rows, module.cols), np.int8)
    after = module.apply(board, 0)
    assert isinstance(module.key(board), bytes)
    assert module.key(board) == module.key(board.copy())
    assert module.key(after) != module.key(board)
    assert module.key(after) != module.key(-after)


@pytest.mark.parametrize("module", BOARD_MODULES)
def test_out_of_range_action_raises(module):
    board = np.zeros((module.rows, module.cols), np.int8)
    for action in [-1, module.num_actions, 100]:
        with pytest.raises(ValueError):
            module.apply(board, action)


@pytest.mark.parametrize("module", BOARD_MODULES)
def test_wrong_shapes_raise(module):
    with pytest.raises(ValueError):
        module.winner(np.zeros((4, 4), np.int8))
    with pytest.raises(ValueError):
        module.board_from_planes(np.zeros((2, 2, 2), np.int8))


# --- tic-tac-toe ------------------------------------------------------------------------


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


# --- Connect Four -----------------------------------------------------------------------


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


@given(data=st.data())
def test_planes_round_trip(data):
    module = data.draw(st.sampled_from(BOARD_MODULES))
    board = data.draw(
        hnp.arrays(np.int8, (module.rows, module.cols), elements=st.sampled_from([-1, 0, 1]))
    )
    planes = module.planes_from_board(board)
    assert set(np.unique(planes)) <= {0, 1}
    assert not (planes[..., 0] & planes[..., 1]).any()
    np.testing.assert_array_equal(module.board_from_planes(planes), board)


# --- agreement with the PettingZoo envs -------------------------------------------------


def observed_board(env, module):
    observation, *_ = env.last()
    return module.board_from_planes(observation["observation"])


def test_tictactoe_env_mapping_both_seats():
    env = make_env(tictactoe)
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
    env = make_env(tictactoe)
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


def test_connect_four_env_mapping_both_seats():
    env = make_env(connect_four)
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


def play_in_lockstep(module, data):
    """Plays drawn legal moves in the env and through `apply`; checks they agree."""
    env = make_env(module)
    board = np.zeros((module.rows, module.cols), np.int8)
    last_mover, final = None, {}
    for agent in env.agent_iter():
        observation, reward, terminated, truncated, _ = env.last()
        planes, mask = observation["observation"], observation["action_mask"]
        if terminated or truncated:
            final[agent] = reward
            view = -board if agent == last_mover else board
            np.testing.assert_array_equal(module.board_from_planes(planes), view)
            env.step(None)
            continue
        np.testing.assert_array_equal(module.board_from_planes(planes), board)
        np.testing.assert_array_equal(module.planes_from_board(board), planes)
        np.testing.assert_array_equal(module.legal_mask(board), mask.astype(bool))
        assert module.winner(board) == 0 and not module.is_full(board)
        action = data.draw(st.sampled_from(np.flatnonzero(mask).tolist()))
        env.step(action)
        board, last_mover = module.apply(board, action), agent
        assert module.winner(board) in (-1, 0)  # Only the mover can have made a line.
    return board, last_mover, final


@pytest.mark.parametrize("module", BOARD_MODULES)
@settings(max_examples=80, deadline=None)
@given(data=st.data())
def test_random_games_agree_with_env(module, data):
    board, last_mover, final = play_in_lockstep(module, data)
    assert module.winner(board) == -1 or module.is_full(board)
    other = next(agent for agent in final if agent != last_mover)
    if module.winner(board) == -1:
        assert (final[last_mover], final[other]) == (1, -1)
    else:
        assert (final[last_mover], final[other]) == (0, 0)
