"""Q-networks and the compiled, read-only forward pass the actors act with."""

from __future__ import annotations

from collections.abc import Sequence

import keras
import numpy as np
import tensorflow as tf

from boardq.config import NetworkConfig

__all__ = ["QFunction", "build_q_network", "layer_gemms", "torso_features", "train_step_flops"]


def build_q_network(
    obs_shape: Sequence[int],
    num_actions: int,
    config: NetworkConfig,
    name: str = "q",
    policy: str = "float32",
) -> keras.Model:
    """A functional Keras model: int8 planes [B, H, W, C] -> float32 Q-values [B, A].

    With `config.policy_head` a policy head sits beside the Q head on the same hidden
    layers, and the model gives [B, 2A]: the Q-values, then the policy's logits
    (`boardq.dqn.sampling.split_heads`). Masking is not part of the network: callers
    mask illegal moves.

    Args:
      obs_shape: the planes' shape [H, W, C].
      num_actions: A.
      config: the network's shape.
      name: the model's name.
      policy: the Keras dtype policy of its layers: "float32", or "mixed_bfloat16" /
        "mixed_float16" (float32 weights; the hidden layers' matmuls and activations
        in 16 bits, the head in float32). The weights are the same list of float32
        arrays whatever the policy, so an agent file does not depend on it.
    """
    compute = keras.DTypePolicy(policy).compute_dtype
    inputs = keras.Input(shape=tuple(obs_shape), dtype="int8", name="planes")
    x = keras.layers.Lambda(lambda t: tf.cast(t, compute), name="to_float", dtype=policy)(inputs)
    for i, filters in enumerate(config.conv_filters):
        x = keras.layers.Conv2D(
            filters, 3, padding="same", activation="relu", name=f"conv{i}", dtype=policy
        )(x)
    x = keras.layers.Flatten(name="flatten", dtype=policy)(x)
    for i, units in enumerate(config.hidden_units):
        x = keras.layers.Dense(units, activation="relu", name=f"dense{i}", dtype=policy)(x)
    # The head computes in float32 (a small matmul): values a 16-bit output would round
    # to about 2-3 digits decide the greedy move and the TD target.
    if config.dueling:
        value = keras.layers.Dense(1, name="value", dtype="float32")(x)
        advantage = keras.layers.Dense(num_actions, name="advantage", dtype="float32")(x)
        q = keras.layers.Lambda(
            lambda va: va[0] + va[1] - tf.reduce_mean(va[1], axis=-1, keepdims=True),
            name="dueling",
            dtype="float32",
        )([value, advantage])
    else:
        q = keras.layers.Dense(num_actions, name="q_values", dtype="float32")(x)
    if config.policy_head:
        # Made last, so its kernel and bias are the last two weights: an agent file keeps
        # them apart from the Q-network's (`boardq.players.agentfile.export_agent`).
        logits = keras.layers.Dense(num_actions, name="policy", dtype="float32")(x)
        q = keras.layers.Concatenate(name="heads", dtype="float32")([q, logits])
    return keras.Model(inputs, q, name=name)


def torso_features(model: keras.Model):
    """The symbolic output of a `build_q_network` model's torso: what its Q head reads.

    The last hidden layer's activations (the flattened planes without one), shared by
    every head; a model built on them with the same input shares the torso's weights.
    """
    head = "value" if any(layer.name == "value" for layer in model.layers) else "q_values"
    return model.get_layer(head).input


def layer_gemms(model: keras.Model, batch_size: int) -> list[tuple[str, int, int, int]]:
    """Each dense and convolution layer as the matrix product it computes, in order.

    (name, m, k, n): an [m, k] x [k, n] product, 2 m k n FLOPs (a convolution as its
    im2col product: m = batch x output cells, k = kernel cells x input channels).
    Biases and activations are not counted.
    """
    out = []
    for layer in model.layers:
        if isinstance(layer, keras.layers.Dense):
            fan_in, units = layer.kernel.shape
            out.append((layer.name, batch_size, int(fan_in), int(units)))
        elif isinstance(layer, keras.layers.Conv2D):
            kh, kw, c_in, c_out = layer.kernel.shape
            _, h, w, _ = layer.output.shape
            out.append((layer.name, batch_size * h * w, int(kh * kw * c_in), int(c_out)))
    return out


def train_step_flops(model: keras.Model, batch_size: int) -> int:
    """FLOPs of one Double DQN train step of `batch_size` (`boardq.dqn.losses.td_loss`).

    Three forward passes (the online network at s and s', the target at s') and the
    backward pass of the first: every layer's weight gradient, and every layer's
    input gradient but the first's (the planes need none), each as many FLOPs as the
    layer's forward pass.
    """
    flops = [2 * m * k * n for _, m, k, n in layer_gemms(model, batch_size)]
    forward = sum(flops)
    return 3 * forward + 2 * forward - flops[0]


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
        return tuple(tf.constant(a) for a in self.arrays_of(model))

    def arrays_of(self, model: keras.Model | None = None) -> tuple[np.ndarray, ...]:
        """Copies of the current weights as numpy arrays, in the same order."""
        model = model or self._model
        return tuple(np.array(v.numpy()) for v in model.weights)

    def __call__(self, obs, weights: Sequence[tf.Tensor]) -> tf.Tensor:
        return self._forward(obs, list(weights))

    def warm_up(self, weights: Sequence[tf.Tensor]) -> None:
        """Traces the forward pass (call on the main thread)."""
        self._forward.get_concrete_function()
        shape = [1, *self._model.input_shape[1:]]
        self(tf.zeros(shape, tf.int8), weights)
