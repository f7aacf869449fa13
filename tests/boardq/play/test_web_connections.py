"""The browser board's server against connections that go wrong, on the wire: a body cut
short or over the limit, a stalled connection, a client gone. Each is dealt with, and the
server still plays a correct game after it (conftest.py's agents).

A second server of the same app with short timeouts (0.5 s) shows that a stalled
connection is closed by its timeout: the same connections to a third whose timeouts are an
hour are still open once the first has closed them (an order of events, not a time
measured, so a busy machine does not fail it).
"""

from __future__ import annotations

import http.client
import select
import socket
import threading
import time

import pytest
from web_game import plays_a_correct_game

TIMEOUT_SEC = 0.5
PATIENT_SEC = 3600.0
HANG_SEC = 60
"""How long a test waits for the server to close a connection: a guard against a hang only."""


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
    from boardq.web.server import make_server

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
