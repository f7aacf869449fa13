"""How the web board's agent may search, and what a session asks of it (`Advisor`).

How long the agent may think is the person's choice: a time per move (`MOVE_TIMES`,
the tree search, `boardq.search.tree_player`), which the page offers, the tree search's visits
a move (the API's `visits`, `boardq serve --visits`, at most `MAX_VISITS`), or a
fixed depth (the API's `depth`, `boardq serve --search`), at most `max_depth_of(game)`:
the deepest depth whose typical move took under about 2 s on a two-core machine
(docs/play.md has the figures); `SearchSpec.words` says a search for people.
`SharedAgent` is the `Advisor` of an agent that a game's sessions share. No HTTP and no
TensorFlow here.
"""

from __future__ import annotations

import threading
from typing import Protocol

import numpy as np

from boardq.game import Game
from boardq.records import PlayerInfo, agent_info, chosen_value
from boardq.search.spec import NETWORK, SearchSpec

__all__ = [
    "MAX_DEPTH",
    "MAX_DEPTHS",
    "MAX_MOVE_TIME",
    "MAX_VISITS",
    "MOVE_TIMES",
    "Advisor",
    "SharedAgent",
    "max_depth_of",
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


class Advisor(Protocol):
    """What a session needs of an agent; `search` says how it searches (`SearchSpec`)."""

    def move(self, observation: dict, search: SearchSpec = NETWORK) -> tuple[int, float | None]:
        """Its move, and its value of that move (None where it has none)."""
        ...

    def q_values(self, observation: dict, search: SearchSpec = NETWORK) -> np.ndarray:
        """Its value of every move (NaN for illegal ones)."""
        ...

    def info(self, search: SearchSpec = NETWORK) -> PlayerInfo:
        """How a game record names it, searching so."""
        ...


def max_depth_of(game: Game) -> int:
    """The deepest fixed depth the web board lets the agent search in `game` (0: no rules)."""
    if game.rules is None:
        return 0
    return min(MAX_DEPTH, MAX_DEPTHS.get(game.name, _OTHER_MAX_DEPTH))


class SharedAgent:
    """An agent (`boardq.players.agent.Agent`) as sessions ask it: one request at a time.

    The sessions of a game share it: a search by one waits for another's to end. It
    fits `Advisor`.
    """

    def __init__(self, agent) -> None:
        self._agent = agent
        self._lock = threading.Lock()

    def move(self, observation: dict, search: SearchSpec = NETWORK) -> tuple[int, float | None]:
        # One hold of the lock: the value comes from the search the move came from.
        with self._lock:
            player = self._agent.player(search)
            action = int(player.act(observation))
            value = chosen_value(player, observation, action)
        return action, (value if np.isfinite(value) else None)

    def q_values(self, observation: dict, search: SearchSpec = NETWORK):
        with self._lock:
            return self._agent.player(search).q_values(observation)

    def info(self, search: SearchSpec = NETWORK) -> PlayerInfo:
        return agent_info(self._agent, search)
