"""Connect Four for people: column labels against the env, messages, drawings."""

import numpy as np
import pytest

from boardq.boardtext import MoveError, plain
from boardq_games.connect_four.text import ConnectFourText

C4 = ConnectFourText()


ALL_LEGAL_C4 = np.ones(7, bool)


@pytest.mark.parametrize("column", range(1, 8))
def test_connect_four_columns_are_numbered_from_the_left_in_the_env(column, board_after):
    action = C4.parse(str(column), ALL_LEGAL_C4)
    board = board_after("connect_four", [action])
    assert board[5, column - 1] == 1
    assert np.count_nonzero(board) == 1
    assert C4.label(action) == str(column)
    assert C4.describe(action) == f"column {column}"


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "no move typed"),
        ("3.0", "'3.0' is not a move"),
        ("0", "there is no column 0"),
        ("8", "there is no column 8: the columns are numbered 1-7"),
        ("٣", "'٣' is not a move"),
    ],
)
def test_connect_four_messages(text, message):
    with pytest.raises(MoveError, match=message):
        C4.parse(text, ALL_LEGAL_C4)


def test_connect_four_drawing_brackets_the_top_piece_of_the_last_column():
    board = np.zeros((6, 7), np.int8)
    board[5, 3], board[4, 3], board[5, 2] = 1, -1, 1
    text = plain(C4.draw(board, last=3, ascii_only=True))
    lines = text.splitlines()
    assert lines[4] == "| .  .  . [O] .  .  . |"
    assert lines[5] == "| .  .  X  X  .  .  . |"
    assert lines[6] == "+---------------------+"
    assert lines[7].rstrip() == "  1  2  3  4  5  6  7"
    # Each column number sits under its column.
    for column in range(7):
        assert lines[7][2 + 3 * column] == str(column + 1)
        assert lines[0][2 + 3 * column] == "."
