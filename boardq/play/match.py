"""One game between two seats, played through the game's real PettingZoo env.

A `Match` keeps the list of moves played, so moves can be taken back: `take_back`
replays the shorter list into a fresh env. Turn handling is PettingZoo's own, the same
as in training. Seat 0 is the env's first agent (it moves first), seat 1 the second.

No TensorFlow here: players live elsewhere; this only plays the moves it is given.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from boardq.game import Game

__all__ = ["Match"]


class Match:
    """A game of `game` with a move list; seat 0 moves first.

    `options` are the environment's own (Go's `komi`), for games set up otherwise than
    their default.
    """

    def __init__(self, game: Game, **options: Any) -> None:
        self.game = game
        self.options = options
        self.moves: list[int] = []
        self._env = self._fresh_env()
        self._seats = {agent: seat for seat, agent in enumerate(self._env.possible_agents)}

    def _fresh_env(self):
        env = self.game.make_env(**self.options)
        env.reset()
        return env

    @property
    def env(self):
        """The environment (read it; moves go through `play` and `take_back`)."""
        return self._env

    @property
    def over(self) -> bool:
        """Whether the game has ended (a win, or a full board)."""
        env = self._env
        return any(env.terminations.values()) or any(env.truncations.values())

    @property
    def to_move(self) -> int:
        """The seat whose turn it is (meaningless once the game is over)."""
        return self._seats[self._env.agent_selection]

    def observation(self) -> dict[str, np.ndarray]:
        """The PettingZoo observation of the player to move."""
        return self._env.observe(self._env.agent_selection)

    def legal(self) -> np.ndarray:
        """Bool mask of the legal actions of the player to move (none once over)."""
        if self.over:
            return np.zeros(self.game.num_actions, bool)
        return np.asarray(self.observation()["action_mask"], bool)

    def board(self) -> Any:
        """The position as the game's text board draws it (`Game.board`).

        For games with rules, the board in display orientation: +1 seat 0's pieces, -1
        seat 1's, 0 empty; for others what the environment gives (OpenSpiel's drawing).
        """
        return self.game.board(self._env)

    def play(self, action: int) -> None:
        """Plays a legal move for the player to move.

        Raises:
          ValueError: the game is over or the move is illegal (nothing is played).
        """
        action = int(action)
        if self.over:
            raise ValueError("the game is over")
        if not 0 <= action < self.game.num_actions or not self.legal()[action]:
            raise ValueError(f"action {action} is not legal here")
        self._env.step(action)
        self.moves.append(action)

    def result(self) -> int | None:
        """+1 if seat 0 won, -1 if seat 1 won, 0 for a draw; None while playing."""
        if not self.over:
            return None
        first, second = self._env.possible_agents
        rewards = self._env.rewards  # the final step pays both players
        return int(np.sign(rewards[first] - rewards[second]))

    def last_move(self) -> int | None:
        """The action played last, or None before the first move."""
        return self.moves[-1] if self.moves else None

    def mover_of(self, index: int) -> int:
        """The seat that played `moves[index]` (the seats alternate)."""
        return index % 2

    def take_back(self, count: int) -> None:
        """Takes back the last `count` moves by replaying the others in a fresh env."""
        if not 0 <= count <= len(self.moves):
            raise ValueError(f"cannot take back {count} of {len(self.moves)} moves")
        keep = self.moves[: len(self.moves) - count]
        self.close()
        self._env = self._fresh_env()
        self.moves = []
        for action in keep:
            self.play(action)

    def close(self) -> None:
        """Closes the env."""
        self._env.close()
