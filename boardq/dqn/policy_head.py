"""A policy head beside the Q head, trained towards a regularized policy (pure TF).

KLENT (Ota et al., arXiv 2602.10894) learns a policy beside Q by cross-entropy towards

    pi'(a | s) proportional to exp((Q(s, a) + beta log pi_old(a | s)) / (alpha + beta))

the maximiser of E_pi'[Q] + alpha H(pi') - beta KL(pi' || pi_old): alpha keeps the
policy from collapsing onto one move, beta keeps each update near the policy before it.
Self-play then samples its moves from pi' (`boardq.dqn.sampling`), and at play the
policy is a search's prior.

How it sits in boardq's learner, with no new column in the replay and no extra forward
pass: the policy is trained at each transition's next position s' (`next_obs`, whose
legal moves `next_mask` the schema keeps; the position a transition starts from has
no mask stored), where the Double DQN target already runs both networks. Q and pi_old
there are the target network's (soft-updated, as the Q target's bootstrap is), the
policy trained the online network's. Positions that are never a next position (the
game's first) train no policy; finished games (no legal move) neither. The Q head's
loss is unchanged (`boardq.dqn.losses.td_loss`'s Huber); the two losses add.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Protocol

import tensorflow as tf

from boardq.dqn.losses import double_q_target, huber, td_loss

__all__ = [
    "Loss",
    "make_loss",
    "policy_cross_entropy",
    "policy_entropy",
    "regularized_policy",
    "split_heads",
    "td_policy_loss",
]


class Loss(Protocol):
    """The learner's loss: `loss(online, target, batch)` under the GradientTape.

    Returns (the loss, Q of the moves taken [B], TD errors [B], more metrics by the
    names in `metrics`).
    """

    metrics: tuple[str, ...]

    def __call__(self, online, target, batch) -> tuple[tf.Tensor, tf.Tensor, tf.Tensor, dict]: ...


def split_heads(out: tf.Tensor, num_actions: int) -> tuple[tf.Tensor, tf.Tensor]:
    """(Q-values [B, A], policy logits [B, A]) of a two-headed network's output [B, 2A]."""
    return out[:, :num_actions], out[:, num_actions:]


def _log_softmax_legal(logits: tf.Tensor, mask: tf.Tensor) -> tf.Tensor:
    """The log softmax over the legal moves; a very negative number on the others."""
    lowest = tf.fill(tf.shape(logits), logits.dtype.min)
    return tf.nn.log_softmax(tf.where(mask, logits, lowest), axis=-1)


def regularized_policy(
    q: tf.Tensor, logits: tf.Tensor, mask: tf.Tensor, alpha: float, beta: float
) -> tf.Tensor:
    """The regularized policy pi' [B, A] over the legal moves, 0 elsewhere (no gradient).

        log pi = log_softmax over legal moves of the logits
        pi'    = softmax over legal moves of (Q + beta log pi) / (alpha + beta)

    Rows without a legal move come out uniform; the loss leaves them out.

    Args:
      q: [B, A] Q-values.
      logits: [B, A] the previous policy's logits.
      mask: [B, A] bool legal moves.
      alpha: entropy weight.
      beta: weight of the reverse KL to the previous policy.
    """
    log_pi = tf.where(mask, _log_softmax_legal(logits, mask), tf.zeros_like(logits))
    z = (q + beta * log_pi) / (alpha + beta)
    probs = tf.exp(_log_softmax_legal(z, mask))
    return tf.stop_gradient(tf.where(mask, probs, tf.zeros_like(probs)))


def policy_entropy(logits: tf.Tensor, mask: tf.Tensor) -> tf.Tensor:
    """Mean over rows with a legal move of the policy's entropy over its legal moves.

    The policy's collapse onto one move shows here first (KLENT without its entropy
    term lost most of its strength).
    """
    probs = tf.where(mask, tf.exp(_log_softmax_legal(logits, mask)), tf.zeros_like(logits))
    return policy_cross_entropy(logits, tf.stop_gradient(probs), mask)


def policy_cross_entropy(logits: tf.Tensor, target: tf.Tensor, mask: tf.Tensor) -> tf.Tensor:
    """Mean over rows with a legal move of -sum_a target(a) log pi(a), pi over legal moves.

    Args:
      logits: [B, A] the policy being trained.
      target: [B, A] pi', 0 on illegal moves.
      mask: [B, A] bool legal moves.
    """
    log_pi = tf.where(mask, _log_softmax_legal(logits, mask), tf.zeros_like(logits))
    per_row = -tf.reduce_sum(target * log_pi, axis=-1)
    has_move = tf.cast(tf.reduce_any(mask, axis=-1), per_row.dtype)
    return tf.reduce_sum(per_row * has_move) / tf.maximum(tf.reduce_sum(has_move), 1.0)


def td_policy_loss(
    online: Callable[..., tf.Tensor],
    target: Callable[..., tf.Tensor],
    batch: Mapping[str, tf.Tensor],
    huber_delta: float,
    bootstrap_epsilon: float,
    num_actions: int,
    alpha: float,
    beta: float,
) -> tuple[tf.Tensor, tf.Tensor, tf.Tensor, dict[str, tf.Tensor]]:
    """The Double DQN loss of the Q head plus the policy head's cross-entropy to pi'.

    Args:
      online: the online two-headed network, planes [B, ...] -> [B, 2A].
      target: the target network, likewise.
      batch: the columns of `boardq.dqn.schema.SCHEMA`.
      huber_delta: the Huber loss threshold.
      bootstrap_epsilon: as `boardq.dqn.losses.td_loss`.
      num_actions: A.
      alpha: pi''s entropy weight.
      beta: pi''s weight of the reverse KL to the target network's policy.

    Returns:
      (Q loss + policy loss, Q of the moves taken [B], TD errors [B], {"policy_loss":
      the cross-entropy, "policy_entropy": the trained policy's mean entropy}).
    """
    action = tf.cast(batch["action"], tf.int32)
    q_tm1, _ = split_heads(online(batch["obs"], training=True), num_actions)
    q_taken = tf.gather(q_tm1, action, batch_dims=1)  # [B]
    q_t_online, logits_t = split_heads(online(batch["next_obs"], training=False), num_actions)
    q_t_target, logits_old = split_heads(target(batch["next_obs"], training=False), num_actions)
    mask = batch["next_mask"]
    y = double_q_target(
        batch["reward"], batch["discount"], q_t_online, q_t_target, mask, bootstrap_epsilon
    )
    td_error = y - q_taken
    pi_target = regularized_policy(q_t_target, logits_old, mask, alpha, beta)
    loss = tf.reduce_mean(huber(td_error, huber_delta))
    cross_entropy = policy_cross_entropy(logits_t, pi_target, mask)
    extra = {"policy_loss": cross_entropy, "policy_entropy": policy_entropy(logits_t, mask)}
    return loss + cross_entropy, q_taken, td_error, extra


class _DoubleDQN:
    metrics: tuple[str, ...] = ()

    def __init__(self, config):
        self._delta, self._eps = config.huber_delta, config.bootstrap_epsilon

    def __call__(self, online, target, batch):
        return (*td_loss(online, target, batch, self._delta, self._eps), {})


class _WithPolicy:
    metrics = ("policy_loss", "policy_entropy")

    def __init__(self, config, num_actions: int):
        self._args = (
            config.huber_delta,
            config.bootstrap_epsilon,
            num_actions,
            config.policy_alpha,
            config.policy_beta,
        )

    def __call__(self, online, target, batch):
        return td_policy_loss(online, target, batch, *self._args)


def make_loss(config, num_actions: int) -> Loss:
    """The learner's loss for `config`.

    Double DQN's `td_loss`, or with `network.policy_head` `td_policy_loss` (and its
    metrics).
    """
    return _WithPolicy(config, num_actions) if config.network.policy_head else _DoubleDQN(config)
