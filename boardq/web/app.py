"""The browser board's API: requests in, JSON answers out, no HTTP library.

`WebApp.handle(method, path, body, query)` answers one request; `boardq.web.server`
serves it over HTTP (with the checks every request passes first: its host, its origin,
its body). The page (`static/`) draws the board from the JSON the server sends; every
game is kept on the server (`boardq.web.session`), one session per page. The routes:

    GET  /                          the page
    GET  /static/NAME               its script and style sheet
    GET  /api/games                 the games served, and the one to start with
    POST /api/sessions              {"game", "seat"?, "move_time"?, "visits"? or "depth"?}: a new
                                    session, its game
    GET  /api/sessions/ID           the session's state
    POST /api/sessions/ID/move      {"action", "ply"?}: your move, and the agent's reply
    POST /api/sessions/ID/undo      take back your last move and the reply
    POST /api/sessions/ID/new       {"seat"?, "move_time"?, "visits"? or "depth"?}: a new game, the
                                    score kept
    POST /api/sessions/ID/search    {"move_time"}, {"visits"} or {"depth"}: how the agent thinks
    POST /api/sessions/ID/depth     {"depth"}: how far the agent looks ahead (as /search)
    GET  /api/sessions/ID/hints     the agent's values of your legal moves
    GET  /api/sessions/ID/record?format=sgf|jsonl   the game so far as a file
    POST /api/records?name=FILE&game=N    a record file's bytes: its games, and the N-th
                                    (default 1) to step through (`boardq.web.records`)

A state (`boardq.web.state`) is the board (each cell's owner), the layout (where
each action is clicked, `boardq.play.layout`), the legal actions, the last move, the
move list and the score. An answer is a JSON object, but for a game saved as a file
(`Answer.body`, with its content type and name). Bodies and queries are read and
checked by `boardq.web.request`; a request that cannot be carried out is answered
`{"error": "..."}` with a 4xx status and changes nothing (an expired or unknown
session's answer also has `"code": "unknown_session"`, so the page can start a new
game). A route asked with a method it does not take is a 405 whose `Allow` header lists
the ones it does; HEAD goes where GET does.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from typing import Any, NamedTuple

from boardq.errors import BoardqError
from boardq.game import Game
from boardq.play.layout import BoardLayout
from boardq.players.advisor import SharedAgent
from boardq.search.spec import NETWORK, SearchSpec
from boardq.web.records import opened_record, saved_game
from boardq.web.request import (
    RequestError,
    check_method,
    parse_fields,
    parse_query,
    query_number,
    whole_number,
)
from boardq.web.search import max_depth_of
from boardq.web.session import WebSession
from boardq.web.state import state_json
from boardq.web.store import Sessions

__all__ = ["Answer", "WebApp"]

_SESSION_ROUTE = re.compile(r"/api/sessions/([^/]+)(?:/([a-z]+))?")
# Per action of a session: its HTTP method, and the fields its body may have.
_SESSION_ACTIONS = {
    None: ("GET", ()),
    "hints": ("GET", ()),
    "record": ("GET", ()),
    "move": ("POST", ("action", "ply")),
    "undo": ("POST", ()),
    "new": ("POST", ("seat", "depth", "move_time", "visits")),
    "search": ("POST", ("depth", "move_time", "visits")),
    "depth": ("POST", ("depth",)),
}


class WebApp:
    """The games served, their agents and the sessions; answers requests as JSON.

    Args:
      games: the games the page offers, by name (their order is the menu's).
      agent_for: loads the agent of a game (asked once per game, when its first
        session starts); a `BoardqError` (no agent found, say) is the request's error.
      default: the game the page starts with; None: the page asks.
      search: how the agent searches in new sessions, where the game has rules (a depth
        at most the game's `max_depth_of`).
    """

    def __init__(
        self,
        games: dict[str, Game],
        agent_for: Callable[[Game], Any],
        default: str | None = None,
        search: SearchSpec = NETWORK,
    ) -> None:
        self.games = games
        self.default = default
        self.search = search
        self.sessions = Sessions()
        self._agent_for = agent_for
        self._agents: dict[str, SharedAgent] = {}
        self._layouts: dict[str, BoardLayout] = {}
        self._lock = threading.Lock()

    def handle(self, method: str, path: str, body: bytes = b"", query: str = "") -> Answer:
        """Answers one API request (HEAD as GET: the HTTP side leaves out the body).

        Args:
          method: the HTTP method.
          path: the path, without its query.
          body: the request's body.
          query: the query string (after the `?`), where the route takes one.
        """
        try:
            answer = self._route("GET" if method == "HEAD" else method, path, body, query)
            return answer if isinstance(answer, Answer) else Answer(*answer)
        except RequestError as e:
            payload = {"error": e.message}
            if e.code:
                payload["code"] = e.code
            headers = {"Allow": e.allow} if e.allow else {}
            return Answer(e.status, payload, headers)

    def _route(
        self, method: str, path: str, body: bytes, query: str
    ) -> tuple[int, dict[str, Any]] | Answer:
        if path == "/api/games":
            check_method(method, "GET")
            return 200, self._games_json()
        if path == "/api/sessions":
            check_method(method, "POST")
            fields = parse_fields(body, ("game", "seat", "depth", "move_time", "visits"))
            return 201, self._start(fields)
        if path == "/api/records":
            check_method(method, "POST")
            params = parse_query(query, ("name", "game"))
            number = query_number(params.get("game", "1"), "game")
            return 200, opened_record(body, params.get("name", "record"), number, self.layout)
        found = _SESSION_ROUTE.fullmatch(path)
        if found is None or found.group(2) not in _SESSION_ACTIONS:
            raise RequestError(404, f"no such route: {path}")
        action = found.group(2)
        allowed_method, names = _SESSION_ACTIONS[action]
        check_method(method, allowed_method)
        fields = parse_fields(body, names) if method == "POST" else {}
        params = parse_query(query, ("format",) if action == "record" else ())
        session = self.sessions.get(found.group(1))
        with session.lock:
            if action == "record":
                saved = saved_game(session.record(), session.game, params.get("format", "jsonl"))
                disposition = f'attachment; filename="{saved.file_name}"'
                headers = {"Content-Disposition": disposition}
                return Answer(200, {}, headers, saved.data, saved.content_type)
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
            search = (fields.get(k) for k in ("depth", "move_time", "visits"))
            session.new_game(fields.get("seat"), *search)
        elif action == "search":
            session.set_search(fields.get("depth"), fields.get("move_time"), fields.get("visits"))
        elif action == "depth":
            if "depth" not in fields:
                raise RequestError(400, 'give "depth": how many moves the agent looks ahead')
            session.set_depth(fields["depth"])
        return state_json(session)

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
                depth, move_time = fields.get("depth"), fields.get("move_time")
                visits = fields.get("visits")
                if depth is None and move_time is None and visits is None and game.rules:
                    start = self.search  # the server's start
                    move_time, visits = start.move_time, start.visits
                    depth = min(start.depth, max_depth_of(game)) if start.depth else None
                session.new_game(seat, depth, move_time, visits)
            except RequestError:
                self.sessions.drop(session.id)
                raise
            return state_json(session)

    def prepare(self, game: Game) -> tuple[SharedAgent, BoardLayout]:
        """The game's agent and layout, made on its first session (or ahead of it).

        Raises:
          RequestError: 404, the game's agent cannot be had (the message says why).
        """
        layout = self.layout(game)
        with self._lock:
            if game.name not in self._agents:
                try:
                    self._agents[game.name] = SharedAgent(self._agent_for(game))
                except BoardqError as e:
                    raise RequestError(404, str(e)) from None
            return self._agents[game.name], layout

    def layout(self, game: Game) -> BoardLayout:
        """The game's board layout (made once; any game boardq plays, served or not)."""
        with self._lock:
            if game.name not in self._layouts:
                self._layouts[game.name] = BoardLayout.of_game(game)
            return self._layouts[game.name]


class Answer(NamedTuple):
    """An API answer: its HTTP status, its JSON object and any headers of its own.

    A file (a saved game) is `body`, of `content_type`, instead of the JSON object.
    """

    status: int
    payload: dict[str, Any]
    headers: dict[str, str] = {}
    body: bytes | None = None
    content_type: str = ""
