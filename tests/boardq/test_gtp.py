"""GTP's pure parts: vertices by hand, command and answer lines, colours and scores."""

from __future__ import annotations

import pytest

from boardq.catalog import get_game
from boardq.gtp.protocol import (
    Command,
    GtpSyntaxError,
    clean_line,
    format_response,
    parse_colour,
    parse_command,
    parse_score,
    score_text,
)

GO = get_game("go").gtp
OTHELLO = get_game("othello").gtp


@pytest.mark.parametrize(
    "dialect, action, vertex",
    [
        (GO, 0, "A9"),  # PettingZoo's action 0 is the top-left point; Go counts rows up
        (GO, 8, "J9"),  # no I column
        (GO, 40, "E5"),
        (GO, 72, "A1"),
        (GO, 80, "J1"),
        (GO, 81, "pass"),
        (OTHELLO, 0, "a1"),  # GRhino: a1 is the top-left square
        (OTHELLO, 19, "d3"),
        (OTHELLO, 63, "h8"),
        (OTHELLO, 64, "pass"),
    ],
)
def test_vertices_by_hand(dialect, action, vertex):
    assert dialect.vertex(action) == vertex
    assert dialect.action(vertex) == action
    assert dialect.action(vertex.swapcase()) == action


@pytest.mark.parametrize("vertex", ["I5", "K1", "A0", "A10", "E", "55", "", "pass5", "resign"])
def test_bad_go_vertices_are_refused(vertex):
    with pytest.raises(GtpSyntaxError):
        GO.action(vertex)


def test_every_action_round_trips():
    for dialect in (GO, OTHELLO):
        for action in range(dialect.size * dialect.size + 1):
            assert dialect.action(dialect.vertex(action)) == action


@pytest.mark.parametrize(
    "line, command",
    [
        ("genmove b\n", Command(None, "genmove", ["b"])),
        ("12 genmove b", Command(12, "genmove", ["b"])),
        ("  play\tw   E5  # a comment", Command(None, "play", ["w", "E5"])),
        ("pl\x01ay b A1\r\n", Command(None, "play", ["b", "A1"])),
        ("7", Command(7, "", [])),
    ],
)
def test_command_lines(line, command):
    assert parse_command(line) == command


@pytest.mark.parametrize("line", ["", "\n", "   \t ", "# only a comment"])
def test_lines_without_a_command(line):
    assert parse_command(line) is None
    assert clean_line(line) == ""


def test_answers_with_and_without_ids():
    assert format_response(None, True, "E5") == "= E5\n\n"
    assert format_response(12, True, "E5") == "=12 E5\n\n"
    assert format_response(3, False, "illegal move") == "?3 illegal move\n\n"
    assert format_response(None, True) == "=\n\n"
    # A multi-line answer holds no empty line (that would end it).
    assert format_response(None, True, "\na\n\nb") == "= \na\n \nb\n\n"


def test_colours():
    assert [parse_colour(c) for c in ("b", "B", "black", "White", "w")] == [0, 0, 0, 1, 1]
    with pytest.raises(GtpSyntaxError):
        parse_colour("red")


def test_scores_both_ways():
    assert score_text(3.5) == "B+3.5"
    assert score_text(-10.0) == "W+10"
    assert score_text(0.0) == "0"
    assert parse_score("B+3.5") == 3.5
    assert parse_score("w+10") == -10.0
    assert parse_score("0") == 0.0
    assert parse_score("W+R") == float("-inf")
    assert parse_score("B+") is None
    assert parse_score("maybe") is None
