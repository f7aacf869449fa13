"""Game records on the web board's API: a game saved as a file, a record file opened.

Against the real server of conftest.py (tic-tac-toe, Connect Four and Hex, agents of
known taste). A saved game is read back with boardq's own reader and replayed in the
game's environment; an opened record is checked position by position against the same
replay. Bad files must be one line each, and leave the person's game as it was.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from boardq.catalog import get_game
from boardq.play.layout import BoardLayout
from boardq.records import parse_records, read_records, replay_record

DATA = Path(__file__).parents[1] / "records" / "data"
GNUGO_FILE = DATA / "gnugo-9x9.sgf"
GNUGO = GNUGO_FILE.read_bytes()


def path(state: dict, action: str = "") -> str:
    return f"/api/sessions/{state['session']}" + (f"/{action}" if action else "")


def play_first_legal(web_client, state: dict) -> dict:
    """Plays the first legal move until the game ends (the agents take the first too)."""
    while not state["over"]:
        state = web_client.ok("POST", path(state, "move"), {"action": min(state["legal"])})
    return state


def saved(web_client, state: dict, fmt: str) -> tuple[dict[str, str], bytes]:
    status, headers, body = web_client.download(path(state, "record") + f"?format={fmt}")
    assert status == 200, body
    return headers, body


def layout_of(name: str) -> BoardLayout:
    return BoardLayout.of_game(get_game(name))


# -- a game saved ------------------------------------------------------------------------
def test_a_finished_hex_game_is_saved_as_sgf_and_replays_to_the_same_end(web_client):
    state = play_first_legal(web_client, web_client.start("hex"))
    headers, data = saved(web_client, state, "sgf")
    assert headers["content-type"] == "application/x-go-sgf; charset=utf-8"
    # Named as the terminal's `save` names a game.
    assert re.fullmatch(
        r'attachment; filename="boardq-hex-\d{8}-\d{6}\.sgf"', headers["content-disposition"]
    )
    assert data.startswith(b"(;FF[4]") and b"GM[11]" in data
    [record] = parse_records(data, "saved.sgf").records
    assert record.actions == [m["action"] for m in state["moves"]]
    assert record.players[0].name == "you"
    assert (
        record.players[1].name.startswith("boardq agent ") and "hex.npz" in record.players[1].name
    )
    replayed = replay_record(record, get_game("hex"))
    assert layout_of("hex").pieces(replayed.boards[-1]) == state["board"]
    won = {"won": 1, "lost": -1}[state["result"]]  # you moved first: black
    assert record.result == replayed.result == won
    assert record.result_text == ("B+" if won == 1 else "W+")
    # Every move has its time; the agent's (white's) its value of the move.
    assert all(m.seconds is not None and m.seconds >= 0 for m in record.moves)
    assert all(m.value is None for m in record.moves[0::2])
    assert all(m.value is not None for m in record.moves[1::2])


def test_a_tictactoe_game_is_a_json_line_with_the_agents_values(web_client):
    state = web_client.start(seat=1)  # the agent opens: the centre
    state = web_client.ok("POST", path(state, "move"), {"action": 0})
    assert state["records"] == ["jsonl"]
    status, data = web_client.request("GET", path(state, "record") + "?format=sgf")
    assert status == 400 and "Tic-tac-toe has no SGF" in data["error"]
    headers, body = saved(web_client, state, "jsonl")
    assert re.search(
        r'filename="boardq-tictactoe-\d{8}-\d{6}\.jsonl"', headers["content-disposition"]
    )
    assert body.endswith(b"\n") and body.count(b"\n") == 1
    line = json.loads(body)
    assert [m["action"] for m in line["moves"]] == [4, 0, 2]  # centre; yours; a corner
    assert [p["name"] for p in line["players"]][1] == "you"
    assert line["result"] is None and line["event"] == "boardq serve"  # unfinished
    # The agent's value of the centre is its bias: its first choice, +0.9.
    assert line["moves"][0]["value"] == pytest.approx(0.9, abs=1e-4)
    assert "value" not in line["moves"][1]


def test_undo_takes_moves_out_of_the_record_and_a_changed_search_is_named(web_client):
    state = web_client.start()
    status, data = web_client.request("GET", path(state, "record"))
    assert status == 409 and "no move has been played" in data["error"]
    state = web_client.ok("POST", path(state, "move"), {"action": 0})
    web_client.ok("POST", path(state, "search"), {"move_time": 0.5})
    state = web_client.ok("POST", path(state, "move"), {"action": 1})
    state = web_client.ok("POST", path(state, "undo"))
    [record] = parse_records(saved(web_client, state, "jsonl")[1], "x.jsonl").records
    assert record.actions == [0, 4]  # the undone move and its reply are gone
    agent = record.players[1]
    assert "search of 0.5 s a move" in agent.name and agent.details["move_time_sec"] == 0.5
    state = web_client.ok("POST", path(state, "move"), {"action": 1})
    [record] = parse_records(saved(web_client, state, "jsonl")[1], "x.jsonl").records
    assert "searched its network alone, then tree search of 0.5 s a move" in record.players[1].name


def test_a_bad_download_request_is_one_line(web_client):
    state = web_client.ok("POST", path(web_client.start(), "move"), {"action": 0})
    for query, words in (("?format=pdf", "sgf or jsonl"), ("?colour=red", "unknown parameter")):
        status, data = web_client.request("GET", path(state, "record") + query)
        assert status == 400 and words in data["error"]
    assert web_client.request("POST", path(state, "record"))[0] == 405


# -- a record opened ---------------------------------------------------------------------
def open_record(web_client, data: bytes, query: str = "name=game.sgf") -> tuple[int, dict]:
    return web_client.request("POST", f"/api/records?{query}", data)


def test_a_gnugo_record_opens_with_every_position(web_client):
    """Go is not served here: a record of any game boardq plays opens."""
    data = GNUGO_FILE.read_bytes()
    status, answer = open_record(web_client, data, "name=/home/me/gnugo-9x9.sgf")
    assert status == 200, answer
    assert answer["file"] == "gnugo-9x9.sgf" and answer["error"] is None
    assert answer["games"] == [
        {"game": "go", "title": "Go", "players": ["unknown", "unknown"], "result": "W+10.5",
         "moves": 68, "started": "2026-12-04"}
    ]  # fmt: skip
    opened = answer["record"]
    [record] = read_records(GNUGO_FILE).records
    replayed = replay_record(record, get_game("go"))
    layout = layout_of("go")
    assert len(opened["positions"]) == 69
    for k in (0, 1, 30, 68):
        assert opened["positions"][k]["board"] == layout.pieces(replayed.boards[k])
    assert opened["positions"][1]["last"] == [4, 4]  # E5, the centre
    assert opened["positions"][68]["last"] is None  # a pass
    assert opened["moves"][0] == {
        "action": 40, "label": "E5", "describe": "E5", "seconds": None, "value": None
    }  # fmt: skip
    assert opened["end"] == "W+10.5" and opened["seats"] == ["black", "white"]
    assert opened["layout"]["rows"] == 9 and opened["game"]["name"] == "go"


def test_a_saved_game_opens_with_its_times_and_values(web_client):
    state = play_first_legal(web_client, web_client.start("connect_four"))
    _, body = saved(web_client, state, "jsonl")
    status, answer = open_record(web_client, body * 2, "name=two.jsonl&game=2")
    assert status == 200 and len(answer["games"]) == 2 and answer["number"] == 2
    opened = answer["record"]
    assert opened["players"][0]["name"] == "you"
    assert opened["positions"][-1]["board"] == state["board"]
    assert sorted(map(tuple, opened["win"])) == sorted(map(tuple, state["win"]))
    assert all(m["seconds"] is not None for m in opened["moves"])
    assert opened["moves"][1]["value"] is not None  # the agent's
    words = {"won": "the first player won", "drawn": "a draw", "lost": "the second player won"}
    assert opened["end"] == words[state["result"]]  # you moved first


LONG_JSONL = b'{"format": "boardq-game", "version": 1' + b"0" * 4999 + b"}"
LONG_SGF = b"(;GM[1]FF[4]SZ[" + b"9" * 5000 + b"];B[ee])"
LONG = "a number 5,000 characters long (boardq reads numbers of at most 40)"
BAD_FILES = [
    # (what, bytes, query, status, words of the error)
    ("cut short", b"(;GM[1]FF[4]SZ[9];B[ee];W[cc", "name=cut.sgf", 422, "not a readable SGF"),
    ("chess", b"(;GM[3]FF[4]SZ[8];W[e2e4])", "name=chess.sgf", 422, "GM[3] (chess)"),
    ("a 19x19 board", b"(;GM[1]FF[4]SZ[19];B[pd])", "name=big.sgf", 422, "a 19x19 board"),
    ("an illegal move", b"(;GM[1]FF[4]SZ[9];B[ee];W[ee])", "name=x.sgf", 422, "move 2 (E5) is not"),
    ("not a record", b"\x89PNG\r\n\x1a\n", "name=a.png", 422, "a.png, line 1: not a JSON record"),
    ("empty", b"", "name=empty.sgf", 422, "empty.sgf is empty"),
    ("a number of 5,000 digits", LONG_JSONL, "name=n.jsonl", 422, f"n.jsonl, line 1: {LONG}"),
    ("an SGF board of 5,000 digits", LONG_SGF, "name=n.sgf", 422, f"n.sgf: SZ: {LONG}"),
    ("no such game", GNUGO, "name=g.sgf&game=2", 400, "holds 1 games: game must be 1-1"),
    ("a bad number", GNUGO, "name=g.sgf&game=two", 400, "game must be a whole number"),
    ("an unknown parameter", GNUGO, "path=/etc", 400, "unknown parameter 'path'"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("data", "query", "status", "words"),
    [case[1:] for case in BAD_FILES],
    ids=[case[0] for case in BAD_FILES],
)
def test_a_bad_record_file_is_one_line_and_the_game_stays(web_client, data, query, status, words):
    state = web_client.ok("POST", path(web_client.start(), "move"), {"action": 0})
    answer = open_record(web_client, data, query)
    assert answer[0] == status and list(answer[1]) == ["error"], answer
    assert words in answer[1]["error"] and "\n" not in answer[1]["error"]
    assert web_client.ok("GET", path(state)) == state


def test_a_bad_game_of_a_file_of_several_is_its_error_and_the_rest_open(web_client):
    good = json.loads(saved_line(web_client))
    illegal = {**good, "moves": [good["moves"][0], good["moves"][0]]}
    unknown = {**good, "game": "chess"}
    lines = [json.dumps(x) for x in (good, illegal, unknown)] + ['{"format": "boardq-game", "ver']
    data = ("\n".join(lines) + "\n").encode()
    status, answer = open_record(web_client, data, "name=games.jsonl&game=2")
    assert status == 200 and answer["record"] is None
    assert answer["error"] == "games.jsonl, line 2: move 2 (1) is not legal there"
    assert [g["game"] for g in answer["games"]] == ["tictactoe", "tictactoe", "chess"]
    assert answer["problems"] == [
        "games.jsonl, line 4: not a JSON record (Unterminated string starting at; cut short?)"
    ]
    status, answer = open_record(web_client, data, "name=games.jsonl&game=3")
    assert answer["error"] == "games.jsonl, line 3: a game of 'chess', which boardq does not play"
    status, answer = open_record(web_client, data, "name=games.jsonl&game=1")
    assert answer["error"] is None and len(answer["record"]["positions"]) == 3


def saved_line(web_client) -> bytes:
    state = web_client.ok("POST", path(web_client.start(), "move"), {"action": 0})
    return saved(web_client, state, "jsonl")[1]


def test_a_record_file_up_to_its_limit_opens_and_one_over_is_refused(web_client):
    from boardq.web.records import MAX_RECORD_BYTES

    # A file of 1 MiB opens (JSON bodies stop at 64 KiB): the game, then blank space.
    padded = GNUGO + b" " * (MAX_RECORD_BYTES - len(GNUGO))
    status, answer = open_record(web_client, padded)
    assert status == 200 and answer["games"][0]["moves"] == 68
    answer = web_client.answer_to(  # refused before the body is read
        f"POST /api/records HTTP/1.1\r\nHost: {web_client.host}\r\n"
        f"Content-Length: {MAX_RECORD_BYTES + 1}\r\n\r\n".encode()
    )
    assert answer.startswith("HTTP/1.1 413 ") and "at most 1 MiB" in answer
    assert web_client.request("GET", "/api/records")[0] == 405


# -- how long the agent thinks -----------------------------------------------------------
def test_a_time_per_move_or_a_depth_up_to_the_games_deepest(web_client):
    state = web_client.start("hex", move_time=0.5)
    assert (state["move_time"], state["depth"], state["max_depth"]) == (0.5, 0, 3)
    assert state["move_times"] == [0.5, 1.0, 2.0, 5.0]
    hints = web_client.ok(
        "GET", path(web_client.ok("POST", path(state, "move"), {"action": 0}), "hints")
    )
    assert hints["move_time"] == 0.5 and len(hints["values"]) == 47
    state = web_client.ok("POST", path(state, "search"), {"depth": 3})
    assert (state["move_time"], state["depth"]) == (None, 3)
    state = web_client.ok("POST", path(state, "search"), {"move_time": 0})
    assert (state["move_time"], state["depth"]) == (None, 0)
    for body, words in (
        ({"depth": 4}, "depth must be from 0 to 3"),
        ({"move_time": 11}, "move_time must be from 0 to 10 seconds"),
        ({"move_time": "1"}, "move_time must be a number of seconds"),
        ({"move_time": 1, "depth": 2}, "not both"),
        ({}, 'give "move_time"'),
    ):
        status, data = web_client.request("POST", path(state, "search"), body)
        assert status == 400 and words in data["error"], body
    assert web_client.start("tictactoe", depth=6)["max_depth"] == 6
