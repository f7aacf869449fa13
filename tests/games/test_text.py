"""Tests of the move labels, the strict move parsers and the board drawings."""

import numpy as np
import pettingzoo
import pytest

from games import get_game
from games.connect_four.rules import RULES as connect_four
from games.connect_four.text import ConnectFourText
from games.text import MoveError, Role, plain
from games.tictactoe.rules import RULES as tictactoe
from games.tictactoe.text import TicTacToeText

TTT = TicTacToeText()
C4 = ConnectFourText()
ALL_LEGAL_TTT = np.ones(9, bool)
ALL_LEGAL_C4 = np.ones(7, bool)

# Typed text that must never become a move, whatever Python's int() thinks of it.
NEVER_A_MOVE = [
    "",
    "   ",
    "\t",
    "hello",
    "three",
    "3.0",
    "1_0",
    "+3",
    "٣",  # ARABIC-INDIC DIGIT THREE
    "３",  # FULLWIDTH DIGIT THREE
    "²",  # SUPERSCRIPT TWO
    "0",
    "00",
    "-0",
    "-1",
    "03",
    "3 3",
    "3,",
    "3\x00",
    "0x3",
    "1e0",
    "x" * 200,
]


def first_player_board(game_id: str, actions: list[int]) -> np.ndarray:
    """The board after `actions` in the real env: +1 first player, -1 second."""
    env = pettingzoo.make("aec", game_id)
    env.reset(seed=0)
    for action in actions:
        env.step(action)
    planes = env.observe(env.possible_agents[0])["observation"]
    env.close()
    module = tictactoe if "tictactoe" in game_id else connect_four
    return module.board_from_planes(planes)


# --- labels against PettingZoo ------------------------------------------------------------


@pytest.mark.parametrize("number", range(1, 10))
def test_tictactoe_cell_numbers_read_row_by_row_in_the_env(number):
    action = TTT.parse(str(number), ALL_LEGAL_TTT)
    board = first_player_board("classic/tictactoe-v3", [action])
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


@pytest.mark.parametrize("column", range(1, 8))
def test_connect_four_columns_are_numbered_from_the_left_in_the_env(column):
    action = C4.parse(str(column), ALL_LEGAL_C4)
    board = first_player_board("classic/connect_four-v3", [action])
    assert board[5, column - 1] == 1
    assert np.count_nonzero(board) == 1
    assert C4.label(action) == str(column)
    assert C4.describe(action) == f"column {column}"


# --- strict parsing -----------------------------------------------------------------------


@pytest.mark.parametrize("text", NEVER_A_MOVE + ["10", "d4", "a0", "a-1", "b22", "bb"])
def test_tictactoe_rejects_anything_but_a_label(text):
    with pytest.raises(MoveError) as info:
        TTT.parse(text, ALL_LEGAL_TTT)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("text", NEVER_A_MOVE + ["8", "10", "77", "a1"])
def test_connect_four_rejects_anything_but_a_column_number(text):
    with pytest.raises(MoveError) as info:
        C4.parse(text, ALL_LEGAL_C4)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("text", ["0", "-1", "-7", "-0"])
def test_zero_and_negatives_never_name_a_column(text):
    # Python indexing would turn 0 - 1 into the last column; the parser must not.
    with pytest.raises(MoveError, match="there is no column"):
        C4.parse(text, ALL_LEGAL_C4)


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


def test_long_input_is_shortened_in_the_message():
    with pytest.raises(MoveError) as info:
        C4.parse("y" * 500, ALL_LEGAL_C4)
    assert len(str(info.value)) < 100


def test_occupied_cell_and_full_column_are_refused():
    legal = ALL_LEGAL_TTT.copy()
    legal[4] = False
    with pytest.raises(MoveError, match=r"cell 5 \(b2\) is taken"):
        TTT.parse("5", legal)
    with pytest.raises(MoveError, match="taken"):
        TTT.parse("b2", legal)
    legal = ALL_LEGAL_C4.copy()
    legal[3] = False
    with pytest.raises(MoveError, match="column 4 is full"):
        C4.parse("4", legal)
    assert C4.parse("5", legal) == 4


def test_the_mask_must_fit_the_game():
    with pytest.raises(ValueError, match="legal mask"):
        C4.parse("1", np.ones(9, bool))


def test_parse_accepts_pettingzoo_int8_masks():
    mask = np.array([1, 0, 1, 1, 1, 1, 1], np.int8)
    assert C4.parse("1", mask) == 0
    with pytest.raises(MoveError, match="full"):
        C4.parse("2", mask)


# --- drawings -------------------------------------------------------------------------------


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


@pytest.mark.parametrize("text_of", [TTT, C4])
def test_ascii_drawings_are_ascii_and_unicode_ones_mark_the_last_move_too(text_of):
    shape = (3, 3) if text_of is TTT else (6, 7)
    rng = np.random.default_rng(0)
    board = rng.integers(-1, 2, size=shape)
    last = int(np.flatnonzero(board.T.ravel() if text_of is TTT else board[0])[0])
    ascii_lines = text_of.draw(board, last, ascii_only=True)
    assert plain(ascii_lines).isascii()
    unicode_lines = text_of.draw(board, last)
    assert sum(piece.last for line in unicode_lines for piece in line) == 1
    marked = [piece for line in unicode_lines for piece in line if piece.last]
    assert marked[0].role in (Role.FIRST, Role.SECOND)


def test_marks():
    assert (TTT.mark(0), TTT.mark(1)) == ("X", "O")
    assert (C4.mark(0, ascii_only=True), C4.mark(1, ascii_only=True)) == ("X", "O")
    assert C4.mark(0) != C4.mark(1)


def test_each_game_carries_its_text_board():
    assert isinstance(get_game("tictactoe").text, TicTacToeText)
    assert isinstance(get_game("connect_four").text, ConnectFourText)
