"""Evaluation opponents and matches on PettingZoo AEC board games.

A player is anything with `act(observation) -> int`, where `observation` is the
PettingZoo dict `{"observation": planes, "action_mask": mask}` for the player to move.
The opponents here read the planes through the game's rules (`Game.rules`, see
`games.game.Rules`), so they work for any game that has them.

This module imports no TensorFlow: it runs in tests and tools that need no network.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

if TYPE_CHECKING:
    from pettingzoo.utils.env import AECEnv

    from games.game import Rules

__all__ = [
    "Player",
    "PerfectPlayer",
    "RandomPlayer",
    "WinBlockPlayer",
    "evaluate",
    "play_game",
]

Observation = Mapping[str, np.ndarray]


class Player(Protocol):
    """Chooses a move for the player to move."""

    def act(self, observation: Observation) -> int:
        """Returns a legal action for the PettingZoo observation of the player to move."""
        ...


def _legal_actions(observation: Observation) -> np.ndarray:
    actions = np.flatnonzero(np.asarray(observation["action_mask"]))
    if actions.size == 0:
        raise ValueError("the action mask allows no move")
    return actions


class RandomPlayer:
    """Plays uniformly at random among the legal moves."""

    def __init__(self, seed: int | None = None) -> None:
        """Initialises the player.

        Args:
            seed: seed of the player's own random generator.
        """
        self._rng = np.random.default_rng(seed)

    def act(self, observation: Observation) -> int:
        """Returns a uniformly random legal action."""
        return int(self._rng.choice(_legal_actions(observation)))


class WinBlockPlayer:
    """Wins at once if it can, else blocks the opponent's immediate win, else plays randomly."""

    def __init__(self, rules: Rules, seed: int | None = None) -> None:
        """Initialises the player.

        Args:
            rules: the game's rules (`Game.rules`).
            seed: seed of the player's own random generator (ties and random moves).
        """
        self._rules = rules
        self._rng = np.random.default_rng(seed)

    def act(self, observation: Observation) -> int:
        """Returns a winning move, else a blocking move, else a random legal move."""
        board = self._rules.board_from_planes(observation["observation"])
        legal = _legal_actions(observation)
        for candidates in (self.winning_moves(board, legal), self.blocking_moves(board, legal)):
            if candidates:
                return int(self._rng.choice(candidates))
        return int(self._rng.choice(legal))

    def winning_moves(self, board: np.ndarray, legal: np.ndarray) -> list[int]:
        """Returns the legal moves that win at once for the player to move (+1)."""
        # After `apply` the board is seen by the next mover, so the mover's pieces are -1.
        return [int(a) for a in legal if self._rules.winner(self._rules.apply(board, a)) == -1]

    def blocking_moves(self, board: np.ndarray, legal: np.ndarray) -> list[int]:
        """Returns the legal moves on which the opponent would win if it were its turn."""
        # Playing the opponent's winning move takes that cell (or column slot) first.
        return self.winning_moves(-board, legal)


class PerfectPlayer:
    """Plays a move of best game-theoretic value, chosen uniformly among the best.

    Values come from a negamax search with a memo table over `key(board)`, filled
    lazily, so repeated games cost only lookups. Exact solving is practical for
    tic-tac-toe (5,478 positions) and for Connect Four endgames with few empty cells,
    not for Connect Four from the opening.
    """

    def __init__(self, rules: Rules, seed: int | None = None) -> None:
        """Initialises the player.

        Args:
            rules: the game's rules (`Game.rules`).
            seed: seed of the player's own random generator (ties between best moves).
        """
        self._rules = rules
        self._rng = np.random.default_rng(seed)
        self._memo: dict[bytes, int] = {}

    def act(self, observation: Observation) -> int:
        """Returns a legal action of best value, chosen uniformly among ties."""
        values = self.values(observation)
        best = np.flatnonzero(values == np.nanmax(values))
        return int(self._rng.choice(best))

    def values(self, observation: Observation) -> np.ndarray:
        """Returns the game value of each action for the player to move.

        Args:
            observation: PettingZoo observation dict of the player to move.

        Returns:
            float array (NUM_ACTIONS,): +1 if the action wins with best play on both
            sides, 0 if it draws, -1 if it loses, nan where the mask forbids it.
        """
        board = self._rules.board_from_planes(observation["observation"])
        result = np.full(self._rules.num_actions, np.nan)
        for action in _legal_actions(observation):
            result[action] = self.action_value(board, int(action))
        return result

    def action_value(self, board: np.ndarray, action: int) -> int:
        """Returns the game value of `action` for the player to move (+1) on `board`."""
        return -self.value(self._rules.apply(board, action))

    def value(self, board: np.ndarray) -> int:
        """Returns the game value of `board` for the player to move (+1).

        Args:
            board: a board seen by the player to move.

        Returns:
            +1 (a forced win), 0 (a draw) or -1 (a forced loss). A board that already
            holds a line is worth the sign of the line's owner.
        """
        board_key = self._rules.key(board)
        cached = self._memo.get(board_key)
        if cached is None:
            cached = self._solve(board)
            self._memo[board_key] = cached
        return cached

    def _solve(self, board: np.ndarray) -> int:
        # In play only the previous mover (the -1 pieces) can hold a line here.
        line_owner = self._rules.winner(board)
        if line_owner != 0:
            return line_owner
        if self._rules.is_full(board):
            return 0
        best = -1
        for action in np.flatnonzero(self._rules.legal_mask(board)):
            best = max(best, self.action_value(board, int(action)))
            if best == 1:  # No value beats a win; skipping the rest keeps the memo exact.
                break
        return best


def play_game(make_env: Callable[[], AECEnv], players: Sequence[Player], seed: int) -> int:
    """Plays one game in a fresh AEC environment.

    Args:
        make_env: returns a PettingZoo AEC environment, e.g.
            `lambda: pettingzoo.make("aec", "classic/tictactoe-v3")`.
        players: two players; `players[0]` is the env's first agent and moves first.
        seed: seed passed to `env.reset`.

    Returns:
        +1 if `players[0]` won, -1 if `players[1]` won, 0 for a draw. An illegal move
        loses (PettingZoo gives the offender -1 and the other player 0).
    """
    if len(players) != 2:
        raise ValueError(f"expected two players, got {len(players)}")
    env = make_env()
    try:
        env.reset(seed=seed)
        first, second = env.possible_agents
        if env.agent_selection != first:
            raise RuntimeError(f"expected {first!r} to move first, got {env.agent_selection!r}")
        final_rewards = _run_game(env, dict(zip((first, second), players, strict=True)))
    finally:
        env.close()
    return int(np.sign(final_rewards[first] - final_rewards[second]))


def _run_game(env: AECEnv, seats: Mapping[Any, Player]) -> dict[Any, float]:
    """Runs the AEC loop to the end; returns each agent's reward at its final turn."""
    final_rewards: dict[Any, float] = {}
    for agent in env.agent_iter():
        observation, reward, terminated, truncated, _ = env.last()
        if terminated or truncated:
            # `last()` reports the reward accumulated since the agent's last move; the
            # classic board games pay only at the end, so this is the game's result.
            final_rewards[agent] = float(reward)
            env.step(None)
        else:
            env.step(int(seats[agent].act(observation)))
    return final_rewards


def evaluate(
    player: Player,
    opponent: Player,
    make_env: Callable[[], AECEnv],
    games_per_seat: int = 100,
    seed: int = 0,
    should_stop: Callable[[], bool] | None = None,
) -> dict[str, float]:
    """Plays `player` against `opponent` from both seats.

    Args:
        player: the player under evaluation.
        opponent: its opponent.
        make_env: returns a PettingZoo AEC environment for one game.
        games_per_seat: games played with `player` moving first, and as many second.
        seed: seed of the first game's `env.reset`; later games count up from it.
        should_stop: asked before each game; when it returns True the evaluation
            ends at once and returns an empty dict (training is shutting down).

    Returns:
        A flat dict of floats, ready to log: `first/win`, `first/draw`, `first/loss`
        (rates over the games where `player` moved first), the same under `second/`,
        `score` (the mean result for `player` over all games, in [-1, 1]) and `games`.
    """
    if games_per_seat < 1:
        raise ValueError(f"games_per_seat must be positive, got {games_per_seat}")
    first: list[int] = []
    second: list[int] = []
    for i in range(2 * games_per_seat):
        if should_stop is not None and should_stop():
            return {}
        if i < games_per_seat:
            first.append(play_game(make_env, (player, opponent), seed + i))
        else:
            second.append(-play_game(make_env, (opponent, player), seed + i))
    metrics = {**_rates("first", first), **_rates("second", second)}
    metrics["score"] = float(np.mean(first + second))
    metrics["games"] = float(2 * games_per_seat)
    return metrics


def _rates(seat: str, results: Sequence[int]) -> dict[str, float]:
    outcomes = np.asarray(results)
    return {
        f"{seat}/win": float(np.mean(outcomes == 1)),
        f"{seat}/draw": float(np.mean(outcomes == 0)),
        f"{seat}/loss": float(np.mean(outcomes == -1)),
    }
