"""What the play tests share: a real `boardq serve` server on a free port for the
browser-board tests, and Go's GTP engine with a stand-in agent for the GTP tests.

Its agents are real agent files of fixed taste (every kernel zero, the output bias
ranking the actions), so every reply is known in advance: in tic-tac-toe the agent
takes the centre, then the corners, then the edges.
"""

from __future__ import annotations

import http.client
import json
import socket
import threading
from pathlib import Path

import numpy as np
import pytest
from gtp_talk import first_legal

from boardq.catalog import get_game
from boardq.config import NetworkConfig
from boardq.gtp.engine import AgentEngine
from boardq.players.agentfile import export_agent

# PettingZoo's tic-tac-toe numbers cells down the columns: 4 is the centre, 0 2 6 8
# the corners (top left, bottom left, top right, bottom right).
TTT_ORDER = [4, 0, 2, 6, 8, 1, 3, 5, 7]
SERVED = ("tictactoe", "connect_four", "hex")


def export_preference_agent(path: Path, game, order: list[int]) -> Path:
    bias = np.full(game.num_actions, -1.0, np.float32)
    bias[order] = np.linspace(0.9, -0.9, len(order))
    kernel = np.zeros((int(np.prod(game.obs_shape)), game.num_actions), np.float32)
    network = NetworkConfig(conv_filters=(), hidden_units=())
    return export_agent(path, game.name, network, game.obs_shape, game.num_actions, [kernel, bias])


class Client:
    """JSON over HTTP to the test server: `request(method, path, body)` -> (status, data)."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.url = f"http://{host}:{port}/"

    def raw(self, method: str, path: str, body: bytes | None = None, headers=None):
        connection = http.client.HTTPConnection(self.host, self.port, timeout=60)
        try:
            connection.request(method, path, body=body, headers=headers or {})
            response = connection.getresponse()
            return response.status, response.getheader("Content-Type"), response.read()
        finally:
            connection.close()

    def answer_to(self, data: bytes) -> str:
        """Sends raw bytes on a new connection; what the server sent until it closed it.

        For requests `http.client` would not send as they are (a body over the limit
        announced and never sent): the answer's head and body may come in several
        pieces, then the close.
        """
        sock = socket.create_connection((self.host, self.port), timeout=30)
        try:
            sock.sendall(data)
            chunks = []
            while chunk := sock.recv(4096):
                chunks.append(chunk)
            return b"".join(chunks).decode()
        finally:
            sock.close()

    def download(self, path: str) -> tuple[int, dict[str, str], bytes]:
        """GET a file: its status, headers (names in lower case) and bytes."""
        connection = http.client.HTTPConnection(self.host, self.port, timeout=60)
        try:
            connection.request("GET", path)
            response = connection.getresponse()
            headers = {k.lower(): v for k, v in response.getheaders()}
            return response.status, headers, response.read()
        finally:
            connection.close()

    def request(self, method: str, path: str, body=None) -> tuple[int, dict]:
        data = body if isinstance(body, bytes) or body is None else json.dumps(body).encode()
        status, content_type, payload = self.raw(method, path, data)
        assert content_type == "application/json", (status, content_type, payload)
        return status, json.loads(payload)

    def ok(self, method: str, path: str, body=None) -> dict:
        status, data = self.request(method, path, body)
        assert status in (200, 201), data
        return data

    def start(self, game: str = "tictactoe", **fields) -> dict:
        return self.ok("POST", "/api/sessions", {"game": game, **fields})


@pytest.fixture(scope="session")
def web_client(tmp_path_factory) -> Client:
    """A server of tic-tac-toe (the page's first game), Connect Four and Hex."""
    from boardq.catalog import get_game
    from boardq.players.agent import Agent
    from boardq.web.app import WebApp
    from boardq.web.server import make_server

    folder = tmp_path_factory.mktemp("web-agents")
    games = {name: get_game(name) for name in SERVED}
    orders = {"tictactoe": TTT_ORDER, "connect_four": [3, 2, 4, 1, 5, 0, 6]}
    files = {
        name: export_preference_agent(
            folder / f"{name}.npz", game, orders.get(name, list(range(game.num_actions)))
        )
        for name, game in games.items()
    }
    app = WebApp(games, lambda game: Agent.load(files[game.name], game=game.name), "tictactoe")
    server = make_server(app, "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    client = Client(*server.server_address[:2])
    client.app = app
    try:
        yield client
    finally:
        server.shutdown()
        server.server_close()
        app.sessions.close()
        thread.join(timeout=30)


@pytest.fixture
def go() -> AgentEngine:
    """Go's GTP engine, in-process, its agent the first legal move."""
    return AgentEngine(get_game("go"), first_legal, "boardq", "test")
