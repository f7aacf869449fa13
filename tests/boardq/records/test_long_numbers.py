"""Numbers of any length in a record: refused in one line before Python converts them.

Python cannot convert an integer of more than 4,300 digits (a ValueError) and turns a
float's long text into inf; records are files of other people and programs.
"""

from __future__ import annotations

import io
import json
import sys

import pytest

from boardq.bounded import MAX_NUMBER_CHARS
from boardq.commands import main
from boardq.records import RecordError, read_records

LONG = "9" * 5_000
REFUSAL = f"a number 5,000 characters long (boardq reads numbers of at most {MAX_NUMBER_CHARS})"


def jsonl(**changes) -> str:
    """One tic-tac-toe record as a JSON line, its fields' text replaced by `changes`."""
    record = {
        "format": "boardq-game",
        "version": 1,
        "game": "tictactoe",
        "settings": {},
        "players": [{"name": "a"}, {"name": "b"}],
        "result": None,
        "moves": [{"action": 4, "move": "b2", "seconds": 0.5, "value": 0.25}],
    }
    text = json.dumps(record)
    for old, new in changes.items():
        assert old in text
        text = text.replace(old, new)
    return text + "\n"


def go_sgf(root: str = "", note: str = "") -> str:
    """A one-move Go game as boardq writes it, with more root properties and a comment."""
    return f"(;GM[1]FF[4]SZ[9]AP[boardq:1]{root};B[ee]C[{note}])"


@pytest.mark.parametrize(
    "name, text, message",
    [
        ("action", jsonl(**{'"action": 4': f'"action": {LONG}'}), REFUSAL),
        ("version", jsonl(**{'"version": 1': f'"version": {LONG}'}), REFUSAL),
        ("seconds", jsonl(**{'"seconds": 0.5': f'"seconds": {LONG}'}), REFUSAL),
        ("value", jsonl(**{'"value": 0.25': f'"value": 0.{LONG[2:]}'}), REFUSAL),
        ("a setting", jsonl(**{'"settings": {}': f'"settings": {{"handicap": {LONG}}}'}), REFUSAL),
        (
            "a player's detail",
            jsonl(**{'"name": "a"': f'"name": "a", "details": {{"n": {LONG}}}'}),
            REFUSAL,
        ),  # fmt: skip
        ("nested arrays", "[" * 100_000 + "\n", "JSON nested too deeply"),
        (
            "a setting's type",
            jsonl(**{'"settings": {}': '"settings": {"komi": "7"}'}),
            "settings: komi must be a number, got '7'",
        ),  # fmt: skip
    ],
)
def test_a_jsonl_line_with_a_long_number_is_one_bad_line(tmp_path, name, text, message):
    path = tmp_path / "games.jsonl"
    path.write_text(jsonl() + text)
    found = read_records(path)  # the good line is kept
    assert [r.actions for r in found.records] == [[4]]
    assert found.problems == [f"games.jsonl, line 2: {message}"]


@pytest.mark.parametrize(
    "name, text, message",
    [
        ("GM", f"(;GM[{LONG}]FF[4]SZ[9];B[ee])", f"GM: {REFUSAL}"),
        ("SZ", f"(;GM[1]FF[4]SZ[{LONG}];B[ee])", f"SZ: {REFUSAL}"),
        ("KM", go_sgf(root=f"KM[{LONG[:-2]}.5]"), f"KM: {REFUSAL}"),
        ("a move's time", go_sgf(note=f"time {LONG} s"), f"a move's time: {REFUSAL}"),
        ("a move's value", go_sgf(note=f"value +{LONG[1:]}"), f"a move's value: {REFUSAL}"),
    ],
)
def test_an_sgf_file_with_a_long_number_is_refused_in_one_line(tmp_path, name, text, message):
    path = tmp_path / "game.sgf"
    path.write_text(text)
    with pytest.raises(RecordError) as e:
        read_records(path)
    assert str(e.value) == f"game.sgf: {message}"


def test_numbers_up_to_the_bound_are_read(tmp_path):
    value = "0." + "2" * (MAX_NUMBER_CHARS - 2)  # 40 characters
    path = tmp_path / "games.jsonl"
    path.write_text(jsonl(**{'"value": 0.25': f'"value": {value}'}))
    assert read_records(path).records[0].moves[0].value == pytest.approx(0.2222222)
    path = tmp_path / "game.sgf"
    path.write_text(go_sgf(root=f"KM[{'0' * 37}6.5]", note=f"time {value} s"))
    record = read_records(path).records[0]
    assert record.moves[0].seconds == pytest.approx(0.2222222)
    assert record.settings["komi"] == 6.5  # the file's, which its game is counted with


def test_boardq_replay_refuses_a_long_number_in_one_line(tmp_path, monkeypatch, capsys):
    path = tmp_path / "long.jsonl"
    path.write_text(jsonl(**{'"action": 4': f'"action": {LONG}'}))
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    assert main(["replay", str(path), "--ascii"]) == 1
    out, err = capsys.readouterr()
    assert err == f"boardq replay: error: long.jsonl, line 1: {REFUSAL}\n"
