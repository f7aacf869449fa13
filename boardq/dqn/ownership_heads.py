"""The ownership and score heads beside the Q head, and their loss (pure TF).

The learner's side of the `ownership_targets` lever (the targets and where they come
from: `boardq.dqn.ownership`). Two heads read the Q-network's torso, the features its
Q head reads (`boardq.dqn.networks.torso_features`):

- ownership: a dense layer, one tanh output per board point [B, P];
- score: a dense layer, one tanh output [B].

With the online network's own layers they make one more Keras model, planes -> (the
online network's output, ownership, score), so the train step's one forward pass of
`obs` gives all three. The online network is unchanged: its weights (so the snapshots
the actors act with, the target network, the numpy forward pass) and the agent file,
whose arrays are exactly those of a run without the lever; the heads' arrays are not
in the agent file at all, only in the checkpoints (`checkpoint_objects`), for
`--resume`. Adam is built over the online network's variables and then the heads'
(`boardq.dqn.models.build_models`), and `apply_gradients` remains the one write.

The loss is the Q loss (`boardq.dqn.policy_head.make_loss`: Double DQN, or with the
policy head's) plus

    ownership_weight * mean over the batch and the points of 0.5 (o - o_target)^2
    + score_weight   * mean over the batch of 0.5 (s - s_target)^2

Squared error on tanh outputs rather than a cross-entropy over {-1, 0, 1}: one output
a point cannot hold three classes' probabilities, and its minimiser is the expected
final owner, as it is of the binary cross-entropy on (1 + o) / 2 that KataGo uses
(where dame's 0 is the half-way target too); it stays bounded where the tanh
saturates, and 0.5 e^2 is the Q head's Huber loss below its threshold, so the weights
compare with the Q loss's 1. KataGo weighs ownership 1.5 over the board's points
(1.5 / b^2 summed over the points): `ownership_weight` is 1.5 on the mean over them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import keras
import tensorflow as tf

from boardq.dqn.networks import torso_features

__all__ = ["OwnershipHeads", "aux_losses", "make_heads"]


def aux_losses(
    ownership: tf.Tensor, score: tf.Tensor, batch: Mapping[str, tf.Tensor]
) -> tuple[tf.Tensor, tf.Tensor]:
    """(ownership loss, score loss): the means of 0.5 squared errors to the batch's targets.

    Args:
      ownership: [B, P] the ownership head's tanh outputs.
      score: [B] the score head's.
      batch: with the `ownership` [B, P] and `score` [B] columns.
    """
    owner = tf.cast(batch["ownership"], ownership.dtype)
    ownership_loss = tf.reduce_mean(0.5 * tf.square(ownership - owner))
    score_loss = tf.reduce_mean(0.5 * tf.square(score - tf.cast(batch["score"], score.dtype)))
    return ownership_loss, score_loss


class _SharedPass:
    """The online network for the Q loss, its output at the batch's `obs` already computed.

    The Q loss asks for the online network at `obs` (trained) and at `next_obs`; the
    first is the heads' model's pass, which computed it with the heads.
    """

    def __init__(self, online: Callable, obs: tf.Tensor, out: tf.Tensor):
        self._online, self._obs, self._out = online, obs, out

    def __call__(self, planes, training=False):
        return self._out if planes is self._obs else self._online(planes, training=training)


class _WithHeads:
    """A Q loss (`boardq.dqn.policy_head.Loss`) plus the heads' weighted losses."""

    def __init__(self, base, model: keras.Model, ownership_weight: float, score_weight: float):
        self._base, self._model = base, model
        self._weights = (float(ownership_weight), float(score_weight))
        self.metrics = (*base.metrics, "ownership_loss", "score_loss")

    def __call__(self, online, target, batch):
        out, ownership, score = self._model(batch["obs"], training=True)
        shared = _SharedPass(online, batch["obs"], out)
        loss, q_taken, td_error, extra = self._base(shared, target, batch)
        ownership_loss, score_loss = aux_losses(ownership, score[:, 0], batch)
        w_own, w_score = self._weights
        total = loss + w_own * ownership_loss + w_score * score_loss
        extra = {**extra, "ownership_loss": ownership_loss, "score_loss": score_loss}
        return total, q_taken, td_error, extra


class OwnershipHeads:
    """The two heads, made on an online network by `attach` (before the optimizer is built).

    Args:
      points: P, the board's points.
      ownership_weight, score_weight: the losses' weights.
    """

    def __init__(self, points: int, ownership_weight: float, score_weight: float):
        self.points = int(points)
        self._weights = (ownership_weight, score_weight)
        self.model: keras.Model | None = None
        self._ownership = keras.layers.Dense(
            self.points, activation="tanh", name="ownership", dtype="float32"
        )
        self._score = keras.layers.Dense(1, activation="tanh", name="score", dtype="float32")

    def attach(self, online: keras.Model) -> list[tf.Variable]:
        """Puts the heads on `online`'s torso; returns their trainable variables."""
        features = torso_features(online)
        outputs = [online.outputs[0], self._ownership(features), self._score(features)]
        self.model = keras.Model(online.inputs, outputs, name=f"{online.name}_with_heads")
        return self.trainable_variables

    @property
    def trainable_variables(self) -> list[tf.Variable]:
        return [*self._ownership.trainable_variables, *self._score.trainable_variables]

    def loss(self, base):
        """`base` (the learner's Q loss) plus the heads' (metrics ownership_loss, score_loss)."""
        if self.model is None:
            raise RuntimeError("attach the heads to the online network first")
        return _WithHeads(base, self.model, *self._weights)

    def checkpoint_objects(self) -> dict:
        """What a checkpoint keeps of the heads (their layers' weights)."""
        return {"ownership_head": self._ownership, "score_head": self._score}


def make_heads(config, obs_shape) -> OwnershipHeads | None:
    """The `ownership_targets` setting's heads (None: off), for planes of `obs_shape`."""
    if not config.ownership_targets:
        return None
    points = 1
    for d in tuple(obs_shape)[:-1]:
        points *= int(d)
    return OwnershipHeads(points, config.ownership_weight, config.score_weight)
