"""What the line games' rules share: the Rules protocol, boards, keys and lines, and
random games played through the rules and the PettingZoo env in lockstep."""

import numpy as np
import pettingzoo
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from boardq_games import Rules
from boardq_games.connect_four.rules import RULES as connect_four
from boardq_games.tictactoe.rules import RULES as tictactoe

BOARD_MODULES = [tictactoe, connect_four]


ENV_IDS = {tictactoe: "classic/tictactoe-v3", connect_four: "classic/connect_four-v3"}


def make_env(board_module):
    env = pettingzoo.make("aec", ENV_IDS[board_module])
    env.reset(seed=0)
    return env


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


# -- the line that won, as drawings mark it ----------------------------------------------
def marked(rows: list[str], length: int) -> list[str]:
    from boardq.boardtext import board_from_rows
    from boardq_games.lines import winning_cells

    cells = winning_cells(board_from_rows(rows), length)
    return ["".join("#" if m else "." for m in row) for row in cells]


@pytest.mark.parametrize(
    ("rows", "length", "expected"),
    [
        (["XXX", "OO.", "..."], 3, ["###", "...", "..."]),
        (["XO.", "OXO", "..X"], 3, ["#..", ".#.", "..#"]),
        (["..O", ".O.", "OXX"], 3, ["..#", ".#.", "#.."]),
        (["XXO", "OOX", "XOX"], 3, ["...", "...", "..."]),  # a draw: nothing marked
        # Two lines through one cell are both marked; a run one short is not.
        (
            ["XXXX.", "X....", "X....", "X....", "OOO.."],
            4,
            ["####.", "#....", "#....", "#....", "....."],
        ),
        # An overline is marked whole.
        (["OOOOOO", "......"], 5, ["######", "......"]),
    ],
)
def test_the_cells_of_a_winning_line(rows, length, expected):
    assert marked(rows, length) == expected


def test_a_won_board_is_drawn_with_its_line_marked():
    from boardq.boardtext import board_from_rows, plain
    from boardq_games.connect_four.text import ConnectFourText

    rows = ["......."] * 2 + ["...X...", "..XO...", ".XOO...", "XOOXX.."]
    lines = ConnectFourText().draw(board_from_rows(rows), last=3, ascii_only=True)
    assert plain(lines).splitlines()[2:6] == [
        "| .  .  . [X] .  .  . |",
        "| .  . (X) O  .  .  . |",
        "| . (X) O  O  .  .  . |",
        "|(X) O  O  X  X  .  . |",
    ]
    won = [(r, c) for r, line in enumerate(lines) for c, piece in enumerate(line) if piece.win]
    assert len(won) == 4
