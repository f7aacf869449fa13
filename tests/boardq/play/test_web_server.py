"""The browser board's server against bad requests, on the wire: each is refused, and
the server still plays a correct game after it (conftest.py's agents: centre, corners,
edges in tic-tac-toe). Bodies cut short or too long, stalled and dropped connections:
test_web_connections.py.
"""

from __future__ import annotations

import http.client
import json

import pytest
from web_game import plays_a_correct_game

from boardq.web.guard import HostGuard


def raw(client, method, path, body=None, headers=None):
    """(status, headers, JSON) of one request with the headers given, no others added."""
    connection = http.client.HTTPConnection(client.host, client.port, timeout=120)
    try:
        connection.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        headers = {"Host": f"{client.host}:{client.port}", **(headers or {})}
        if body is not None:
            headers["Content-Length"] = str(len(body))
        for name, value in headers.items():
            if value is not None:
                connection.putheader(name, value)
        connection.endheaders(body)
        response = connection.getresponse()
        data = response.read()
        is_json = response.getheader("Content-Type") == "application/json"
        return response.status, response, json.loads(data) if is_json and data else data
    finally:
        connection.close()


def test_a_cross_site_post_is_refused(web_client):
    sessions = len(web_client.app.sessions)
    body = json.dumps({"game": "tictactoe"}).encode()
    for headers in (
        # A form or fetch() on another site's page: the browser says where it comes from.
        {"Origin": "http://evil.example", "Content-Type": "text/plain"},
        {"Origin": "null"},
        {"Origin": f"http://{web_client.host}:{web_client.port + 1}"},
        {"Sec-Fetch-Site": "cross-site"},
        {"Sec-Fetch-Site": "same-site"},
    ):
        status, _, data = raw(web_client, "POST", "/api/sessions", body, headers)
        assert status == 403, headers
        assert "another site" in data["error"]
    assert len(web_client.app.sessions) == sessions
    # The board's own page, and a client that is not a browser (no Origin), play.
    own = {"Origin": f"http://{web_client.host}:{web_client.port}", "Sec-Fetch-Site": "same-origin"}
    assert raw(web_client, "POST", "/api/sessions", body, own)[0] == 201
    assert raw(web_client, "POST", "/api/sessions", body)[0] == 201
    # Reading changes nothing, so a GET may come from anywhere (a link).
    assert raw(web_client, "GET", "/api/games", None, {"Sec-Fetch-Site": "cross-site"})[0] == 200
    plays_a_correct_game(web_client)


@pytest.mark.parametrize("host", ["evil.example", f"evil.example:{8000}", "127.0.0.1.evil.example"])
def test_a_foreign_host_is_refused(web_client, host):
    for method, path in (("GET", "/"), ("GET", "/api/games"), ("POST", "/api/sessions")):
        status, response, data = raw(web_client, method, path, b"{}", {"Host": host})
        assert status == 400 and response.getheader("Content-Type") == "application/json"
        name = host.split(":")[0]
        assert f"does not answer to {name!r}" in data["error"]
        assert f"--allow-host {name}" in data["error"]
    # Loopback names reach a server on loopback, with or without a port.
    for name in ("localhost", f"localhost:{web_client.port}", f"127.0.0.1:{web_client.port}"):
        assert raw(web_client, "GET", "/api/games", None, {"Host": name})[0] == 200
    plays_a_correct_game(web_client)


def test_a_request_without_a_host_is_refused(web_client):
    status, _, data = raw(web_client, "GET", "/api/games", None, {"Host": None})
    # HTTP/1.1 requires Host: the parser itself answers 400 (plain text, not the app's).
    assert (status, data) == (400, b"Invalid HTTP request received.")
    plays_a_correct_game(web_client)


@pytest.mark.parametrize(
    ("host", "allow", "name", "answered"),
    [
        ("127.0.0.1", (), "localhost", True),
        ("127.0.0.1", (), "[::1]:8000", True),
        ("127.0.0.1", (), "192.168.1.5", False),
        ("127.0.0.1", (), "rebound.example", False),
        ("0.0.0.0", (), "192.168.1.5:8000", True),
        ("0.0.0.0", (), "[fe80::1]:8000", True),
        ("0.0.0.0", (), "board.example", False),
        ("0.0.0.0", ("board.example",), "BOARD.example.:8000", True),
        ("0.0.0.0", ("board.example",), "other.example", False),
        ("board.example", (), "board.example", True),
        ("::", (), "10.0.0.1", True),
        ("127.0.0.1", ("*",), "anything.example", True),
        ("127.0.0.1", (), "user@localhost", False),
        ("127.0.0.1", (), "localhost:port", False),
        ("127.0.0.1", (), "", False),
    ],
)
def test_which_host_names_a_server_answers_to(host, allow, name, answered):
    assert (HostGuard(host, allow).host_refusal(name) is None) is answered


@pytest.mark.parametrize(
    ("method", "headers", "answered"),
    [
        ("POST", {"host": "127.0.0.1:8000", "origin": "http://127.0.0.1:8000"}, True),
        ("POST", {"host": "localhost:8000", "origin": "http://localhost:8000"}, True),
        ("POST", {"host": "board.example", "origin": "https://board.example"}, True),
        ("POST", {"host": "127.0.0.1:8000", "origin": "http://localhost:8000"}, False),
        ("POST", {"host": "127.0.0.1:8000", "origin": "http://127.0.0.1:8001"}, False),
        ("POST", {"host": "127.0.0.1:8000", "origin": "file://"}, False),
        ("POST", {"host": "127.0.0.1:8000", "sec-fetch-site": "same-origin"}, True),
        ("POST", {"host": "127.0.0.1:8000", "sec-fetch-site": "none"}, True),
        ("POST", {"host": "127.0.0.1:8000", "sec-fetch-site": "cross-site"}, False),
        ("POST", {"host": "127.0.0.1:8000"}, True),
        ("DELETE", {"host": "127.0.0.1:8000", "origin": "http://evil.example"}, False),
        ("GET", {"host": "127.0.0.1:8000", "origin": "http://evil.example"}, True),
        ("HEAD", {"host": "127.0.0.1:8000", "sec-fetch-site": "cross-site"}, True),
    ],
)
def test_which_origins_may_change_something(method, headers, answered):
    assert (HostGuard("127.0.0.1").origin_refusal(method, headers) is None) is answered


def test_every_method_on_every_route_is_answered_in_json(web_client):
    state = web_client.start()
    session = f"/api/sessions/{state['session']}"
    routes = {
        "/": "GET, HEAD",
        "/static/app.js": "GET, HEAD",
        "/api/games": "GET, HEAD",
        "/api/sessions": "POST",
        session: "GET, HEAD",
        f"{session}/hints": "GET, HEAD",
        f"{session}/move": "POST",
        f"{session}/undo": "POST",
    }
    for path, allow in routes.items():
        for method in ("PUT", "DELETE", "OPTIONS", "PATCH", "TRACE", "BREW"):
            status, response, data = raw(web_client, method, path)
            assert status == 405, (method, path)
            assert response.getheader("Content-Type") == "application/json"
            assert response.getheader("Allow") == allow and f"not {method}" in data["error"]
    # HEAD answers as GET does, without the body.
    for path in ("/", "/static/style.css", "/api/games", session):
        get = raw(web_client, "GET", path)[1]
        status, head, _ = raw(web_client, "HEAD", path)
        assert status == 200 and head.getheader("Content-Type") == get.getheader("Content-Type")
        assert head.getheader("Content-Length") == get.getheader("Content-Length")
    assert raw(web_client, "HEAD", "/nosuch")[0] == 404
    assert web_client.ok("GET", session) == state
    plays_a_correct_game(web_client)


def test_a_huge_integer_is_a_400_not_a_500(web_client):
    state = web_client.start()
    for number in ("9" * 5000, "-" + "9" * 19, "1" + "0" * 18):
        body = f'{{"action": {number}}}'.encode()
        status, _, data = raw(web_client, "POST", f"/api/sessions/{state['session']}/move", body)
        assert status == 400 and "over 18 digits" in data["error"], number
    status, _, data = raw(web_client, "POST", "/api/sessions", b'{"seat": ' + b"1" * 4301 + b"}")
    assert status == 400 and "over 18 digits" in data["error"]
    assert web_client.ok("GET", f"/api/sessions/{state['session']}") == state
    plays_a_correct_game(web_client)
