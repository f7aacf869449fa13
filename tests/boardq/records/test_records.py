"""Game records: kept while games play, written as JSON lines and SGF, read and replayed.

Round trips use games played for real in each game's environment; the SGF notation is
checked against files written the way GNU Go, Quarry (Othello) and HexGui (Hex) write
them; bad records (cut short, another game, another board size, an illegal move) must
each be one line. GNU Go itself reads boardq's Go files where it is installed.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from boardq.catalog import get_game
from boardq.records import (
    GameLog,
    GameRecord,
    RecordError,
    from_sgf,
    read_records,
    replay_record,
    save_record,
    to_sgf,
)
from boardq.records.dialects import area_score

DATA = Path(__file__).parent / "data"
GNUGO = shutil.which("gnugo") or shutil.which("gnugo", path="/usr/games")
ALL_GAMES = ("tictactoe", "connect_four", "othello", "gomoku", "hex", "go")
SGF_NAMES = ("othello", "gomoku", "hex", "go")


# --- the record and its JSON -----------------------------------------------------------


@pytest.mark.parametrize("name", ALL_GAMES)
def test_a_json_record_replays_to_the_same_moves_position_and_result(name, random_game):
    record, board, result = random_game(name, seed=3)
    line = json.dumps(record.to_json())
    back = GameRecord.from_json(json.loads(line))
    assert back == record
    assert [m.label for m in back.moves] == [get_game(name).text.label(a) for a in back.actions]
    replayed = replay_record(back, get_game(name))
    assert replayed.result == result == back.result
    assert np.array_equal(np.asarray(replayed.boards[-1]), board)
    assert len(replayed.boards) == len(record.moves) + 1
    assert replayed.result_text == record.result_text != ""


@pytest.mark.parametrize("name", SGF_NAMES)
def test_an_sgf_record_reads_back_the_same_game(name, random_game):
    record, board, result = random_game(name, seed=5)
    [back] = from_sgf(to_sgf(record), "game.sgf")
    assert back.game == name and back.actions == record.actions
    assert (back.result, back.result_text) == (result, record.result_text)
    assert back.players == record.players
    assert (back.started, back.event, back.engine_count) == (
        record.started,
        record.event,
        record.engine_count,
    )
    for ours, read in zip(record.moves, back.moves, strict=True):
        if name == "othello" and ours.action == 64:
            continue  # a pass has no node: its time is in the JSON record only
        assert (read.seconds, read.value) == (ours.seconds, ours.value)
    replayed = replay_record(back, get_game(name))
    assert np.array_equal(np.asarray(replayed.boards[-1]), board)


def test_the_go_file_says_the_game_its_players_and_boardqs_count(random_game):
    record, board, _ = random_game("go", seed=1)
    text = to_sgf(record).decode()
    for prop in ("GM[1]", "FF[4]", "SZ[9]", "KM[7.5]", "RU[Tromp-Taylor]", "PB[alice]",
                 "PW[bob]", f"RE[{record.result_text}]", f"DT[{record.started[:10]}]"):  # fmt: skip
        assert prop in text
    margin = area_score(board, 7.5)
    assert record.result_text == f"{'B' if margin > 0 else 'W'}+{abs(margin):g}"


def test_area_score_is_pettingzoos_count(random_game):
    from pettingzoo.classic.go import go_base

    for seed in range(4):
        record, board, result = random_game("go", seed)
        env_score = go_base.Position(board=board.astype(np.int8), komi=7.5).score()
        assert area_score(board, 7.5) == pytest.approx(env_score)
        assert np.sign(area_score(board, 7.5)) == result


def test_hex_is_written_as_hexgui_writes_it_and_othello_as_quarry_does():
    log = GameLog(get_game("hex"))
    for action in (0, 48, 3):  # a1 (top left), g7 (bottom right), d1
        log.add(action)
    text = to_sgf(log.record()).decode()
    assert "GM[11]" in text and "SZ[7]" in text and ";B[a1]" in text and "W[g7]" in text
    assert "B[d1]" in text
    log = GameLog(get_game("othello"))
    for label in ("f5", "d6", "c3"):  # the usual opening, named as Othello players do
        log.add(get_game("othello").text.parse(label, np.ones(65, bool)))
    text = to_sgf(log.record()).decode()
    assert "GM[2]" in text and ";B[fe]" in text and "W[df]" in text and "B[cc]" in text


def test_an_othello_pass_has_no_node_and_is_read_back_from_the_colours(random_game):
    for seed in range(60):
        record, _, _ = random_game("othello", seed)
        if 64 in record.actions:
            break
    else:
        pytest.fail("no random Othello game passed")
    text = to_sgf(record).decode()
    assert "B[]" not in text and "W[]" not in text and "[tt]" not in text
    assert text.count(";B[") + text.count(";W[") < len(record.moves)
    [back] = from_sgf(text.encode(), "othello.sgf")
    assert back.actions == record.actions and back.result_text == record.result_text


@pytest.mark.parametrize(
    "sgf, game, labels",
    [
        # Quarry's Othello, and Othello's own notation, with the start position written out.
        (b"(;GM[2]FF[4]SZ[8];B[fe];W[df];B[cc])", "othello", ["f5", "d6", "c3"]),
        (b"(;GM[2]FF[4]SZ[8]AB[ed][de]AW[dd][ee];B[f5];W[d6])", "othello", ["f5", "d6"]),
        # HexGui's Hex, and Little Golem's letters.
        (b"(;FF[4]AP[HexGui:0.9]GM[11]SZ[7];B[d4];W[a1];B[g7])", "hex", ["d4", "a1", "g7"]),
        (b"(;FF[4]GM[11]SZ[7];B[dd];W[ag])", "hex", ["d4", "a7"]),
        # Go with both ways of passing; Gomoku by the Go letters.
        (b"(;GM[1]FF[4]SZ[9];B[ee];W[];B[tt])", "go", ["E5", "pass", "pass"]),
        (b"(;GM[4]FF[4]SZ[9];B[ee];W[aa])", "gomoku", ["e5", "a9"]),
    ],
)
def test_files_of_other_programs_read_in_their_notation(sgf, game, labels):
    [record] = from_sgf(sgf, "other.sgf")
    assert record.game == game
    assert [m.label for m in record.moves][: len(labels)] == labels


def test_a_gnugo_game_opens_and_boardq_counts_what_gnugo_counted():
    # gnugo --score finish --capture-all-dead --chinese-rules -l start.sgf -o gnugo-9x9.sgf
    [record] = read_records(DATA / "gnugo-9x9.sgf").records
    assert record.game == "go" and len(record.moves) == 68  # with the two passes
    assert record.moves[:2] and [m.label for m in record.moves[:2]] == ["E5", "C7"]
    assert record.result == -1 and record.result_text == "W+10.5"  # the file's RE[W+10.5]
    assert record.claimed_result is None
    assert [m.label for m in record.moves[-2:]] == ["pass", "pass"]
    assert len(replay_record(record, get_game("go")).boards) == 69


@pytest.mark.skipif(GNUGO is None, reason="GNU Go is not installed (apt-get install gnugo)")
@pytest.mark.parametrize("seed", [0, 1])
def test_gnugo_reads_boardqs_go_file_to_the_same_final_position(tmp_path, seed, random_game):
    record, board, _ = random_game("go", seed)
    path = save_record(record, tmp_path / "game.sgf")
    script = f"loadsgf {path}\nlist_stones black\nlist_stones white\nquit\n"
    out = subprocess.run(
        [GNUGO, "--mode", "gtp"], input=script, capture_output=True, text=True, timeout=60
    ).stdout
    answers = [block[2:].split() for block in out.split("\n\n") if block.startswith("=")]
    assert answers[0] == [["white", "black"][len(record.moves) % 2 == 0]]  # who moves next
    letters = "ABCDEFGHJ"
    for colour, answer in ((1, answers[1]), (-1, answers[2])):
        ours = {f"{letters[c]}{9 - r}" for r, c in zip(*np.nonzero(board == colour), strict=True)}
        assert set(answer) == ours


# --- bad records: one line each ----------------------------------------------------------


@pytest.mark.parametrize(
    "sgf, message",
    [
        (b"(;GM[3]FF[4]SZ[8];W[e2e4])", "GM[3] (chess); boardq reads GM[1] go"),
        (b"(;GM[1]FF[4]SZ[19];B[pd])", "a 19x19 board; boardq's Go is 9x9"),
        (b"(;GM[1]FF[4];B[pd])", "a 19x19 board"),  # SZ left out: 19
        (b"(;GM[11]FF[4]SZ[11];B[f6])", "a 11x11 board; boardq's Hex is 7x7"),
        (b"(;GM[1]FF[4]SZ[9];B[ee];W[ee])", "move 2 (E5) is not legal there"),
        (b"(;GM[1]FF[4]SZ[9];B[ee];B[cc])", "move 2 is Black's, but White is to play"),
        (b"(;GM[1]FF[4]SZ[9]AW[cc];B[ee])", "starts from a set-up position (AW"),
        (b"(;GM[1]FF[4]SZ[9];B[ee];AB[gg];W[cc])", "starts from a set-up position (AB"),
        (b"(;GM[1]FF[4]SZ[9]HA[2]AB[cc][zz];W[ee])", "handicap stone AB[zz] is not a point"),
        (b"(;GM[1]FF[4]SZ[9]HA[2]AB[cc][cc];W[ee])", "a handicap stone is placed twice"),
        (b"(;GM[2]FF[4]SZ[8]AB[cc];B[ee])", "starts from a set-up position (AB"),
        (b"(;GM[1]FF[4]SZ[9];B[ee];W[zz])", "move 2 (W[zz]) is not a point of a 9x9 board"),
        (b"(;GM[1]FF[4]SZ[9];B[];W[];B[ee])", "move 3 (E5) comes after the game ended"),
        (b"(;GM[11]FF[4]SZ[7];B[d4];W[swap-pieces])", "the swap rule"),
        (b"(;GM[1]FF[4]SZ[9];B[ee];W[cc", "not a readable SGF file"),
        (b"(;GM[x]FF[4])", "GM[x] is not a number"),
        (b"not sgf at all", "bad.sgf, line 1: not a JSON record"),
    ],
)
def test_a_foreign_or_broken_file_is_one_line(tmp_path, sgf, message):
    path = tmp_path / "bad.sgf"
    path.write_bytes(sgf)
    with pytest.raises(RecordError) as e:
        read_records(path)
    assert message in str(e.value) and "\n" not in str(e.value)
    assert str(e.value).startswith("bad.sgf") or "bad.sgf" in str(e.value)


def test_a_bad_line_of_a_jsonl_file_leaves_the_other_games(tmp_path, random_game):
    path = tmp_path / "games.jsonl"
    records = [random_game("connect_four", seed)[0] for seed in range(3)]
    for record in records:
        save_record(record, path)
    text = path.read_text()
    other = json.dumps({**records[0].to_json(), "version": 99})
    path.write_text(text + other + "\n" + text.splitlines()[1][:40] + "\n")  # cut short
    found = read_records(path)
    assert [r.actions for r in found.records] == [r.actions for r in records]
    assert found.records[1].source == "games.jsonl, line 2"
    assert len(found.problems) == 2
    assert "line 4: a game record of version 99" in found.problems[0]
    assert "line 5: not a JSON record" in found.problems[1] and "cut short" in found.problems[1]
    path.write_text(text.splitlines()[0][:-10] + "\n")
    with pytest.raises(RecordError, match="line 1: not a JSON record"):
        read_records(path)


@pytest.mark.parametrize(
    "change, message",
    [
        (
            lambda d: d["moves"].__setitem__(
                1, {**d["moves"][1], "action": d["moves"][0]["action"]}
            ),
            "move 2 is named",
        ),  # fmt: skip
        (lambda d: d.__setitem__("moves", [{"action": 3}] * 7), r"move 7 \(4\) is not legal there"),
        (lambda d: d.__setitem__("result", -d["result"]), "but its moves give"),
        (lambda d: d.__setitem__("settings", {"rows": 7, "cols": 8}), "a game with rows 7"),
        (lambda d: d["moves"].append({"action": 3}), "comes after the game ended"),
    ],
)
def test_a_json_record_that_its_moves_contradict_is_refused(change, message, random_game):
    record, _, _ = random_game("connect_four", seed=7)
    data = record.to_json()
    change(data)
    with pytest.raises(RecordError, match=message) as e:
        replay_record(GameRecord.from_json(data, "x.jsonl, line 1"), get_game("connect_four"))
    assert str(e.value).startswith("x.jsonl, line 1: ")


@pytest.mark.parametrize(
    "data, message",
    [
        ({"format": "other"}, "not a boardq game record"),
        ({"format": "boardq-game", "version": 1}, "the record has no 'game'"),
        (
            {
                "format": "boardq-game",
                "version": 1,
                "game": "go",
                "players": [{"name": "a"}],
                "moves": [],
            },
            "players must name 2 seats",
        ),  # fmt: skip
        (
            {
                "format": "boardq-game",
                "version": 1,
                "game": "go",
                "players": [{"name": "a"}] * 2,
                "moves": [{"action": -3}],
            },
            "move 1: the action must be a whole number",
        ),  # fmt: skip
        (
            {
                "format": "boardq-game",
                "version": 1,
                "game": "go",
                "players": [{"name": "a"}] * 2,
                "moves": [],
                "result": 2,
            },
            "result must be 1, 0, -1 or null",
        ),  # fmt: skip
    ],
)
def test_a_malformed_json_record_is_one_line(data, message):
    with pytest.raises(RecordError, match=message):
        GameRecord.from_json(data, "f.jsonl, line 1")


# --- the recorder and the folder -----------------------------------------------------------
