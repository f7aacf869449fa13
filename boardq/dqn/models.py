"""What the learner is made of: its threads, its networks and optimizer, its precision.

Built once per run, on the main thread, before the first op: `configure_threads` sets
TensorFlow's compute threads, `learner_precision` resolves `--precision` on this
machine, `build_models` makes the online and target networks and Adam, and
`tensor_specs` gives the batch schema's tensor specs for the compiled step.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import keras
import tensorflow as tf

from boardq.config import TrainConfig
from boardq.dqn.chip import detect_chip
from boardq.dqn.networks import build_q_network, layer_gemms
from boardq.dqn.precision import FLOAT32, Precision, resolve_precision
from boardq.dqn.schema import SCHEMA, Column, column_shapes

if TYPE_CHECKING:
    from boardq.dqn.ownership_heads import OwnershipHeads

__all__ = ["build_models", "configure_threads", "learner_precision", "tensor_specs"]


def configure_threads(config: TrainConfig) -> bool:
    """Sets TensorFlow's compute (intra-op) threads before its first op.

    Inter-op parallelism is left alone: setting it to 1 can deadlock tf.data with
    tf.function. On a 2-core machine one compute thread leaves the other core to the
    actor threads and the input pipeline, and trains as fast as two threads that
    contend with them. Returns False where TensorFlow had already started (a second
    run in one process): the first run's setting then stays.
    """
    try:
        tf.config.threading.set_intra_op_parallelism_threads(config.resolved_intra_op_threads())
    except RuntimeError:
        return False
    return True


def tensor_specs(
    batch_dims: Sequence[int],
    obs_shape: Sequence[int],
    num_actions: int,
    columns: Sequence[Column] = SCHEMA,
) -> dict[str, tf.TensorSpec]:
    """Tensor specs of the batch schema (`transitions.SCHEMA`) with leading `batch_dims`.

    [B] for one batch, [K, B] for an element of K batches; `columns` a schema extended
    from `SCHEMA`.
    """
    return {
        name: tf.TensorSpec([*batch_dims, *shape], tf.as_dtype(dtype))
        for name, (shape, dtype) in column_shapes(obs_shape, num_actions, columns).items()
    }


def build_models(
    config: TrainConfig,
    obs_shape: Sequence[int],
    num_actions: int,
    precision: Precision | None = None,
    heads: OwnershipHeads | None = None,
) -> tuple[keras.Model, keras.Model, keras.optimizers.Optimizer]:
    """Online and target networks (same weights) and a built Adam optimizer.

    The networks compute in `precision` (default float32) with float32 weights; for
    float16 the optimizer scales the loss (`keras.optimizers.LossScaleOptimizer`).
    The optimizer is built before any restore, or a checkpoint's slots are silently
    dropped. `heads` (ownership targets) are put on the online network's torso and
    the optimizer is built over their variables too, after the online network's.
    """
    policy = precision.policy if precision is not None else "float32"
    keras.utils.set_random_seed(config.seed)
    online = build_q_network(obs_shape, num_actions, config.network, "online", policy)
    target = build_q_network(obs_shape, num_actions, config.network, "target", policy)
    target.set_weights(online.get_weights())
    optimizer = keras.optimizers.Adam(
        learning_rate=config.learning_rate, global_clipnorm=config.max_grad_norm
    )
    if precision is not None and precision.loss_scaling:
        optimizer = keras.optimizers.LossScaleOptimizer(optimizer)
    extra = heads.attach(online) if heads is not None else []
    optimizer.build([*online.trainable_variables, *extra])
    return online, target, optimizer


def learner_precision(config: TrainConfig, obs_shape: Sequence[int], num_actions: int) -> Precision:
    """The precision `config.precision` resolves to on this machine's learner device.

    `auto`'s probe on a CPU times the network's layers as matrix products at the run's
    batch size (call after `configure_threads`: it runs TensorFlow ops).
    """
    if config.precision == "float32":
        return FLOAT32
    probe_net = build_q_network(obs_shape, num_actions, config.network, "probe")
    shapes = [(m, k, n) for _, m, k, n in layer_gemms(probe_net, config.batch_size)]
    return resolve_precision(config.precision, detect_chip(), shapes)
