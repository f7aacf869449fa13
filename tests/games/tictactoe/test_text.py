"""Tic-tac-toe for people: cell labels against the env, messages, drawings."""

import numpy as np
import pytest

from boardq.boardtext import MoveError, plain
from boardq_games.tictactoe.text import TicTacToeText

TTT = TicTacToeText()


ALL_LEGAL_TTT = np.ones(9, bool)


@pytest.mark.parametrize("number", range(1, 10))
def test_tictactoe_cell_numbers_read_row_by_row_in_the_env(number, board_after):
    action = TTT.parse(str(number), ALL_LEGAL_TTT)
    board = board_after("tictactoe", [action])
    row, col = divmod(number - 1, 3)
    expected = np.zeros((3, 3), np.int8)
    expected[row, col] = 1
    np.testing.assert_array_equal(board, expected)
    assert TTT.label(action) == str(number)


def test_tictactoe_labels_against_pettingzoo_column_numbering():
    # PettingZoo: 0 3 6 / 1 4 7 / 2 5 8; the board shows 1 2 3 / 4 5 6 / 7 8 9.
    by_label = {TTT.label(a): a for a in range(9)}
    assert by_label == {"1": 0, "2": 3, "3": 6, "4": 1, "5": 4, "6": 7, "7": 2, "8": 5, "9": 8}
    assert [TTT.label(a) for a in TTT.action_order] == [str(n) for n in range(1, 10)]


@pytest.mark.parametrize(
    "coordinate, number",
    [("a1", 1), ("b1", 2), ("c1", 3), ("a2", 4), ("b2", 5), ("c2", 6), ("a3", 7), ("b3", 8)]
    + [("c3", 9), ("B2", 5), (" c1 ", 3)],
)
def test_tictactoe_coordinates_are_column_letter_then_row_number(coordinate, number):
    assert TTT.parse(coordinate, ALL_LEGAL_TTT) == TTT.parse(str(number), ALL_LEGAL_TTT)
    action = TTT.parse(coordinate, ALL_LEGAL_TTT)
    assert TTT.coordinate(action) == coordinate.strip().lower()
    assert TTT.describe(action) == f"{number} ({coordinate.strip().lower()})"


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "no move typed"),
        ("hello", "'hello' is not a move: type a cell number 1-9 or a coordinate such as b2"),
        ("10", "there is no cell 10: the cells are numbered 1-9"),
        ("d4", "there is no cell d4: columns are a-c, rows 1-3"),
    ],
)
def test_tictactoe_messages(text, message):
    with pytest.raises(MoveError, match=message):
        TTT.parse(text, ALL_LEGAL_TTT)


def test_tictactoe_drawing_shows_numbers_in_empty_cells_and_brackets_the_last_move():
    board = np.array([[0, 0, 1], [0, -1, 0], [0, 0, 0]])
    text = plain(TTT.draw(board, last=TTT.parse("5", ALL_LEGAL_TTT), ascii_only=True))
    lines = [line.rstrip() for line in text.splitlines()]
    assert lines == [
        "     a   b   c",
        " 1   1 | 2 | X",
        "    ---+---+---",
        " 2   4 |[O]| 6",
        "    ---+---+---",
        " 3   7 | 8 | 9",
    ]
