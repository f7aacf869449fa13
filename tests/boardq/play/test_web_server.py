"""The browser board's server against bad requests, on the wire: each is refused, and
the server still plays a correct game after it (conftest.py's agents: centre, corners,
edges in tic-tac-toe).

A second server of the same app with short timeouts (0.5 s) shows that a stalled
connection is closed by its timeout: the same connections to a third whose timeouts are an
hour are still open once the first has closed them (an order of events, not a time
measured, so a busy machine does not fail it).
"""

from __future__ import annotations

import http.client
import json
import select
import socket
import threading
import time

import pytest

from boardq.play.webguard import HostGuard

TIMEOUT_SEC = 0.5
PATIENT_SEC = 3600.0
HANG_SEC = 60
"""How long a test waits for the server to close a connection: a guard against a hang only."""


def plays_a_correct_game(client) -> None:
    """A new game, your move in the top left corner, the agent's reply in the centre."""
    state = client.start()
    after = client.ok("POST", f"/api/sessions/{state['session']}/move", {"action": 0})
    assert [m["action"] for m in after["moves"]] == [0, 4]
    assert after["board"][0][0] == 0 and after["board"][1][1] == 1


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


def send_raw(client, data: bytes) -> socket.socket:
    sock = socket.create_connection((client.host, client.port), timeout=30)
    sock.sendall(data)
    return sock


def head(client, method: str, path: str, length: int) -> bytes:
    return (
        f"{method} {path} HTTP/1.1\r\nHost: {client.host}:{client.port}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {length}\r\n\r\n"
    ).encode()


def test_a_truncated_body_is_not_acted_on(web_client):
    sessions = len(web_client.app.sessions)
    state = web_client.start()
    move = f"/api/sessions/{state['session']}/move"
    for path, body in (("/api/sessions", b'{"game": "tic'), (move, b'{"action": 0'), (move, b"")):
        sock = send_raw(web_client, head(web_client, "POST", path, 40) + body)
        sock.shutdown(socket.SHUT_WR)  # the client leaves before the body is whole
        assert sock.recv(1000) == b""  # not answered
        sock.close()
    time.sleep(0.2)
    assert len(web_client.app.sessions) == sessions + 1  # the one started above
    assert web_client.ok("GET", f"/api/sessions/{state['session']}") == state
    plays_a_correct_game(web_client)


def test_a_body_over_the_limit_is_refused_before_it_is_read(web_client):
    answer = web_client.answer_to(head(web_client, "POST", "/api/sessions", 10**9))
    assert answer.startswith("HTTP/1.1 413 ") and "at most 65536 bytes" in answer
    plays_a_correct_game(web_client)


def serve_with_timeouts(web_client, timeout_sec: float):
    """Another server of the same app whose head and body timeouts are `timeout_sec`."""
    from boardq.play.web import make_server

    from .conftest import Client

    server = make_server(
        web_client.app, "127.0.0.1", 0, head_timeout_sec=timeout_sec, body_timeout_sec=timeout_sec
    )
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    client = Client(*server.server_address[:2])
    client.app = web_client.app
    try:
        yield client
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=30)


@pytest.fixture(scope="module")
def quick_timeouts(web_client):
    """A second server of the same app whose timeouts are 0.5 s."""
    yield from serve_with_timeouts(web_client, TIMEOUT_SEC)


@pytest.fixture(scope="module")
def patient_timeouts(web_client):
    """A third server of the same app whose timeouts are an hour."""
    yield from serve_with_timeouts(web_client, PATIENT_SEC)


def closed_within(sock: socket.socket, seconds: float) -> bytes:
    """What the server sent before it closed the connection, within `seconds`."""
    sock.settimeout(seconds)
    data = b""
    try:
        while chunk := sock.recv(4096):
            data += chunk
    except ConnectionResetError:  # closed while the client was still sending
        pass
    return data


def closed_by_server(sock: socket.socket) -> bool:
    """Whether the server has closed `sock`, seen now (without waiting, nothing read)."""
    readable, _, _ = select.select([sock], [], [], 0)
    if not readable:
        return False
    try:
        return sock.recv(1, socket.MSG_PEEK) == b""
    except ConnectionResetError:
        return True


def stall(client) -> list[socket.socket]:
    return [
        send_raw(client, b""),  # connected, and nothing sent
        send_raw(client, b"POST /api/sessions HTTP/1.1\r\nHost: 127"),  # half a head
    ]


def test_a_stalled_connection_is_closed_by_a_timeout(quick_timeouts, patient_timeouts):
    client = quick_timeouts
    held = stall(patient_timeouts)  # the same, to a server that waits an hour
    stalled = stall(client)
    # A head sent a byte at a time, each within the timeout, is closed all the same: the
    # timeout counts from the connection, not from the last byte. (On a busy machine the
    # bytes may come further apart; then the server closes it all the sooner.)
    trickle = send_raw(client, b"G")
    for byte in b"ET / HTTP/1.1\r\nUser-Agent: " + b"a" * 200:
        time.sleep(TIMEOUT_SEC / 4)
        if closed_by_server(trickle):
            break
        trickle.sendall(bytes([byte]))
    else:
        raise AssertionError("a head that kept coming a byte at a time was never closed")
    stalled.append(trickle)
    # Meanwhile the server plays on.
    plays_a_correct_game(client)
    for sock in stalled:
        assert closed_within(sock, HANG_SEC) == b""
        sock.close()
    # Closed by the server's timeout: the patient server's connections, opened first, stay.
    assert not any(closed_by_server(sock) for sock in held)
    for sock in held:
        sock.close()
    # A body that stops coming gets a 408, and nothing is done.
    sessions = len(client.app.sessions)
    sock = send_raw(client, head(client, "POST", "/api/sessions", 40) + b'{"game":')
    answer = closed_within(sock, HANG_SEC).decode()
    sock.close()
    assert answer.startswith("HTTP/1.1 408 ") and "did not come whole within 0.5 s" in answer
    assert len(client.app.sessions) == sessions
    # A kept-alive connection serves several requests, then is closed when idle.
    connection = http.client.HTTPConnection(client.host, client.port, timeout=HANG_SEC)
    for _ in range(3):
        connection.request("GET", "/api/games")
        assert connection.getresponse().read()
    assert closed_within(connection.sock, HANG_SEC) == b""
    connection.close()
    plays_a_correct_game(client)


def test_disconnects_are_quiet(web_client, capfd):
    state = web_client.start()
    move = head(web_client, "POST", f"/api/sessions/{state['session']}/move", 13)
    for data in (move + b'{"action": 0}', head(web_client, "GET", "/", 0)):
        sock = send_raw(web_client, data)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        sock.close()  # a reset, before the answer is read
    time.sleep(0.5)
    plays_a_correct_game(web_client)
    captured = capfd.readouterr()
    assert "Traceback" not in captured.err and "Error" not in captured.err, captured.err
