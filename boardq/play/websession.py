"""One person's games against an agent in the browser, kept on the server.

A `WebSession` holds the game in play (a `boardq.play.match.Match`, so the rules are
the real environment's), the person's seat, the agent's search depth and the score of
the session; `Sessions` keeps the sessions by id. Every method that changes a session
checks the request first and raises `RequestError` (an HTTP status and a message for
the person) before anything changes. No HTTP and no TensorFlow here: the agent is
anything with `act(observation, search_depth)` and `q_values(observation,
search_depth)` (`boardq.players.agent.Agent`). A session's moves so far are
`session.match.moves` (action numbers, in order; `match.mover_of(i)` says whose).
"""

from __future__ import annotations

import math
import secrets
import threading
from collections import OrderedDict
from typing import Any, Protocol

import numpy as np

from boardq.boardtext import MoveError
from boardq.game import Game
from boardq.play.layout import BoardLayout
from boardq.play.match import Match

__all__ = [
    "MAX_DEPTH",
    "MAX_SESSIONS",
    "UNKNOWN_SESSION",
    "Advisor",
    "RequestError",
    "Sessions",
    "WebSession",
]

MAX_DEPTH = 6
"""The deepest lookahead the page offers (games with rules only)."""

MAX_SESSIONS = 1024
"""Sessions kept in memory; past that the least recently used goes (its page starts anew)."""

UNKNOWN_SESSION = "unknown_session"
"""The `code` of a request for a session the server no longer has (or never had)."""

_RESULTS = {1: ("won", "You win!"), 0: ("drawn", "Draw."), -1: ("lost", "The agent wins.")}


class RequestError(Exception):
    """A request that cannot be carried out; nothing was changed.

    Attributes:
      status: the HTTP status (4xx).
      message: one line for the person.
      code: what went wrong in a word the page acts on ("unknown_session"), or None.
      allow: for a 405, the methods the route takes (its `Allow` header).
    """

    def __init__(
        self, status: int, message: str, code: str | None = None, allow: str | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.code = code
        self.allow = allow


class Advisor(Protocol):
    """What a session needs of an agent (`boardq.players.agent.Agent` fits)."""

    def act(self, observation: dict, search_depth: int = 0) -> int: ...

    def q_values(self, observation: dict, search_depth: int = 0) -> np.ndarray: ...


def whole_number(value: Any, name: str, low: int, high: int) -> int:
    """`value` as an int in [low, high]; RequestError 400 otherwise (booleans too)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise RequestError(400, f"{name} must be a whole number, not {value!r}")
    if not low <= value <= high:
        raise RequestError(400, f"{name} must be from {low} to {high}, not {value}")
    return value


class WebSession:
    """Games of one game between a person and an agent; the score carries over.

    Args:
      game: the game.
      agent: the agent.
      layout: the game's board layout (`BoardLayout`; shared by its sessions).
      session_id: the session's id.
    """

    def __init__(self, game: Game, agent: Advisor, layout: BoardLayout, session_id: str) -> None:
        self.game = game
        self.agent = agent
        self.layout = layout
        self.id = session_id
        self.lock = threading.Lock()
        self.max_depth = MAX_DEPTH if game.rules is not None else 0
        self.depth = 0
        self.seat = 0
        self.score = {"won": 0, "drawn": 0, "lost": 0}
        self._counted: str | None = None  # the score key of the game in play, once it ended
        self.message = ""
        self.match = Match(game)

    # -- requests ---------------------------------------------------------------------
    def new_game(self, seat: Any = None, depth: Any = None) -> None:
        """Starts a new game (the one in play is dropped, uncounted if unfinished)."""
        seat = self.seat if seat is None else whole_number(seat, "seat", 0, 1)
        if depth is not None:
            self.set_depth(depth)
        self.match.close()
        self.match = Match(self.game)
        self.seat, self._counted = seat, None
        self.message = "You move first." if seat == 0 else "The agent moves first."
        self._agent_turns()

    def set_depth(self, depth: Any) -> None:
        """Sets how many moves ahead the agent looks (0: its network alone)."""
        if self.max_depth == 0 and depth != 0:
            raise RequestError(
                400, f"the agent cannot search in {self.game.title}: boardq has no rules for it"
            )
        self.depth = whole_number(depth, "depth", 0, self.max_depth)

    def play(self, action: Any, ply: Any = None) -> None:
        """Plays the person's move, then the agent's reply.

        `ply`, when given, is the number of moves the person saw played: a move sent
        from a page that is behind (a second click, another tab) is refused.
        """
        self._check_turn(ply)
        action = whole_number(action, "action", 0, self.game.num_actions - 1)
        legal = self.match.legal()
        if not legal[action]:
            raise RequestError(409, self._not_legal(action, legal))
        self.match.play(action)
        self.message = ""
        self._agent_turns()

    def undo(self) -> None:
        """Takes back the person's last move and what the agent replied to it.

        After the end of a game too; the game's result stays on the score, and playing
        it to another end does not count again.
        """
        mine = [i for i in range(len(self.match.moves)) if self.match.mover_of(i) == self.seat]
        if not mine:
            raise RequestError(409, "nothing to undo: you have not moved yet in this game")
        # A finished game stays on the score: undo is for seeing what else could have
        # happened, and the game's first result is the one that counts.
        self.match.take_back(len(self.match.moves) - mine[-1])
        self.message = "Took back your last move."

    def hints(self) -> dict[str, Any]:
        """The agent's values of the person's legal moves (+1 a win, -1 a loss)."""
        self._check_turn(None)
        values = self.agent.q_values(self.match.observation(), self.depth)
        legal = np.flatnonzero(self.match.legal())
        return {
            "session": self.id,
            "ply": len(self.match.moves),
            "depth": self.depth,
            "values": [
                {"action": int(a), "label": self.game.text.label(int(a)), "value": round(v, 4)}
                for a in legal
                if math.isfinite(v := float(values[a]))
            ],
        }

    def close(self) -> None:
        self.match.close()

    # -- helpers ----------------------------------------------------------------------
    def _check_turn(self, ply: Any) -> None:
        if self.match.over:
            raise RequestError(409, "the game is over: start a new game (or undo)")
        if self.match.to_move != self.seat:
            raise RequestError(409, "it is not your turn")
        if ply is not None:
            ply = whole_number(ply, "ply", 0, 1_000_000)
            if ply != len(self.match.moves):
                raise RequestError(
                    409,
                    f"out of turn: the page shows move {ply}, the game is at move "
                    f"{len(self.match.moves)}; reload the game",
                )

    def _not_legal(self, action: int, legal: np.ndarray) -> str:
        """Why the game's text board refuses `action` here (as the terminal says it)."""
        try:
            self.game.text.parse(self.game.text.label(action), legal)
        except MoveError as e:
            return str(e)
        return f"{self.game.text.label(action)} is not a legal move here"

    def _agent_turns(self) -> None:
        """The agent moves while it is its turn; the result is counted at the end."""
        while not self.match.over and self.match.to_move != self.seat:
            action = int(self.agent.act(self.match.observation(), self.depth))
            self.match.play(action)
            self.message = f"The agent played {self.game.text.describe(action)}."
        if self.match.over:
            key, said = _RESULTS[self._outcome()]
            self.message = said
            if self._counted is None:
                self.score[key] += 1
                self._counted = key
            else:
                self.message += f" (The score keeps this game's first result: {self._counted}.)"

    def _outcome(self) -> int:
        """The finished game's result for the person: +1 won, 0 drawn, -1 lost."""
        return self.match.result() * (1 if self.seat == 0 else -1)

    # -- the page's view --------------------------------------------------------------
    def state(self) -> dict[str, Any]:
        """Everything the page draws, as JSON."""
        match, text = self.match, self.game.text
        over = match.over
        board = match.board()
        last = match.last_move()
        return {
            "session": self.id,
            "game": {"name": self.game.name, "title": self.game.title},
            "marks": [text.mark(0), text.mark(1)],
            "layout": self.layout.to_json(),
            "board": self.layout.pieces(board),
            "ply": len(match.moves),
            "you": self.seat,
            "to_move": None if over else match.to_move,
            "over": over,
            "result": _RESULTS[self._outcome()][0] if over else None,
            "win": [list(cell) for cell in self.layout.winning(board)] if over else [],
            "scored": self._counted,
            "legal": [int(a) for a in np.flatnonzero(match.legal())] if not over else [],
            "last": None if last is None else self._last_json(board, last),
            "moves": [
                {"action": a, "label": text.label(a), "by": self._by(i)}
                for i, a in enumerate(match.moves)
            ],
            "score": dict(self.score),
            "depth": self.depth,
            "max_depth": self.max_depth,
            "can_undo": any(match.mover_of(i) == self.seat for i in range(len(match.moves))),
            "message": self.message,
        }

    def _by(self, index: int) -> str:
        return "you" if self.match.mover_of(index) == self.seat else "agent"

    def _last_json(self, board: Any, last: int) -> dict[str, Any]:
        cell = self.layout.last_cell(board, last)
        return {
            "action": last,
            "label": self.game.text.label(last),
            "describe": self.game.text.describe(last),
            "by": self._by(len(self.match.moves) - 1),
            "cell": None if cell is None else list(cell),
        }


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
