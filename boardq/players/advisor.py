"""What a session asks of its agent (`Advisor`), and the agent that answers it (`SharedAgent`).

A person's session, in the terminal (`boardq.play.session`) or on the web board
(`boardq.web.session`), asks the agent for its move, its values and its name, each
searching as told (`SearchSpec`). `SharedAgent` is the `Advisor` of an agent
(`boardq.players.agent.Agent`). No TensorFlow here.
"""

from __future__ import annotations

import threading
from typing import Protocol

import numpy as np

from boardq.records import PlayerInfo, agent_info, chosen_value
from boardq.search.spec import NETWORK, SearchSpec

__all__ = ["Advisor", "SharedAgent"]


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


class SharedAgent:
    """An agent (`boardq.players.agent.Agent`) as sessions ask it: one request at a time.

    The web board's sessions of a game share it: a search by one waits for another's to
    end. It fits `Advisor`.
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
