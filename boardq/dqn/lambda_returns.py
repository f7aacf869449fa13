"""Lambda-returns for Q: the `td_lambda` setting (numpy only).

The lambda-return mixes the k-move returns of every length k by geometric weights,
(1 - lambda) lambda^(k-1), so a position's target leans on its own game's later
values and rewards more as lambda grows. In the negamax form of
`boardq.dqn.transitions` (each position's value is the mover's, so the sign flips
every move, -gamma per move) its recursion is

    G_t = r_t + (-gamma) [(1 - lambda) V(s_{t+1}) + lambda G_{t+1}]

and, cut after m moves where the target network bootstraps (as every return here
does), it unrolls to

    G_t = sum_{k<m} (-gamma lambda)^k r_{t+k}
          + sum_{1<=k<m} (-gamma)^k lambda^(k-1) (1 - lambda) V(s_{t+k})
          + lambda^(m-1) (-gamma)^m  max_a' Q_target(s_{t+m}, a')

The last line is the learner's bootstrap, unchanged: `discount` is the stored
lambda^(m-1) (-gamma)^m and the Double DQN target does the rest. The first two lines
are the stored `reward`. lambda 1 is the plain m-move return (today's targets, exactly);
lambda 0 the one-move target r_t - gamma V(s_{t+1}), V the acting network's where m > 1
(the target network's where m = 1); m is `n_step` (or fewer where a game ended or
`returns` cut it).

The form, and why. V(s_{t+k}) = max over legal a of Q(s_{t+k}, a), from the network
each actor acted with, recorded as it acted (Peng's Q(lambda): the values of a greedy
target policy, the trace never cut at exploring moves). With `--returns watkins` the
trace is cut before the first non-greedy move instead and bootstraps there: Watkins's
Q(lambda). The values cost nothing: the actor computed them to choose its moves. They
are the acting snapshot's (a few train steps behind the learner) and stay in the
replay as they were, older as the sample ages; only the tail after m moves is valued
afresh, by the target network at training time. Recomputing every V(s_{t+k}) with the
target network when a sample is drawn would keep them current, but the ring keeps
transitions, not games, the generator that feeds `from_generator` must not call
TensorFlow, and the learner would need m stored positions and m forward passes a
sample where collection is already cheap and the learner the limit
(docs/performance.md). So the lambda-return is computed where the values are: in the
actor, as each of its n-move windows closes.
"""

from __future__ import annotations

import numpy as np

__all__ = ["LambdaReturn", "lambda_return_reference", "make_lambda_return"]


class LambdaReturn:
    """The weights of a lambda-return cut after m moves, and the values it needs.

    Args:
      td_lambda: lambda in [0, 1]; 1 is the plain n-step return.
      discount: gamma per move (the sign of the negamax form is added here).
    """

    def __init__(self, td_lambda: float, discount: float):
        if not 0.0 <= td_lambda <= 1.0:
            raise ValueError(f"td_lambda must be in [0, 1], not {td_lambda}")
        self.td_lambda = float(td_lambda)
        self.discount = float(discount)
        self.uses_values = self.td_lambda < 1.0
        """Whether the positions' values enter the return (not for the plain return)."""
        self._cache: dict[int, tuple[np.ndarray, np.ndarray, float]] = {}

    def values(self, q: np.ndarray, mask: np.ndarray) -> np.ndarray | None:
        """[M] the movers' values max_a Q(s, a) over legal moves, or None if unused.

        Args:
          q: [M, A] the acting network's Q-values of the positions to move from.
          mask: [M, A] their legal moves (a position with none is worth 0).
        """
        if not self.uses_values:
            return None
        mask = np.asarray(mask, bool)
        best = np.max(np.where(mask, np.asarray(q, np.float64), -np.inf), axis=1)
        return np.where(mask.any(axis=1), best, 0.0)

    def weights(self, moves: int) -> tuple[np.ndarray, np.ndarray, float]:
        """The weights of a return over `moves` moves, ending in a bootstrap.

        Returns:
          (reward weights [m]: (-gamma lambda)^k; value weights [m]: 0 for k = 0, then
          (-gamma)^k lambda^(k-1) (1 - lambda), the weight of V(s_{t+k}); the bootstrap's
          discount lambda^(m-1) (-gamma)^m).
        """
        if moves not in self._cache:
            g, lam = -self.discount, self.td_lambda
            # Written as (-gamma)^k lambda^k, so lambda 1 gives the plain return's
            # (-gamma)^k bit for bit.
            reward = np.array([g**k * lam**k for k in range(moves)])
            value = np.array([0.0] + [g**k * lam ** (k - 1) * (1.0 - lam) for k in range(1, moves)])
            self._cache[moves] = (reward, value, lam ** (moves - 1) * g**moves)
        return self._cache[moves]


def make_lambda_return(td_lambda: float, discount: float) -> LambdaReturn:
    """The `td_lambda` setting's returns."""
    return LambdaReturn(td_lambda, discount)


def lambda_return_reference(
    rewards, values, bootstrap: float | None, td_lambda: float, discount: float
) -> float:
    """The lambda-return of one move by its recursion, backwards (the plain reference).

    Args:
      rewards: r_t .. r_{t+m-1}, each from its own mover's view.
      values: V(s_t) .. V(s_{t+m-1}) (the first is not used).
      bootstrap: V(s_{t+m}), or None where the game ended with the last move.
      td_lambda: lambda.
      discount: gamma.
    """
    g = 0.0 if bootstrap is None else float(bootstrap)
    for k in range(len(rewards) - 1, -1, -1):
        # G_k = r_k - gamma [(1 - lambda) V(s_{k+1}) + lambda G_{k+1}]; the newest
        # move's G_{k+1} is the bootstrap itself.
        nxt = g if k == len(rewards) - 1 else (1 - td_lambda) * values[k + 1] + td_lambda * g
        g = rewards[k] - discount * nxt
    return g
