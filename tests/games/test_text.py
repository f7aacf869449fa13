"""What every text board shares: strict parsing of typed moves, and drawings."""

import numpy as np
import pytest

from boardq.boardtext import MoveError, Role, plain
from boardq_games import get_game
from boardq_games.connect_four.text import ConnectFourText
from boardq_games.tictactoe.text import TicTacToeText

TTT = TicTacToeText()


C4 = ConnectFourText()


ALL_LEGAL_TTT = np.ones(9, bool)


ALL_LEGAL_C4 = np.ones(7, bool)


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
