"""One person's games against an agent in the browser, kept on the server.

A `WebSession` holds the game in play (a `boardq.play.match.Match`, so the rules are
the real environment's), the person's seat, how the agent searches (a time per move,
or a fixed depth: `boardq.web.search`) and the score of the session. Every method
that changes a session checks the request first and raises `RequestError`
(`boardq.web.request`) before anything changes. No HTTP and no TensorFlow here: the
agent is an `Advisor` (`boardq.players.advisor.SharedAgent` makes one of a
`boardq.players.agent.Agent`). A session's moves so far are `session.match.moves`
(action numbers, in order; `match.mover_of(i)` says whose), and `session.record()` is
the game so far as a game record (`boardq.records`): both players, each move's time
and the agent's value of its moves. The sessions by id are `boardq.web.store`'s;
what the page draws of one, `boardq.web.state`'s.
"""

from __future__ import annotations

import math
import threading
import time
from typing import Any

import numpy as np

from boardq.boardtext import MoveError
from boardq.game import Game
from boardq.play.layout import BoardLayout
from boardq.play.match import Match
from boardq.players.advisor import Advisor
from boardq.records import GameLog, GameRecord, PlayerInfo
from boardq.search.spec import SearchSpec
from boardq.web.request import RequestError, seconds, whole_number
from boardq.web.search import MAX_MOVE_TIME, MAX_VISITS, max_depth_of

__all__ = ["WebSession"]

_RESULTS = {1: ("won", "You win!"), 0: ("drawn", "Draw."), -1: ("lost", "The agent wins.")}


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
        values = self.agent.q_values(self.match.observation(), self._search())
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
        agent = self.agent.info(self._search())
        if len(self._searches) > 1:
            searched = ", then ".join(self._searches)
            agent = PlayerInfo(
                f"{agent.name} (searched {searched})", {**agent.details, "searches": searched}
            )
        log.players[1 - self.seat] = agent
        return log.record(self.match.result())

    @property
    def scored(self) -> str | None:
        """What the game counted for on the score ("won", "drawn", "lost"), once it ended.

        It stays after an undo (the game's first result is the one that counts); None
        before the game's end.
        """
        return self._counted

    def result(self) -> str | None:
        """The game's result for the person ("won", "drawn", "lost"); None while in play."""
        return _RESULTS[self._outcome()][0] if self.match.over else None

    def close(self) -> None:
        self.match.close()

    # -- helpers ----------------------------------------------------------------------
    def _search(self) -> SearchSpec:
        """How the agent searches, as its methods take it."""
        return SearchSpec.of(self.depth, self.move_time, self.visits)

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
            action, value = self.agent.move(self.match.observation(), self._search())
            took = time.perf_counter() - t0
            self.match.play(int(action))
            self.log.add(int(action), took, value)
            words = self._search().words() or "its network alone"
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
