"""The web server's sessions by id, kept in memory (`Sessions`).

At most `MAX_SESSIONS`: past that the least recently used goes, and its page starts
anew. A request for a session the server no longer has (or never had) is a 404
`RequestError` whose code is `UNKNOWN_SESSION`. No HTTP here.
"""

from __future__ import annotations

import secrets
import threading
from collections import OrderedDict

from boardq.game import Game
from boardq.play.layout import BoardLayout
from boardq.players.advisor import Advisor
from boardq.web.request import RequestError
from boardq.web.session import WebSession

__all__ = ["MAX_SESSIONS", "UNKNOWN_SESSION", "Sessions"]

MAX_SESSIONS = 1024
"""Sessions kept in memory; past that the least recently used goes (its page starts anew)."""

UNKNOWN_SESSION = "unknown_session"
"""The `code` of a request for a session the server no longer has (or never had)."""


class Sessions:
    """Sessions by id; the least recently used goes when there are `limit` of them."""

    def __init__(self, limit: int = MAX_SESSIONS) -> None:
        self.limit = limit
        self._sessions: OrderedDict[str, WebSession] = OrderedDict()
        self._lock = threading.Lock()

    def add(self, game: Game, agent: Advisor, layout: BoardLayout) -> WebSession:
        session = WebSession(game, agent, layout, secrets.token_hex(8))
        with self._lock:
            self._sessions[session.id] = session
            while len(self._sessions) > self.limit:
                _, old = self._sessions.popitem(last=False)
                with old.lock:  # not while a request of its own is running
                    old.close()
        return session

    def get(self, session_id: str) -> WebSession:
        with self._lock:
            session = self._sessions.get(session_id)
            if session is None:
                raise RequestError(
                    404,
                    f"unknown session {session_id!r}: start a new game (it may have expired)",
                    code=UNKNOWN_SESSION,
                )
            self._sessions.move_to_end(session_id)
            return session

    def __len__(self) -> int:
        with self._lock:
            return len(self._sessions)

    def drop(self, session_id: str) -> None:
        with self._lock:
            session = self._sessions.pop(session_id, None)
        if session is not None:
            session.close()

    def close(self) -> None:
        with self._lock:
            for session in self._sessions.values():
                session.close()
            self._sessions.clear()
