"""One person's games against an agent in the browser, kept on the server.

A `WebSession` holds the game in play (a `boardq.play.match.Match`, so the rules are
the real environment's), the person's seat, how the agent searches (a time per move,
or a fixed depth) and the score of the session; `Sessions` keeps the sessions by id.
Every method that changes a session checks the request first and raises
`RequestError` (an HTTP status and a message for the person) before anything changes.
No HTTP and no TensorFlow here: the agent is an `Advisor` (`boardq.play.webapp` makes
one of a `boardq.players.agent.Agent`). A session's moves so far are
`session.match.moves` (action numbers, in order; `match.mover_of(i)` says whose), and
`session.record()` is the game so far as a game record (`boardq.records`):
both players, each move's time and the agent's value of its moves.

How long the agent may think is the person's choice: a time per move (`MOVE_TIMES`,
the tree search, `boardq.players.mcts`), which the page offers, the tree search's visits
a move (the API's `visits`, `boardq serve --visits`, at most `MAX_VISITS`), or a
fixed depth (the API's `depth`, `boardq serve --search`), at most `max_depth_of(game)`:
the deepest depth whose typical move took under about 2 s on a two-core machine
(docs/play.md has the figures).
"""

from __future__ import annotations

import math
import secrets
import threading
import time
from collections import OrderedDict
from typing import Any, Protocol

import numpy as np

from boardq.boardtext import MoveError
from boardq.catalog import find_game
from boardq.game import Game
from boardq.play.layout import BoardLayout
from boardq.play.match import Match
from boardq.records import GameLog, GameRecord, PlayerInfo, sgf_game

__all__ = [
    "MAX_DEPTH",
    "MAX_DEPTHS",
    "MAX_MOVE_TIME",
    "MAX_SESSIONS",
    "MAX_VISITS",
    "MOVE_TIMES",
    "UNKNOWN_SESSION",
    "Advisor",
    "RequestError",
    "Sessions",
    "WebSession",
    "max_depth_of",
    "search_words",
]

MAX_DEPTH = 6
"""The deepest fixed lookahead of any game (games with rules only; see `MAX_DEPTHS`)."""

MAX_DEPTHS = {"tictactoe": 6, "connect_four": 6, "othello": 3, "gomoku": 3, "hex": 3, "go": 3}
"""Each game's deepest fixed depth: the deepest whose typical move took under about 2 s
on two busy cores with the agent that comes with boardq (measured, docs/play.md). One
deeper took a typical 3.4 s a move in Othello, 2 s in Hex (a tenth of moves over 3.5 s),
56 s in Gomoku and 20-50 s in Go."""

_OTHER_MAX_DEPTH = 3
"""The deepest fixed depth of a game with rules that `MAX_DEPTHS` does not name."""

MOVE_TIMES = (0.5, 1.0, 2.0, 5.0)
"""The times per move the page offers (seconds; besides thinking not at all)."""

MAX_MOVE_TIME = 10.0
"""The longest time per move a request may ask for (the game's agent is busy that long)."""

MAX_VISITS = 100_000
"""The most visits a move of the tree search a request may ask for (Go: about 40 s)."""

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
    """What a session needs of an agent; `depth`, `move_time`, `visits` say how it searches.

    All unset (0, None, None): its network alone; `depth` D: D moves ahead (alpha-beta);
    `move_time` SEC or `visits` N: a search tree grown SEC seconds or N visits a move.
    """

    def move(
        self,
        observation: dict,
        depth: int = 0,
        move_time: float | None = None,
        visits: int | None = None,
    ) -> tuple[int, float | None]:
        """Its move, and its value of that move (None where it has none)."""
        ...

    def q_values(
        self,
        observation: dict,
        depth: int = 0,
        move_time: float | None = None,
        visits: int | None = None,
    ) -> np.ndarray:
        """Its value of every move (NaN for illegal ones)."""
        ...

    def info(
        self, depth: int = 0, move_time: float | None = None, visits: int | None = None
    ) -> PlayerInfo:
        """How a game record names it, searching so."""
        ...


def max_depth_of(game: Game) -> int:
    """The deepest fixed depth the web board lets the agent search in `game` (0: no rules)."""
    if game.rules is None:
        return 0
    return min(MAX_DEPTH, MAX_DEPTHS.get(game.name, _OTHER_MAX_DEPTH))


def search_words(depth: int, move_time: float | None, visits: int | None = None) -> str:
    """How the agent searches, for people: "up to 1 s a move", "depth 3", "its network alone"."""
    if visits:
        return f"{visits} visits a move"
    if move_time:
        return f"up to {move_time:g} s a move"
    if depth:
        return f"depth {depth}"
    return "its network alone"


def seconds(value: Any, name: str, high: float) -> float:
    """`value` as a number of seconds in [0, high]; RequestError 400 otherwise."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise RequestError(400, f"{name} must be a number of seconds, not {value!r}")
    if not 0 <= value <= high:
        raise RequestError(400, f"{name} must be from 0 to {high:g} seconds, not {value:g}")
    return float(value)


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
        self.max_depth = max_depth_of(game)
        self.depth = 0
        self.move_time: float | None = None
        self.visits: int | None = None
        self.seat = 0
        self.score = {"won": 0, "drawn": 0, "lost": 0}
        self._counted: str | None = None  # the score key of the game in play, once it ended
        self.message = ""
        self.match = Match(game)
        self.log = GameLog(game, event="boardq serve")
        self._searches: list[str] = []  # how the agent searched in this game, in order
        self._shown = time.monotonic()  # when the person's turn began

    # -- requests ---------------------------------------------------------------------
    def new_game(
        self, seat: Any = None, depth: Any = None, move_time: Any = None, visits: Any = None
    ) -> None:
        """Starts a new game (the one in play is dropped, uncounted if unfinished)."""
        seat = self.seat if seat is None else whole_number(seat, "seat", 0, 1)
        if depth is not None or move_time is not None or visits is not None:
            self.set_search(depth, move_time, visits)
        self.match.close()
        self.match = Match(self.game)
        person = PlayerInfo("you", {"kind": "person"})
        agent = PlayerInfo("boardq agent", {"kind": "agent"})  # named with its search in `record`
        players = (person, agent) if seat == 0 else (agent, person)
        self.log = GameLog(self.game, players, event="boardq serve")
        self._searches = []
        self.seat, self._counted = seat, None
        self.message = "You move first." if seat == 0 else "The agent moves first."
        self._agent_turns()

    def set_depth(self, depth: Any) -> None:
        """Sets how many moves ahead the agent looks (0: its network alone)."""
        self.set_search(depth=depth)

    def set_search(self, depth: Any = None, move_time: Any = None, visits: Any = None) -> None:
        """Sets how the agent searches: a fixed `depth`, a `move_time` in seconds or `visits`.

        One of them (the others are cleared); 0: its network alone.
        """
        given = [x for x in (depth, move_time, visits) if x is not None]
        if len(given) > 1:
            raise RequestError(400, 'give "depth", "move_time" or "visits", not both')
        if not given:
            raise RequestError(400, 'give "move_time" (seconds a move) or "depth" (moves ahead)')
        if given[0] and self.max_depth == 0:
            raise RequestError(
                400, f"the agent cannot search in {self.game.title}: boardq has no rules for it"
            )
        self.depth, self.move_time, self.visits = 0, None, None
        if move_time is not None:
            self.move_time = seconds(move_time, "move_time", MAX_MOVE_TIME) or None
        elif visits is not None:
            self.visits = whole_number(visits, "visits", 0, MAX_VISITS) or None
        else:
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
        self.log.add(action, time.monotonic() - self._shown)
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
        count = len(self.match.moves) - mine[-1]
        self.match.take_back(count)
        self.log.take_back(count)
        self._shown = time.monotonic()
        self.message = "Took back your last move."

    def hints(self) -> dict[str, Any]:
        """The agent's values of the person's legal moves (+1 a win, -1 a loss)."""
        self._check_turn(None)
        values = self.agent.q_values(self.match.observation(), *self._search())
        legal = np.flatnonzero(self.match.legal())
        return {
            "session": self.id,
            "ply": len(self.match.moves),
            "depth": self.depth,
            "move_time": self.move_time,
            "visits": self.visits,
            "values": [
                {"action": int(a), "label": self.game.text.label(int(a)), "value": round(v, 4)}
                for a in legal
                if math.isfinite(v := float(values[a]))
            ],
        }

    def record(self) -> GameRecord:
        """The game so far (or finished) as a game record, with the result by boardq's rules.

        The agent is named with its search; if the search changed during the game, the
        record says how it searched, in order.
        """
        log = self.log
        agent = self.agent.info(*self._search())
        if len(self._searches) > 1:
            searched = ", then ".join(self._searches)
            agent = PlayerInfo(
                f"{agent.name} (searched {searched})", {**agent.details, "searches": searched}
            )
        log.players[1 - self.seat] = agent
        return log.record(self.match.result())

    def close(self) -> None:
        self.match.close()

    # -- helpers ----------------------------------------------------------------------
    def _search(self) -> tuple[int, float | None, int | None]:
        """How the agent searches, as its methods take it: depth, move_time, visits."""
        return self.depth, self.move_time, self.visits

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
            t0 = time.perf_counter()
            action, value = self.agent.move(self.match.observation(), *self._search())
            took = time.perf_counter() - t0
            self.match.play(int(action))
            self.log.add(int(action), took, value)
            words = search_words(*self._search())
            if not self._searches or self._searches[-1] != words:
                self._searches.append(words)
            self.message = f"The agent played {self.game.text.describe(int(action))}."
        self._shown = time.monotonic()
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
            "game": {"name": self.game.name, "title": self.game.title, **_komi_json(self.game)},
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
            "move_time": self.move_time,
            "visits": self.visits,
            "move_times": list(MOVE_TIMES) if self.max_depth else [],
            "records": ["sgf", "jsonl"] if sgf_game(self.game.name) else ["jsonl"],
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


def _komi_json(game: Game) -> dict[str, float]:
    """A game's komi and the komi its agent learnt with (the catalog's game's), if it has one."""
    if game.setup.komi is None:
        return {}
    own = find_game(game.name)
    return {"komi": game.setup.komi, "learnt_komi": (own or game).setup.komi}
