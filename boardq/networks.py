"""Q-networks and the compiled, read-only forward pass the actors act with."""

from __future__ import annotations

from collections.abc import Sequence

import keras
import tensorflow as tf

from boardq.config import NetworkConfig

__all__ = ["QFunction", "build_q_network"]


def build_q_network(
    obs_shape: Sequence[int], num_actions: int, config: NetworkConfig, name: str = "q"
) -> keras.Model:
    """A functional Keras model: int8 planes [B, H, W, C] -> Q-values [B, A].

    Masking is not part of the network: callers mask illegal moves.
    """
    inputs = keras.Input(shape=tuple(obs_shape), dtype="int8", name="planes")
    x = keras.layers.Lambda(lambda t: tf.cast(t, tf.float32), name="to_float")(inputs)
    for i, filters in enumerate(config.conv_filters):
        x = keras.layers.Conv2D(filters, 3, padding="same", activation="relu", name=f"conv{i}")(x)
    x = keras.layers.Flatten(name="flatten")(x)
    for i, units in enumerate(config.hidden_units):
        x = keras.layers.Dense(units, activation="relu", name=f"dense{i}")(x)
    if config.dueling:
        value = keras.layers.Dense(1, name="value")(x)
        advantage = keras.layers.Dense(num_actions, name="advantage")(x)
        q = keras.layers.Lambda(
            lambda va: va[0] + va[1] - tf.reduce_mean(va[1], axis=-1, keepdims=True),
            name="dueling",
        )([value, advantage])
    else:
        q = keras.layers.Dense(num_actions, name="q_values")(x)
    model = keras.Model(inputs, q, name=name)
    return model


class QFunction:
    """The compiled forward pass over an explicit, immutable set of weights.

    Actors call it with a published snapshot (a tuple of tensors), never with the
    learner's variables, so a forward pass cannot see half of an update. One trace,
    made on the main thread by `warm_up` before any worker thread starts.
    """

    def __init__(self, model: keras.Model):
        self._model = model
        obs_spec = tf.TensorSpec([None, *model.input_shape[1:]], tf.int8)
        weight_specs = [tf.TensorSpec(v.shape, v.dtype) for v in model.weights]
        self._n_trainable = len(model.trainable_weights)

        @tf.function(input_signature=[obs_spec, weight_specs], reduce_retracing=True)
        def forward(obs, weights):
            trainable = weights[: self._n_trainable]
            non_trainable = weights[self._n_trainable :]
            q, _ = self._model.stateless_call(trainable, non_trainable, obs, training=False)
            return q

        self._forward = forward

    def weights_of(self, model: keras.Model | None = None) -> tuple[tf.Tensor, ...]:
        """Copies of the current weights, in the order `__call__` expects."""
        model = model or self._model
        return tuple(tf.constant(v.numpy()) for v in model.weights)

    def __call__(self, obs, weights: Sequence[tf.Tensor]) -> tf.Tensor:
        return self._forward(obs, list(weights))

    def warm_up(self, weights: Sequence[tf.Tensor]) -> None:
        """Traces the forward pass (call on the main thread)."""
        self._forward.get_concrete_function()
        shape = [1, *self._model.input_shape[1:]]
        self(tf.zeros(shape, tf.int8), weights)
