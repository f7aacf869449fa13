"""The browser board's HTTP API against a real server (conftest.py), request by request.

The agent's every reply is known (conftest.TTT_ORDER): centre, corners, edges.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from boardq.catalog import get_game
from boardq.play.layout import BoardLayout
from boardq.play.match import Match
from boardq.web.request import RequestError
from boardq.web.session import WebSession
from boardq.web.store import Sessions

TTT = get_game("tictactoe")


def cell(label: str) -> int:
    """The tic-tac-toe action of a cell number 1-9 (reading order)."""
    return TTT.text.parse(label, np.ones(9, bool))


def path(state: dict, action: str = "") -> str:
    return f"/api/sessions/{state['session']}" + (f"/{action}" if action else "")


# -- games, a new game, moves and replies ----------------------------------------------
def test_the_games_served_and_the_one_to_start_with(web_client):
    listing = web_client.ok("GET", "/api/games")
    assert [g["name"] for g in listing["games"]] == ["tictactoe", "connect_four", "hex"]
    assert listing["default"] == "tictactoe"
    assert [g["rules"] for g in listing["games"]] == [True, True, True]


def test_a_new_game_is_an_empty_board_with_every_cell_clickable(web_client):
    state = web_client.start(seat=0)
    assert state["board"] == [[None] * 3] * 3
    assert state["legal"] == list(range(9))
    assert (state["ply"], state["you"], state["to_move"], state["over"]) == (0, 0, 0, False)
    assert state["score"] == {"won": 0, "drawn": 0, "lost": 0}
    assert state["can_undo"] is False and state["last"] is None
    assert state["marks"] == ["X", "O"]
    layout = state["layout"]
    assert (layout["kind"], layout["rows"], layout["cols"]) == ("grid", 3, 3)
    # PettingZoo's action 1 is the first column's second cell, labelled 4.
    assert layout["actions"][1] == {"action": 1, "label": "4", "kind": "cell", "cells": [[1, 0]]}
    assert web_client.ok("GET", path(state)) == state


def test_a_legal_move_gets_the_agents_reply_shown_as_the_last_move(web_client):
    state = web_client.start()
    after = web_client.ok("POST", path(state, "move"), {"action": cell("1"), "ply": 0})
    assert [m["action"] for m in after["moves"]] == [cell("1"), cell("5")]
    assert [m["by"] for m in after["moves"]] == ["you", "agent"]
    assert after["board"][0][0] == 0 and after["board"][1][1] == 1
    assert after["last"] == {
        "action": cell("5"),
        "label": "5",
        "describe": "5 (b2)",
        "by": "agent",
        "cell": [1, 1],
    }
    assert after["message"] == "The agent played 5 (b2)."
    assert (after["ply"], after["to_move"], after["can_undo"]) == (2, 0, True)
    assert sorted(after["legal"]) == sorted(set(range(9)) - {cell("1"), cell("5")})


def test_hints_are_the_agents_values_of_your_legal_moves(web_client):
    state = web_client.start()
    state = web_client.ok("POST", path(state, "move"), {"action": cell("5")})
    hints = web_client.ok("GET", path(state, "hints"))
    assert hints["ply"] == 2 and hints["depth"] == 0
    values = {v["action"]: v["value"] for v in hints["values"]}
    assert sorted(values) == sorted(state["legal"])
    # The agent's taste: its values fall from +0.9 (the centre) by 0.225 a place, so
    # (with the centre and the top left corner taken) the bottom left corner, its
    # third choice, is worth 0.45 and the bottom edge, its eighth, -0.675.
    assert values[cell("7")] == pytest.approx(0.45, abs=1e-4)
    assert values[cell("8")] == pytest.approx(-0.675, abs=1e-4)


def test_undo_takes_back_your_move_and_the_reply(web_client):
    state = web_client.start()
    web_client.ok("POST", path(state, "move"), {"action": cell("1")})
    after = web_client.ok("POST", path(state, "undo"))
    assert (after["ply"], after["board"], after["can_undo"]) == (0, [[None] * 3] * 3, False)
    assert after["message"] == "Took back your last move."


def test_moving_second_the_agent_opens(web_client):
    state = web_client.start(seat=1)
    assert (state["you"], state["to_move"], state["ply"]) == (1, 1, 1)
    assert state["moves"] == [{"action": cell("5"), "label": "5", "by": "agent"}]
    assert state["last"]["cell"] == [1, 1] and state["can_undo"] is False
    # A new game in the session keeps the score, and may change the seat.
    again = web_client.ok("POST", path(state, "new"), {"seat": 0})
    assert (again["you"], again["ply"], again["session"]) == (0, 0, state["session"])


def play_out(web_client, state: dict, labels: str) -> dict:
    for label in labels:
        if state["over"]:
            break
        state = web_client.ok("POST", path(state, "move"), {"action": cell(label)})
    return state


def test_a_finished_game_counts_once_and_undo_keeps_it(web_client):
    # You 2, agent 5 (centre); you 4, agent 1; you 6, agent 7; you 8, agent 3: 7-5-3.
    state = play_out(web_client, web_client.start(), "2468")
    assert [m["label"] for m in state["moves"]] == list("25416783")
    assert state["over"] and state["result"] == "lost" and state["to_move"] is None
    assert state["message"] == "The agent wins." and state["legal"] == []
    assert sorted(state["win"]) == [[0, 2], [1, 1], [2, 0]]  # the line 3-5-7, marked
    assert state["score"] == {"won": 0, "drawn": 0, "lost": 1}
    status, data = web_client.request("POST", path(state, "move"), {"action": cell("6")})
    assert status == 409 and data["error"].startswith("the game is over")
    assert web_client.request("GET", path(state, "hints"))[0] == 409
    taken = web_client.ok("POST", path(state, "undo"))
    assert taken["score"]["lost"] == 1 and not taken["over"] and taken["ply"] == 6
    assert (taken["result"], taken["scored"], taken["win"]) == (None, "lost", [])
    # The same game played to another end is not counted again: its first result is.
    again = play_out(web_client, taken, "9")  # you 9, agent 3 again: 7-5-3
    assert again["over"] and again["score"] == {"won": 0, "drawn": 0, "lost": 1}
    assert "keeps this game's first result: lost" in again["message"]
    new = web_client.ok("POST", path(state, "new"))
    assert (new["result"], new["scored"], new["score"]["lost"]) == (None, None, 1)


def test_the_search_depth_is_the_sessions_and_needs_rules(web_client):
    state = web_client.start(depth=2)
    assert (state["depth"], state["max_depth"]) == (2, 6)
    assert web_client.ok("POST", path(state, "depth"), {"depth": 0})["depth"] == 0
    hex_state = web_client.start("hex")  # each game to its own deepest (websearch.MAX_DEPTHS)
    assert (hex_state["depth"], hex_state["max_depth"]) == (0, 3)
    assert web_client.ok("POST", path(hex_state, "depth"), {"depth": 1})["depth"] == 1
    status, data = web_client.request("POST", path(hex_state, "depth"), {"depth": 4})
    assert status == 400 and "depth must be from 0 to 3" in data["error"]
    # A game built from its name has no rules: no search.
    session = WebSession(get_game("openspiel:tic_tac_toe"), None, None, "no-rules")
    assert session.max_depth == 0
    with pytest.raises(RequestError, match="no rules"):
        session.set_depth(1)
    with pytest.raises(RequestError, match="no rules"):
        session.set_search(move_time=1.0)


def test_connect_four_is_played_by_columns(web_client):
    state = web_client.start("connect_four")
    places = state["layout"]["actions"]
    assert [p["kind"] for p in places] == ["column"] * 7
    assert places[0]["cells"] == [[r, 0] for r in range(6)]
    after = web_client.ok("POST", path(state, "move"), {"action": 0})
    # Your disc drops to the bottom of column 1; the agent's into column 4.
    assert after["board"][5][0] == 0 and after["board"][5][3] == 1
    assert after["last"]["cell"] == [5, 3] and after["last"]["describe"] == "column 4"


# -- bad requests: a clear 4xx, and nothing changes ---------------------------------------
LONG_TIME = b'{"move_time": 0.' + b"1" * 5000 + b"}"
BAD_REQUESTS = [
    # (what, method, route under the session, body, status, words of the error)
    ("an illegal move", "POST", "move", {"action": 4}, 409, "cell 5 (b2) is taken"),
    ("a move no action names", "POST", "move", {"action": 9}, 400, "from 0 to 8"),
    ("a move that is not a number", "POST", "move", {"action": "5"}, 400, "whole number"),
    ("a move that is a boolean", "POST", "move", {"action": True}, 400, "whole number"),
    ("a move from a page behind", "POST", "move", {"action": 0, "ply": 0}, 409, "out of turn"),
    ("a move without an action", "POST", "move", {"ply": 2}, 400, '"action"'),
    ("malformed JSON", "POST", "move", b'{"action": 0', 400, "not valid JSON"),
    ("a body that is not an object", "POST", "move", b"[0]", 400, "JSON object"),
    ("a body that is not UTF-8", "POST", "move", b"\xff\xfe", 400, "not valid JSON"),
    ("a move of 5,000 digits", "POST", "move", b'{"action": ' + b"7" * 5000 + b"}", 400, "digits"),
    ("a move that is NaN", "POST", "move", b'{"action": NaN}', 400, "NaN is not a number"),
    ("a move time of 5,002 characters", "POST", "search", LONG_TIME, 400, "5,002 characters long"),
    ("a body nested deeply", "POST", "move", b"[" * 60_000, 400, "nested too deeply"),
    ("an unknown field", "POST", "move", {"action": 0, "seat": 1}, 400, "unknown field 'seat'"),
    ("a depth too deep", "POST", "depth", {"depth": 7}, 400, "from 0 to 6"),
    ("a depth left out", "POST", "depth", {}, 400, '"depth"'),
    ("a seat that is not 0 or 1", "POST", "new", {"seat": 2}, 400, "seat must be from 0 to 1"),
    ("a move by GET", "GET", "move", None, 405, "use POST"),
    ("hints by POST", "POST", "hints", {}, 405, "use GET"),
    ("an unknown route", "POST", "resign", {}, 404, "no such route"),
    ("a move by PUT", "PUT", "move", {"action": 0}, 405, "use POST here, not PUT"),
]


@pytest.mark.parametrize(
    ("method", "route", "body", "status", "words"),
    [case[1:] for case in BAD_REQUESTS],
    ids=[case[0] for case in BAD_REQUESTS],
)
def test_a_bad_request_is_a_4xx_json_error_and_changes_nothing(
    web_client, method, route, body, status, words
):
    state = web_client.ok("POST", path(web_client.start(), "move"), {"action": cell("1")})
    answer = web_client.request(method, path(state, route), body)
    assert answer[0] == status, answer
    assert list(answer[1]) == ["error"] and words in answer[1]["error"]
    assert web_client.ok("GET", path(state)) == state


def test_unknown_sessions_games_and_files(web_client):
    status, data = web_client.request("GET", "/api/sessions/nosuch")
    assert status == 404 and "unknown session 'nosuch'" in data["error"]
    status, data = web_client.request("POST", "/api/sessions/nosuch/move", {"action": 0})
    assert status == 404 and "unknown session" in data["error"]
    status, data = web_client.request("POST", "/api/sessions", {"game": "chess"})
    assert status == 404 and data["error"].startswith("unknown game 'chess'")
    assert "tictactoe, connect_four, hex" in data["error"]
    status, data = web_client.request("POST", "/api/sessions", {"game": 3})
    assert status == 400 and '"game"' in data["error"]
    for route in ("/static/nosuch.js", "/static/../web.py", "/static/web.py", "/elsewhere"):
        status, content_type, _ = web_client.raw("GET", route)
        assert (status, content_type) == (404, "application/json"), route


def test_a_body_too_large_is_refused(web_client):
    state = web_client.start()
    big = json.dumps({"action": 0, "pad": "x" * 70_000}).encode()
    status, _, body = web_client.raw("POST", path(state, "move"), big)
    assert status == 413 and "error" in json.loads(body)
    assert web_client.ok("GET", path(state)) == state


def test_the_page_and_its_files_are_served(web_client):
    status, content_type, body = web_client.raw("GET", "/")
    assert (status, content_type) == (200, "text/html; charset=utf-8")
    assert b'src="/static/app.js"' in body and b'href="/static/style.css"' in body
    assert web_client.raw("GET", "/static/app.js")[:2] == (200, "text/javascript; charset=utf-8")
    assert web_client.raw("GET", "/static/style.css")[:2] == (200, "text/css; charset=utf-8")


# -- without a server: the layouts of the six games, the session store ---------------------
def layout_of(name: str) -> BoardLayout:
    return BoardLayout.of_game(get_game(name))


@pytest.mark.parametrize(
    ("name", "rows", "cols", "kinds", "shifted"),
    [
        ("tictactoe", 3, 3, {"cell": 9}, False),
        ("connect_four", 6, 7, {"column": 7}, False),
        ("othello", 8, 8, {"cell": 64, "button": 1}, False),
        ("gomoku", 9, 9, {"cell": 81}, False),
        ("hex", 7, 7, {"cell": 49}, True),
        ("go", 9, 9, {"cell": 81, "button": 1}, False),
    ],
)
def test_each_game_is_drawn_as_its_text_board_is(name, rows, cols, kinds, shifted):
    layout = layout_of(name)
    assert (layout.kind, layout.rows, layout.cols) == ("grid", rows, cols)
    counted: dict[str, int] = {}
    for place in layout.places:
        counted[place.kind] = counted.get(place.kind, 0) + 1
    assert counted == kinds
    # Every cell is clicked for one action only, and buttons are passes.
    cells = [c for p in layout.places if p.kind == "cell" for c in p.cells]
    assert len(cells) == len(set(cells))
    assert all(p.label == "pass" for p in layout.places if p.kind == "button")
    assert layout.shift == ([r / 2 for r in range(rows)] if shifted else [0.0] * rows)


def test_grid_games_name_their_cells_as_their_players_do():
    go = layout_of("go")
    # Point (r, c) is action 9r + c, rows counted from the bottom as on a Go board.
    assert go.places[0].cells == ((0, 0),) and go.places[0].label == "A9"
    assert go.places[80].cells == ((8, 8),) and go.places[80].label == "J1"
    assert (go.col_labels, go.row_labels) == (list("ABCDEFGHJ"), [str(9 - r) for r in range(9)])
    assert layout_of("connect_four").col_labels == [str(c) for c in range(1, 8)]


def test_a_game_drawn_as_text_gets_a_button_per_move():
    game = get_game("openspiel:tic_tac_toe")
    match = Match(game)
    try:
        layout = BoardLayout(game.text, game.num_actions, match.board())
        assert layout.kind == "text"
        assert {p.kind for p in layout.places} == {"button"}
        assert isinstance(layout.pieces(match.board()), str)
    finally:
        match.close()


def test_the_least_recently_used_session_goes_first():
    class Idle:
        def move(self, observation, depth=0, move_time=None, visits=None):
            return int(np.flatnonzero(observation["action_mask"])[0]), None

        def q_values(self, observation, depth=0, move_time=None, visits=None):
            return np.zeros(9)

    sessions = Sessions(limit=2)
    layout = layout_of("tictactoe")
    first, second = (sessions.add(TTT, Idle(), layout) for _ in range(2))
    sessions.get(first.id)
    sessions.add(TTT, Idle(), layout)
    assert sessions.get(first.id) is first
    with pytest.raises(RequestError, match="unknown session"):
        sessions.get(second.id)
    sessions.close()
