"""Turn bookkeeping for alternating two-player games, in one place (numpy only).

boardq uses the negamax form: the state after a move is the *opponent's* state, seen
from the opponent's side (PettingZoo observes for the player to move), so the value
of the next state counts against the mover. For an n-step return over moves
t .. t+n-1 (each reward from its own mover's view):

    G = r_t - gamma r_{t+1} + gamma^2 r_{t+2} - ...        (sign flips every move)
    target = G + (-gamma)^n * max_a' Q(s_{t+n}, a')         (legal a' only)

The `discount` stored with each transition is (-gamma)^n, or 0 when the game ended
within the n moves, so the learner's target is the same Double DQN formula for any n.
A win earns +1 at the winning move; the loser's -1 arrives through the bootstrap
(the opponent's best move from the next state wins).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import numpy as np

__all__ = ["FIELDS", "NStepBuilder", "Transition", "stack_transitions"]

FIELDS = ("obs", "action", "reward", "discount", "next_obs", "next_mask")


@dataclass(frozen=True)
class Transition:
    """One training example.

    Attributes:
      obs: int8 planes of the mover's view before its move.
      action: the move.
      reward: the n-step negamax return G.
      discount: (-gamma)^n, or 0.0 if the game ended within the n moves.
      next_obs: int8 planes for the player to move n moves later (zeros at the end).
      next_mask: bool legal moves there (all False at the end).
    """

    obs: np.ndarray
    action: int
    reward: float
    discount: float
    next_obs: np.ndarray
    next_mask: np.ndarray


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

    def _close(self, next_obs, next_mask, terminal: bool) -> Transition:
        obs, action, _ = self._pending[0]
        g = 0.0
        for k, (_, _, r) in enumerate(self._pending):
            g += (-self._gamma) ** k * r
        discount = 0.0 if terminal else (-self._gamma) ** len(self._pending)
        self._pending.popleft()
        return Transition(obs, action, g, discount, next_obs, next_mask)


def stack_transitions(items: list[Transition]) -> dict[str, np.ndarray]:
    """Column arrays in the replay's compact dtypes (int8 boards, bool masks)."""
    return {
        "obs": np.stack([t.obs for t in items]).astype(np.int8, copy=False),
        "action": np.fromiter((t.action for t in items), np.int16, len(items)),
        "reward": np.fromiter((t.reward for t in items), np.float32, len(items)),
        "discount": np.fromiter((t.discount for t in items), np.float32, len(items)),
        "next_obs": np.stack([t.next_obs for t in items]).astype(np.int8, copy=False),
        "next_mask": np.stack([t.next_mask for t in items]).astype(bool, copy=False),
    }
