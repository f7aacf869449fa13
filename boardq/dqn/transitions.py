"""Turn bookkeeping for alternating two-player games (numpy only).

boardq uses the negamax form: the state after a move is the *opponent's* state, seen
from the opponent's side (PettingZoo observes for the player to move), so the value
of the next state counts against the mover. For an n-step return over moves
t .. t+n-1 (each reward from its own mover's view):

    G = r_t - gamma r_{t+1} + gamma^2 r_{t+2} - ...        (sign flips every move)
    target = G + (-gamma)^n * max_a' Q(s_{t+n}, a')         (legal a' only)

The `discount` stored with each transition is (-gamma)^n, or 0 when the game ended
within the n moves, so the learner's target is the same Double DQN formula for any n.
With `td_lambda` < 1 the return is a lambda-return over the n moves: G also carries the
acting network's values of the positions within, and the discount is
lambda^(n-1) (-gamma)^n (`boardq.dqn.lambda_returns`).
A win earns +1 at the winning move; the loser's -1 arrives through the bootstrap
(the opponent's best move from the next state wins).

`NStepBatch` is the bookkeeping the actors use (all games of a batch at once);
`NStepBuilder` is the same rule for one game, the plain reference it is tested against.
Both close transitions into the columns of the batch schema (`boardq.dqn.schema`).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from boardq.dqn.lambda_returns import LambdaReturn
from boardq.dqn.schema import FIELDS, SCHEMA, Chunk, empty_columns

__all__ = [
    "MOVE_TAGS",
    "NStepBatch",
    "NStepBuilder",
    "Transition",
    "stack_transitions",
]

MOVE_TAGS = ("game", "ply")
"""What `NStepBatch(tag_moves=True)` adds to its chunks: each row's game, and its move's ply."""


@dataclass(frozen=True)
class Transition:
    """One training example; the fields are the columns of `SCHEMA`."""

    obs: np.ndarray
    action: int
    reward: float
    discount: float
    next_obs: np.ndarray
    next_mask: np.ndarray


def stack_transitions(items: Sequence[Transition]) -> Chunk:
    """Column arrays in the schema's dtypes."""
    dtypes = {c.name: c.dtype for c in SCHEMA}
    return {name: np.asarray([getattr(t, name) for t in items], dtypes[name]) for name in FIELDS}


class NStepBuilder:
    """Turns one game's sequence of moves into n-step negamax transitions.

    Call `add` after every move of either player; it returns the transitions that
    closed with that move (none until n moves are known, all pending ones at the end).
    """

    def __init__(self, n_step: int, discount: float, obs_shape, num_actions: int):
        if n_step < 1:
            raise ValueError("n_step must be >= 1")
        self._n = n_step
        self._gamma = discount
        self._pending: deque[tuple[np.ndarray, int, float]] = deque()
        self._terminal_obs = np.zeros(obs_shape, np.int8)
        self._terminal_mask = np.zeros(num_actions, bool)

    def add(
        self,
        obs: np.ndarray,
        action: int,
        reward: float,
        next_obs: np.ndarray | None,
        next_mask: np.ndarray | None,
        done: bool,
    ) -> list[Transition]:
        """Records one move.

        Args:
          obs: planes the mover saw.
          action: its move.
          reward: the mover's reward for this move (+1 win, 0 otherwise; -1 if the
            rules make the mover lose by its own move).
          next_obs: planes for the next player to move; ignored when done.
          next_mask: legal moves of the next player; ignored when done.
          done: the game ended with this move.
        """
        self._pending.append((obs, int(action), float(reward)))
        out: list[Transition] = []
        if done:
            while self._pending:
                out.append(self._close(self._terminal_obs, self._terminal_mask, terminal=True))
        elif len(self._pending) == self._n:
            out.append(self._close(next_obs, np.asarray(next_mask, bool), terminal=False))
        return out

    def cut(self, obs: np.ndarray, mask: np.ndarray) -> list[Transition]:
        """Closes every pending move, bootstrapping from `obs`.

        `obs` and `mask` are the position before the next move, which the returns are
        not to run through (`boardq.dqn.returns`).
        """
        out = []
        while self._pending:
            out.append(self._close(obs, np.asarray(mask, bool), terminal=False))
        return out

    def _close(self, next_obs, next_mask, terminal: bool) -> Transition:
        obs, action, _ = self._pending[0]
        g = 0.0
        for k, (_, _, r) in enumerate(self._pending):
            g += (-self._gamma) ** k * r
        discount = 0.0 if terminal else (-self._gamma) ** len(self._pending)
        self._pending.popleft()
        return Transition(obs, action, g, discount, next_obs, next_mask)


class NStepBatch:
    """`NStepBuilder`'s rule for M games that move together, without a loop over games.

    Every game makes one move per step, so the last n moves of all games sit in one
    ring of n slots; each game counts how many of them are still open. Per step:
    `record` the positions and moves before the games are stepped, then `close` with
    the outcome; it returns the transitions that closed, as one chunk of columns.

    Args:
      n_step, discount: as `NStepBuilder`.
      num_games: M.
      obs_shape, num_actions: of the game.
      trace: the weights of the return (`boardq.dqn.lambda_returns`; default: the plain
        n-step return, lambda 1).
      tag_moves: chunks also carry `MOVE_TAGS`: each row's game (int64) and its move's
        ply in that game (`record`'s `ply`), for targets known when the game ends.
    """

    def __init__(
        self,
        n_step: int,
        discount: float,
        num_games: int,
        obs_shape,
        num_actions: int,
        trace: LambdaReturn | None = None,
        tag_moves: bool = False,
    ):
        if n_step < 1:
            raise ValueError("n_step must be >= 1")
        self._n, self._gamma, self._m = n_step, float(discount), num_games
        self._ply = np.zeros((n_step, num_games), np.int64) if tag_moves else None
        self._trace = trace if trace is not None else LambdaReturn(1.0, discount)
        self._value = np.zeros((n_step, num_games), np.float64)  # V(s) of each recorded move
        self._obs_shape, self._num_actions = tuple(obs_shape), num_actions
        self._obs = np.zeros((n_step, num_games, *obs_shape), np.int8)
        self._action = np.zeros((n_step, num_games), np.int16)
        self._reward = np.zeros((n_step, num_games), np.float64)
        self._open = np.zeros(num_games, np.int64)  # moves not yet closed, per game
        self._t = 0  # steps so far; the newest move sits in slot t % n

    def record(
        self,
        obs: np.ndarray,
        actions: np.ndarray,
        values: np.ndarray | None = None,
        ply: np.ndarray | None = None,
    ) -> None:
        """The movers' planes [M, ...] (copied) and their moves [M], before stepping.

        `values` [M] are the positions' values for a lambda-return (`trace.values`);
        `ply` [M] the moves' plies in their games (needed with `tag_moves`).
        """
        slot = self._t % self._n
        self._obs[slot] = obs
        self._action[slot] = actions
        if values is not None:
            self._value[slot] = values
        if self._ply is not None:
            self._ply[slot] = ply

    def cut(self, games: np.ndarray, obs: np.ndarray, mask: np.ndarray) -> Chunk:
        """Closes every open move of the games `games`, bootstrapping from them now.

        Called before the next move is recorded (`NStepBuilder.cut` for one game).

        Args:
          games: [M] the games whose returns stop here.
          obs: [M, ...] the planes of the player to move now.
          mask: [M, A] its legal moves.
        """
        rows = np.flatnonzero(np.asarray(games, bool) & (self._open > 0))
        parts = []
        for age in range(self._n):  # the newest open move (age 0) to the oldest
            r = rows[self._open[rows] > age]
            if r.size == 0:
                break
            parts.append(self._emit(r, age, obs[r], mask[r]))
        self._open[rows] = 0
        return self._joined(parts)

    def close(
        self, reward: np.ndarray, done: np.ndarray, next_obs: np.ndarray, next_mask: np.ndarray
    ) -> Chunk:
        """The transitions the recorded moves closed.

        Args:
          reward: [M] each mover's reward for its move.
          done: [M] the game ended with the move.
          next_obs: [M, ...] the next player's planes in each game (ignored where done).
          next_mask: [M, A] the next player's legal moves (ignored where done).
        """
        slot = self._t % self._n
        self._reward[slot] = reward
        self._open += 1
        self._t += 1
        parts = []
        # A game still going closes its oldest move once n are open.
        full = np.flatnonzero(~done & (self._open == self._n))
        if full.size:
            parts.append(self._emit(full, self._n - 1, next_obs[full], next_mask[full]))
        # A finished game closes every open move, the newest (age 0) to the oldest.
        ended = np.flatnonzero(done)
        for age in range(self._n):
            rows = ended[self._open[ended] > age]
            if rows.size == 0:
                break
            shape = (rows.size, *self._obs_shape)
            none = np.zeros((rows.size, self._num_actions), bool)
            parts.append(self._emit(rows, age, np.zeros(shape, np.int8), none, terminal=True))
        self._open[full] -= 1
        self._open[ended] = 0
        return self._joined(parts)

    def _joined(self, parts: list[Chunk]) -> Chunk:
        if parts:
            return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
        empty = empty_columns(0, self._obs_shape, self._num_actions)
        return empty | (
            {k: np.zeros(0, np.int64) for k in MOVE_TAGS} if self._ply is not None else {}
        )

    def _emit(self, rows, age: int, next_obs, next_mask, terminal: bool = False) -> Chunk:
        """Transitions of games `rows` from the move `age` steps before the newest."""
        newest = (self._t - 1) % self._n
        start = (newest - age) % self._n
        reward_w, value_w, tail = self._trace.weights(age + 1)
        g = np.zeros(rows.size)
        for k in range(age + 1):  # G = sum_k (-gamma)^k r_{start+k}, lambda 1
            g += reward_w[k] * self._reward[(start + k) % self._n, rows]
            if k and self._trace.uses_values:  # the lambda-return's V(s_{start+k})
                g += value_w[k] * self._value[(start + k) % self._n, rows]
        discount = 0.0 if terminal else tail
        out = {
            "obs": self._obs[start, rows],
            "action": self._action[start, rows],
            "reward": g.astype(np.float32),
            "discount": np.full(rows.size, discount, np.float32),
            "next_obs": np.asarray(next_obs, np.int8),
            "next_mask": np.asarray(next_mask, bool),
        }
        if self._ply is not None:
            out |= {"game": np.asarray(rows, np.int64), "ply": self._ply[start, rows]}
        return out
