"""The reference opponents (`boardq.players.opponents`): random, perfect play by a
solver, and win-or-block, on hand-made positions and in matches.
"""

import numpy as np
import pettingzoo
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from stub_nets import observation

from boardq.boardtext import board_from_rows as parse
from boardq.players.evaluation import PerfectPlayer, RandomPlayer, WinBlockPlayer, evaluate
from boardq_games.connect_four.rules import RULES as connect_four
from boardq_games.tictactoe.rules import RULES as tictactoe


def make_tictactoe():
    return pettingzoo.make("aec", "classic/tictactoe-v3")


def make_connect_four():
    return pettingzoo.make("aec", "classic/connect_four-v3")


def observe(module, rows: list[str]) -> dict[str, np.ndarray]:
    """The PettingZoo observation of the mover (X = +1) on a hand-made board."""
    return observation(module, parse(rows))


# --- RandomPlayer -----------------------------------------------------------------------


def test_random_player_plays_every_legal_move_and_only_those():
    observation = observe(tictactoe, ["XO.", "...", "..."])
    player = RandomPlayer(seed=0)
    moves = {player.act(observation) for _ in range(200)}
    assert moves == set(np.flatnonzero(observation["action_mask"]).tolist())


# --- PerfectPlayer ----------------------------------------------------------------------


def test_perfect_values_of_the_empty_board_are_all_draws():
    values = PerfectPlayer(tictactoe).values(observe(tictactoe, ["...", "...", "..."]))
    np.testing.assert_array_equal(values, np.zeros(9))


def test_perfect_values_immediate_win():
    observation = observe(tictactoe, ["XX.", "OO.", "..."])
    values = PerfectPlayer(tictactoe).values(observation)
    assert values[tictactoe.cell_action(0, 2)] == 1
    assert np.isnan(values[[0, 1, 3, 4]]).all()  # The taken cells.
    assert values[tictactoe.cell_action(2, 0)] == -1  # Lets O complete the middle row.


def test_perfect_values_fork_wins_without_an_immediate_win():
    # X takes middle-left: threats on the left column and the middle row at once.
    observation = observe(tictactoe, ["XO.", ".X.", "..O"])
    player = PerfectPlayer(tictactoe)
    values = player.values(observation)
    assert values[tictactoe.cell_action(1, 0)] == 1
    assert values[tictactoe.cell_action(2, 0)] == 1  # Left column and anti-diagonal.
    assert player.value(parse(["XO.", ".X.", "..O"])) == 1


def test_perfect_values_every_move_loses():
    # The opponent threatens the top row and the left column; X has no win.
    observation = observe(tictactoe, ["OO.", "OX.", "..X"])
    values = PerfectPlayer(tictactoe).values(observation)
    legal = observation["action_mask"].astype(bool)
    np.testing.assert_array_equal(values[legal], -np.ones(4))
    assert np.isnan(values[~legal]).all()


def test_perfect_values_connect_four_endgame():
    rows = [".XXXOO.", "OXOXXXO", "OXOXXOX", "XOOOXOO", "OOXOOXX", "XOXOXXO"]
    board = parse(rows)
    # Column 6 lets O fill column 0, which makes no line: a draw.
    assert connect_four.winner(connect_four.apply(connect_four.apply(board, 6), 0)) == 0
    player = PerfectPlayer(connect_four, seed=0)
    values = player.values(observe(connect_four, rows))
    np.testing.assert_array_equal(values, [1, np.nan, np.nan, np.nan, np.nan, np.nan, 0])
    assert player.act(observe(connect_four, rows)) == 0


def test_perfect_breaks_ties_at_random():
    player = PerfectPlayer(tictactoe, seed=0)
    openings = {player.act(observe(tictactoe, ["...", "...", "..."])) for _ in range(100)}
    assert len(openings) == 9  # Every opening move draws.


def test_perfect_against_perfect_always_draws():
    metrics = evaluate(
        PerfectPlayer(tictactoe, seed=1),
        PerfectPlayer(tictactoe, seed=2),
        make_tictactoe,
        games_per_seat=50,
    )
    assert metrics["first/draw"] == metrics["second/draw"] == 1.0


def test_perfect_never_loses_to_random():
    metrics = evaluate(
        PerfectPlayer(tictactoe, seed=1), RandomPlayer(2), make_tictactoe, games_per_seat=200
    )
    assert metrics["first/loss"] == metrics["second/loss"] == 0.0
    assert metrics["first/win"] > 0.9 and metrics["second/win"] > 0.5


# --- WinBlockPlayer ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "module, rows, expected",
    [
        # Win beats block: X wins on the top row although O threatens the middle row.
        (tictactoe, ["XX.", "OO.", "..."], tictactoe.cell_action(0, 2)),
        # Block: O threatens the right column.
        (tictactoe, [".XO", "..O", "X.."], tictactoe.cell_action(2, 2)),
        # Block on the diagonal.
        (tictactoe, ["OX.", ".O.", "X.."], tictactoe.cell_action(2, 2)),
        # Connect Four: win on the bottom row although O threatens column 6.
        (connect_four, [".......", ".......", ".......", "......O", "......O", "XXX...O"], 3),
        # Connect Four: block O's vertical threat in column 6.
        (connect_four, [".......", ".......", ".......", "......O", "X.....O", "XX....O"], 6),
        # Connect Four: block O's diagonal, whose open end is where column 3 lands.
        (connect_four, [".......", ".......", ".......", "..OX...", ".OXX...", "OXXO..O"], 3),
    ],
)
def test_win_block_player_choice(module, rows, expected):
    for seed in range(5):
        assert WinBlockPlayer(module, seed=seed).act(observe(module, rows)) == expected


@pytest.mark.parametrize("module", [tictactoe, connect_four])
def test_win_block_player_otherwise_plays_any_legal_move(module):
    rows = {tictactoe: ["X..", "...", "..O"], connect_four: ["......."] * 5 + ["X.....O"]}
    observation = observe(module, rows[module])
    player = WinBlockPlayer(module, seed=0)
    moves = {player.act(observation) for _ in range(200)}
    assert moves == set(np.flatnonzero(observation["action_mask"]).tolist())


def test_win_block_player_beats_random_at_connect_four():
    metrics = evaluate(
        WinBlockPlayer(connect_four, seed=1), RandomPlayer(2), make_connect_four, games_per_seat=20
    )
    assert metrics["score"] > 0.75


# --- consistency over reachable positions -----------------------------------------------

SOLVER = PerfectPlayer(tictactoe, seed=0)


@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_perfect_values_agree_with_the_position_value_and_immediate_wins(data):
    board = np.zeros((3, 3), np.int8)
    for _ in range(data.draw(st.integers(0, 8))):
        legal = np.flatnonzero(tictactoe.legal_mask(board)).tolist()
        next_board = tictactoe.apply(board, data.draw(st.sampled_from(legal)))
        if tictactoe.winner(next_board) or tictactoe.is_full(next_board):
            break
        board = next_board
    observation = {
        "observation": tictactoe.planes_from_board(board),
        "action_mask": tictactoe.legal_mask(board).astype(np.int8),
    }
    values = SOLVER.values(observation)
    assert np.nanmax(values) == SOLVER.value(board)
    legal = np.flatnonzero(observation["action_mask"])
    for action in WinBlockPlayer(tictactoe).winning_moves(board, legal):
        assert values[action] == 1


@pytest.mark.parametrize("player", [RandomPlayer(), PerfectPlayer(tictactoe)])
def test_players_refuse_an_empty_mask(player):
    observation = observe(tictactoe, ["XOX", "XOO", "OXX"])
    with pytest.raises(ValueError):
        player.act(observation)
