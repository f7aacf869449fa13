"""The two entry points of an exported agent, as `tf.function`s (`boardq.players.export`).

They compute what `Agent.q_batch` computes, in float32, with the network's weights as
constants of the graph; an agent that plays `symmetric` averages its values over the
board's symmetries inside the graph too (one batched pass over every image):

- `serving_default`: `planes` (int8 [B, H, W, C], the observation) -> `q_values`
  (float32 [B, A], one value per action from the player to move's view, illegal moves
  not masked);
- `greedy`: `planes` and `action_mask` (int8 [B, A], nonzero where legal) ->
  `q_values` (as above) and `action` (int64 [B], the legal action of highest value;
  ties go to the lowest index; 0 for a position without a legal move).
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["serving_functions"]

_FLOAT_MIN = np.finfo(np.float32).min  # an illegal move's masked value (finite: see greedy)


def _network(agent):
    """The agent's network, rebuilt from its file's header with its weights."""
    from boardq.config import NetworkConfig
    from boardq.dqn.networks import build_q_network
    from boardq.players.agentfile import read_header

    header = read_header(agent.path)
    net = header["network"]
    config = NetworkConfig(
        conv_filters=tuple(net["conv_filters"]),
        hidden_units=tuple(net["hidden_units"]),
        dueling=bool(net["dueling"]),
    )
    model = build_q_network(header["obs_shape"], header["num_actions"], config)
    model.set_weights(agent.weights())
    return model


def serving_functions(agent, tables: tuple[np.ndarray, np.ndarray] | None) -> dict[str, Any]:
    """The two entry points as `tf.function`s with input signatures (see the module).

    Args:
      agent: a loaded `boardq.players.agent.Agent` (with its `path`).
      tables: where a symmetric agent's images take their cells and actions from
        (`PermutationAugment`'s `plane_index` and `action_map`), or None: the network
        alone.
    """
    import tensorflow as tf

    model = _network(agent)
    weights = model.get_weights()
    n_trainable = len(model.trainable_weights)
    obs_shape = [int(d) for d in model.input_shape[1:]]
    num_actions = int(model.output_shape[-1])

    def network(planes):
        # Made inside the trace, so the weights are constants of the graph, not captures.
        consts = [tf.constant(w) for w in weights]
        trainable, fixed = consts[:n_trainable], consts[n_trainable:]
        q, _ = model.stateless_call(trainable, fixed, planes, training=False)
        return q

    def values(planes):
        if tables is None:
            return network(planes)
        plane_index, action_map = tables
        flat = tf.reshape(planes, [-1, int(np.prod(obs_shape))])
        # Image k's cell j holds the position's cell plane_index[k, j], as Agent.q_batch.
        images = [tf.reshape(tf.gather(flat, p, axis=1), [-1, *obs_shape]) for p in plane_index]
        q = tf.reshape(network(tf.concat(images, axis=0)), [len(images), -1, num_actions])
        # Action a of the position is action action_map[k, a] of image k.
        mapped = [tf.gather(q[k], action_map[k], axis=1) for k in range(len(images))]
        return tf.reduce_mean(tf.stack(mapped), axis=0)

    planes_spec = tf.TensorSpec([None, *obs_shape], tf.int8, name="planes")
    mask_spec = tf.TensorSpec([None, num_actions], tf.int8, name="action_mask")

    @tf.function(input_signature=[planes_spec])
    def q_values(planes):
        return {"q_values": values(planes)}

    @tf.function(input_signature=[planes_spec, mask_spec])
    def greedy(planes, action_mask):
        q = values(planes)
        # A finite floor rather than -inf: a converter may select by arithmetic, and
        # -inf * 0 would be NaN.
        legal = tf.cast(action_mask, tf.float32) > 0.0
        masked = tf.where(legal, q, tf.constant(_FLOAT_MIN))
        return {"q_values": q, "action": tf.argmax(masked, axis=-1, output_type=tf.int64)}

    return {"serving_default": q_values, "greedy": greedy}
