"""`boardq serve`'s web server: a board in the browser, played against an agent.

Standard library only (`http.server.ThreadingHTTPServer`). The page (`static/`) draws
the board from the JSON the server sends; every game is kept on the server
(`boardq.play.websession`), one session per page. The routes:

    GET  /                          the page
    GET  /static/NAME               its script and style sheet
    GET  /api/games                 the games served, and the one to start with
    POST /api/sessions              {"game", "seat"?, "depth"?}: a new session, its game
    GET  /api/sessions/ID           the session's state
    POST /api/sessions/ID/move      {"action", "ply"?}: your move, and the agent's reply
    POST /api/sessions/ID/undo      take back your last move and the reply
    POST /api/sessions/ID/new       {"seat"?, "depth"?}: a new game, the score kept
    POST /api/sessions/ID/depth     {"depth"}: how far the agent looks ahead
    GET  /api/sessions/ID/hints     the agent's values of your legal moves

A state is the board (each cell's owner), the layout (where each action is clicked,
`boardq.play.layout`), the legal actions, the last move, the move list and the score.
A request that cannot be carried out is answered `{"error": "..."}` with a 4xx status
and changes nothing.
"""

from __future__ import annotations

import json
import re
import sys
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib.resources import files
from typing import Any
from urllib.parse import urlsplit

from boardq.errors import BoardqError
from boardq.game import Game
from boardq.play.layout import BoardLayout
from boardq.play.match import Match
from boardq.play.websession import Advisor, RequestError, Sessions, WebSession, whole_number

__all__ = ["WebApp", "make_server"]

MAX_BODY_BYTES = 64 * 1024
_STATIC_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
}
_STATIC_NAME = re.compile(r"[A-Za-z0-9_-]+(\.[a-z]+)")
_SESSION_ROUTE = re.compile(r"/api/sessions/([^/]+)(?:/([a-z]+))?")
# Per action of a session: its HTTP method, and the fields its body may have.
_SESSION_ACTIONS = {
    None: ("GET", ()),
    "hints": ("GET", ()),
    "move": ("POST", ("action", "ply")),
    "undo": ("POST", ()),
    "new": ("POST", ("seat", "depth")),
    "depth": ("POST", ("depth",)),
}


class _Serial:
    """An agent asked by one request at a time (sessions of a game share it)."""

    def __init__(self, agent: Advisor) -> None:
        self._agent = agent
        self._lock = threading.Lock()

    def act(self, observation: dict, search_depth: int = 0) -> int:
        with self._lock:
            return self._agent.act(observation, search_depth)

    def q_values(self, observation: dict, search_depth: int = 0):
        with self._lock:
            return self._agent.q_values(observation, search_depth)


class WebApp:
    """The games served, their agents and the sessions; answers requests as JSON.

    Args:
      games: the games the page offers, by name (their order is the menu's).
      agent_for: loads the agent of a game (asked once per game, when its first
        session starts); a `BoardqError` (no agent found, say) is the request's error.
      default: the game the page starts with; None: the page asks.
      depth: the search depth new sessions start with, where the game has rules.
    """

    def __init__(
        self,
        games: dict[str, Game],
        agent_for: Callable[[Game], Advisor],
        default: str | None = None,
        depth: int = 0,
    ) -> None:
        self.games = games
        self.default = default
        self.depth = depth
        self.sessions = Sessions()
        self._agent_for = agent_for
        self._agents: dict[str, _Serial] = {}
        self._layouts: dict[str, BoardLayout] = {}
        self._lock = threading.Lock()

    def handle(self, method: str, path: str, body: bytes = b"") -> tuple[int, dict[str, Any]]:
        """Answers one API request: (HTTP status, JSON object)."""
        try:
            return self._route(method, path, body)
        except RequestError as e:
            return e.status, {"error": e.message}

    def _route(self, method: str, path: str, body: bytes) -> tuple[int, dict[str, Any]]:
        if path == "/api/games":
            _allow(method, "GET")
            return 200, self._games_json()
        if path == "/api/sessions":
            _allow(method, "POST")
            fields = _fields(body, ("game", "seat", "depth"))
            return 201, self._start(fields)
        found = _SESSION_ROUTE.fullmatch(path)
        if found is None or found.group(2) not in _SESSION_ACTIONS:
            raise RequestError(404, f"no such route: {method} {path}")
        action = found.group(2)
        allowed, names = _SESSION_ACTIONS[action]
        _allow(method, allowed)
        fields = _fields(body, names) if method == "POST" else {}
        session = self.sessions.get(found.group(1))
        with session.lock:
            return 200, self._session_request(session, action, fields)

    @staticmethod
    def _session_request(
        session: WebSession, action: str | None, fields: dict[str, Any]
    ) -> dict[str, Any]:
        if action == "hints":
            return session.hints()
        if action == "move":
            if "action" not in fields:
                raise RequestError(400, 'a move needs "action": the action number')
            session.play(fields["action"], fields.get("ply"))
        elif action == "undo":
            session.undo()
        elif action == "new":
            session.new_game(fields.get("seat"), fields.get("depth"))
        elif action == "depth":
            if "depth" not in fields:
                raise RequestError(400, 'give "depth": how many moves the agent looks ahead')
            session.set_depth(fields["depth"])
        return session.state()

    def _games_json(self) -> dict[str, Any]:
        return {
            "games": [
                {"name": g.name, "title": g.title, "rules": g.rules is not None}
                for g in self.games.values()
            ],
            "default": self.default,
        }

    def _start(self, fields: dict[str, Any]) -> dict[str, Any]:
        name = fields.get("game", self.default)
        if not isinstance(name, str):
            raise RequestError(400, 'give "game": the name of the game to play')
        game = self.games.get(name)
        if game is None:
            raise RequestError(
                404, f"unknown game {name!r}; this server plays: {', '.join(self.games)}"
            )
        seat = whole_number(fields.get("seat", 0), "seat", 0, 1)
        agent, layout = self.prepare(game)
        session = self.sessions.add(game, agent, layout)
        with session.lock:
            try:
                depth = fields.get("depth", self.depth if game.rules is not None else 0)
                session.new_game(seat, depth)
            except RequestError:
                self.sessions.drop(session.id)
                raise
            return session.state()

    def prepare(self, game: Game) -> tuple[_Serial, BoardLayout]:
        """The game's agent and layout, made on its first session (or ahead of it).

        Raises:
          RequestError: 404, the game's agent cannot be had (the message says why).
        """
        with self._lock:
            if game.name not in self._agents:
                try:
                    agent = _Serial(self._agent_for(game))
                except BoardqError as e:
                    raise RequestError(404, str(e)) from None
                match = Match(game)
                try:
                    layout = BoardLayout(game.text, game.num_actions, match.board())
                finally:
                    match.close()
                self._agents[game.name], self._layouts[game.name] = agent, layout
            return self._agents[game.name], self._layouts[game.name]


def _allow(method: str, allowed: str) -> None:
    if method != allowed:
        raise RequestError(405, f"use {allowed} here, not {method}")


def _fields(body: bytes, names: tuple[str, ...]) -> dict[str, Any]:
    """The JSON object of a request body (empty: no fields); only `names` may appear."""
    if not body.strip():
        return {}
    try:
        fields = json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise RequestError(400, f"the request body is not valid JSON: {e}") from None
    if not isinstance(fields, dict):
        raise RequestError(400, "the request body must be a JSON object")
    unknown = sorted(set(fields) - set(names))
    if unknown:
        known = ", ".join(names) if names else "none"
        raise RequestError(400, f"unknown field {unknown[0]!r} (this request takes: {known})")
    return fields


class _Handler(BaseHTTPRequestHandler):
    """HTTP in and out; `WebApp.handle` does the work."""

    server: _Server
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        path = urlsplit(self.path).path
        if self.headers.get("Content-Length", "0") != "0":
            self.close_connection = True  # a body it does not read ends the connection
        if path == "/" or path.startswith("/static/"):
            self._static(path)
        else:
            self._api("GET", path, b"")

    def do_POST(self) -> None:  # noqa: N802
        path = urlsplit(self.path).path
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = -1
        if not 0 <= length <= MAX_BODY_BYTES:
            self.close_connection = True
            status = 400 if length < 0 else 413
            self._send_json(
                status, {"error": f"the request body must be 0 to {MAX_BODY_BYTES} bytes"}
            )
            return
        self._api("POST", path, self.rfile.read(length))

    def _api(self, method: str, path: str, body: bytes) -> None:
        try:
            status, payload = self.server.app.handle(method, path, body)
        except Exception as e:  # a fault of the server's, not of the request
            print(f"boardq serve: {method} {path}: {type(e).__name__}: {e}", file=sys.stderr)
            status, payload = 500, {"error": f"the server failed: {type(e).__name__}: {e}"}
        self._send_json(status, payload)

    def _static(self, path: str) -> None:
        name = "index.html" if path == "/" else path.removeprefix("/static/")
        found = _STATIC_NAME.fullmatch(name)
        resource = files("boardq.play") / "static" / name
        if found is None or found.group(1) not in _STATIC_TYPES or not resource.is_file():
            self._send_json(404, {"error": f"no such file: {path}"})
            return
        self._send(200, _STATIC_TYPES[found.group(1)], resource.read_bytes())

    def _send_json(self, status: int, payload: dict[str, Any]) -> None:
        body = json.dumps(payload, allow_nan=False).encode("utf-8")
        self._send(status, "application/json", body)

    def _send(self, status: int, content_type: str, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        """Requests are not logged (the terminal stays quiet while you play)."""


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], app: WebApp) -> None:
        self.app = app
        super().__init__(address, _Handler)


def make_server(app: WebApp, host: str = "127.0.0.1", port: int = 8000) -> ThreadingHTTPServer:
    """A server of `app` bound to host:port (port 0: any free port; see `server_address`).

    Raises:
      OSError: the address cannot be bound (in use, say).
    """
    return _Server((host, port), app)
