"""Pure TensorFlow functions for the Double DQN target and loss."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import tensorflow as tf

__all__ = ["double_q_target", "huber", "masked_max", "td_loss"]


def masked_max(q: tf.Tensor, mask: tf.Tensor) -> tf.Tensor:
    """Max over legal moves; 0 for rows with no legal move (terminal states).

    Args:
      q: [B, A] values.
      mask: [B, A] bool legal moves.
    """
    lowest = tf.fill(tf.shape(q), q.dtype.min)
    best = tf.reduce_max(tf.where(mask, q, lowest), axis=-1)
    return tf.where(tf.reduce_any(mask, axis=-1), best, tf.zeros_like(best))


def double_q_target(
    reward: tf.Tensor,
    discount: tf.Tensor,
    q_t_online: tf.Tensor,
    q_t_target: tf.Tensor,
    next_mask: tf.Tensor,
    epsilon: float = 0.0,
) -> tf.Tensor:
    """Double DQN target over legal next moves, for an epsilon-greedy next player.

        a* = argmax_{a legal in s'} Q_online(s', a)
        v  = (1 - eps) Q_target(s', a*) + eps mean_{a legal in s'} Q_target(s', a)
        y  = r + discount * v                          (0 bootstrap if s' is terminal)

    With eps = 0 this is Double DQN: the next player is assumed to play its best move,
    so every move that keeps a draw against best play is worth the same. With eps > 0
    the next player is assumed to move at random that often (expected SARSA): a
    position where the opponent has more ways to go wrong is worth more.
    `discount` carries the sign of the negamax form, (-gamma)^n (see
    `boardq.dqn.transitions`).

    Args:
      reward: [B] n-step returns.
      discount: [B] bootstrap factors, 0 where the game ended.
      q_t_online: [B, A] online network at s'.
      q_t_target: [B, A] target network at s'.
      next_mask: [B, A] bool legal moves at s'.
      epsilon: the share of random moves assumed of the next player.

    Returns:
      [B] targets (no gradient flows through them).
    """
    lowest = tf.fill(tf.shape(q_t_online), q_t_online.dtype.min)
    best = tf.argmax(tf.where(next_mask, q_t_online, lowest), axis=-1, output_type=tf.int32)
    value = tf.gather(q_t_target, best, batch_dims=1)
    if epsilon:
        legal = tf.cast(next_mask, q_t_target.dtype)
        count = tf.maximum(tf.reduce_sum(legal, axis=-1), 1.0)
        mean = tf.reduce_sum(q_t_target * legal, axis=-1) / count
        value = (1.0 - epsilon) * value + epsilon * mean
    has_move = tf.reduce_any(next_mask, axis=-1)
    value = tf.where(has_move, value, tf.zeros_like(value))
    return tf.stop_gradient(reward + discount * value)


def huber(error: tf.Tensor, delta: float) -> tf.Tensor:
    """Elementwise Huber loss of a TD error."""
    abs_error = tf.abs(error)
    quadratic = tf.minimum(abs_error, delta)
    return 0.5 * quadratic**2 + delta * (abs_error - quadratic)


def td_loss(
    online: Callable[..., tf.Tensor],
    target: Callable[..., tf.Tensor],
    batch: Mapping[str, tf.Tensor],
    huber_delta: float,
    bootstrap_epsilon: float = 0.0,
) -> tuple[tf.Tensor, tf.Tensor, tf.Tensor]:
    """The Double DQN loss of one batch (call it under the GradientTape).

    Args:
      online: the online network, planes [B, ...] -> Q-values [B, A].
      target: the target network, likewise.
      batch: the columns of `boardq.dqn.schema.SCHEMA`.
      huber_delta: the Huber loss threshold.
      bootstrap_epsilon: the share of random moves the target assumes of the next
        player (`double_q_target`).

    Returns:
      (mean Huber loss, Q of the moves taken [B], TD errors [B]).
    """
    action = tf.cast(batch["action"], tf.int32)
    q_tm1 = online(batch["obs"], training=True)  # [B, A]
    q_taken = tf.gather(q_tm1, action, batch_dims=1)  # [B]
    q_t_online = online(batch["next_obs"], training=False)  # [B, A]
    q_t_target = target(batch["next_obs"], training=False)  # [B, A]
    y = double_q_target(
        batch["reward"],
        batch["discount"],
        q_t_online,
        q_t_target,
        batch["next_mask"],
        bootstrap_epsilon,
    )
    td_error = y - q_taken
    return tf.reduce_mean(huber(td_error, huber_delta)), q_taken, td_error
