"""How self-play picks its moves from the network's outputs: the play lever (numpy only).

- `EpsilonGreedy`: the Q-network alone; the best legal move, a random legal one with
  probability epsilon.
- `PolicySampling`: a network with a policy head (`NetworkConfig.policy_head`); each
  move is drawn from the regularized policy

      pi'(a | s) proportional to exp((Q(s, a) + beta log pi(a | s)) / (alpha + beta))

  over the legal moves, pi the policy head's softmax over them (KLENT, arXiv
  2602.10894: never epsilon-greedy; alpha keeps it spread, beta keeps it near the
  policy that played before). It is what the policy head learns towards
  (`boardq.dqn.policy_head.regularized_policy`, the same formula in TensorFlow), so
  the games are played by the improved policy the learner's targets describe.

The actor asks the lever to split the network's output into Q-values and whatever else
it needs (`split`), and then to choose the moves (`choose`).
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np

from boardq.dqn.policies import epsilon_greedy

__all__ = [
    "EpsilonGreedy",
    "Play",
    "PolicySampling",
    "make_play",
    "policy_probabilities",
    "regularized_policy",
    "sample_moves",
    "split_heads",
]


def split_heads(out: np.ndarray, num_actions: int) -> tuple[np.ndarray, np.ndarray]:
    """(Q-values [B, A], policy logits [B, A]) of a two-headed network's output [B, 2A]."""
    return out[:, :num_actions], out[:, num_actions:]


def _log_softmax_legal(logits: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The log softmax over the legal moves; -inf on the others."""
    z = np.where(mask, np.asarray(logits, np.float64), -np.inf)
    top = np.max(z, axis=-1, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    shifted = z - top
    with np.errstate(divide="ignore"):
        return shifted - np.log(np.sum(np.exp(shifted), axis=-1, keepdims=True))


def policy_probabilities(logits: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The policy head's pi [B, A]: the softmax of its logits over the legal moves."""
    return np.exp(_log_softmax_legal(logits, np.asarray(mask, bool)))


def regularized_policy(
    q: np.ndarray, logits: np.ndarray, mask: np.ndarray, alpha: float, beta: float
) -> np.ndarray:
    """The regularized policy pi' [B, A] over the legal moves (0 elsewhere).

    Every row needs a legal move.

    Args:
      q: [B, A] Q-values.
      logits: [B, A] the policy head's logits (pi is their softmax over legal moves).
      mask: [B, A] legal moves.
      alpha: entropy weight (> 0 or beta > 0).
      beta: weight of the reverse KL to pi.
    """
    mask = np.asarray(mask, bool)
    log_pi = _log_softmax_legal(logits, mask)
    z = np.where(mask, (np.asarray(q, np.float64) + beta * np.where(mask, log_pi, 0.0)), -np.inf)
    return np.exp(_log_softmax_legal(z / (alpha + beta), mask))


def sample_moves(probs: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """[B] one move per row drawn with the row's probabilities [B, A] (inverse CDF)."""
    cdf = np.cumsum(probs, axis=-1)
    draws = rng.random((len(probs), 1)) * cdf[:, -1:]
    # The first move whose cumulative share passes the draw; a move of probability 0
    # never has the CDF step there, so it is never drawn.
    return np.minimum(np.sum(cdf <= draws, axis=-1), probs.shape[-1] - 1)


class Play(Protocol):
    """The actors' move choice from the acting network's output."""

    def split(self, out: np.ndarray) -> tuple[np.ndarray, Any]:
        """(Q-values [M, A], what else `choose` needs) of the network's output."""
        ...

    def choose(
        self, q: np.ndarray, extra: Any, mask: np.ndarray, epsilon: float, rng
    ) -> np.ndarray:
        """[M] legal moves."""
        ...


class EpsilonGreedy:
    """The Q-network's best legal move; a random legal one with probability epsilon."""

    def split(self, out):
        return out, None

    def choose(self, q, extra, mask, epsilon, rng):
        return epsilon_greedy(q, mask, epsilon, rng)


class PolicySampling:
    """Moves drawn from pi' of a two-headed network's Q-values and policy (epsilon unused).

    Args:
      num_actions: A.
      alpha, beta: pi''s weights (`regularized_policy`).
    """

    def __init__(self, num_actions: int, alpha: float, beta: float):
        if alpha + beta <= 0:
            raise ValueError("policy_alpha + policy_beta must be > 0")
        self.num_actions, self.alpha, self.beta = num_actions, float(alpha), float(beta)

    def split(self, out):
        return split_heads(np.asarray(out), self.num_actions)

    def choose(self, q, extra, mask, epsilon, rng):
        probs = regularized_policy(q, extra, mask, self.alpha, self.beta)
        return sample_moves(probs, rng)


def make_play(policy_head: bool, num_actions: int, alpha: float, beta: float) -> Play:
    """The play of a network with or without a policy head (`NetworkConfig.policy_head`)."""
    if policy_head:
        return PolicySampling(num_actions, alpha, beta)
    return EpsilonGreedy()
