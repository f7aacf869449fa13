"""The learner: the only code that changes weights."""

from __future__ import annotations

import math
from collections.abc import Sequence

import tensorflow as tf

from boardq.config import TrainConfig
from boardq.dqn.models import build_models, tensor_specs
from boardq.dqn.networks import QFunction, build_q_network
from boardq.dqn.ownership import batch_columns
from boardq.dqn.ownership_heads import make_heads
from boardq.dqn.policy_head import make_loss
from boardq.dqn.precision import FLOAT32, Precision
from boardq.dqn.snapshot import Snapshot, SnapshotBox, SnapshotPool

__all__ = ["Learner"]


class Learner:
    """Online and target networks, the optimizer and the compiled train step.

    `train_step` applies Adam through `optimizer.apply_gradients` (the single write
    path), then moves the target towards the online network by `tau` (or copies it
    every `hard_update_every_steps`). `publish` hands the actors an immutable copy.
    Build it on the main thread: it builds the models and the optimizer and traces
    the compiled functions.

    Args:
      config: the run's settings.
      obs_shape: the planes' shape.
      num_actions: A.
      precision: what the networks compute in (default float32; see
        `learner_precision`). The weights, the optimizer's state and the loss are
        float32 whatever it is.
      pool: where each published snapshot is offered (the opponent pool), or None.
    """

    def __init__(
        self,
        config: TrainConfig,
        obs_shape: Sequence[int],
        num_actions: int,
        precision: Precision | None = None,
        pool: SnapshotPool | None = None,
    ):
        self.config = config
        self.obs_shape = tuple(obs_shape)
        self.num_actions = num_actions
        self.precision = precision or FLOAT32
        # The ownership and score heads (`ownership_targets`), on the online network's
        # torso, or None.
        self.heads = make_heads(config, obs_shape)
        self.online, self.target, self.optimizer = build_models(
            config, obs_shape, num_actions, self.precision, self.heads
        )
        self.trainable = list(self.online.trainable_variables)
        """What the gradients change: the online network's variables, then the heads'."""
        if self.heads is not None:
            self.trainable += self.heads.trainable_variables
        self.step = tf.Variable(0, dtype=tf.int64, name="train_step", trainable=False)
        # The actors act in float32 whatever the learner computes in, as agent files
        # play: a float32 copy of the network's layers reads the snapshots.
        acting = self.online
        if self.precision.name != "float32":
            acting = build_q_network(obs_shape, num_actions, config.network, "acting")
        self.q_function = QFunction(acting)
        columns = batch_columns(config.ownership_targets)
        self.spec = tensor_specs([config.batch_size], obs_shape, num_actions, columns)
        self._train_step = tf.function(
            self._train_step_impl,
            input_signature=[self.spec],
            jit_compile=config.jit_compile or None,
        )
        # What `train` takes from its iterator: `steps_per_call` batches, stacked.
        self.element_spec = tensor_specs(
            [config.steps_per_call, config.batch_size], obs_shape, num_actions, columns
        )
        self._steps_spec = tf.TensorSpec([], tf.int32)
        self._train_from = tf.function(self._train_from_impl)
        self._train_on = tf.function(
            self._train_on_impl, input_signature=[self.element_spec, self._steps_spec]
        )
        self._step_counts: dict[int, tf.Tensor] = {}
        self.snapshots = SnapshotBox(self.make_snapshot())
        self.pool = pool  # past snapshots for the opponent pool, or None
        # Double DQN's loss, or with a policy head that plus the policy's (one choice);
        # with ownership targets, plus the heads' losses.
        self._loss = make_loss(config, num_actions)
        if self.heads is not None:
            self._loss = self.heads.loss(self._loss)

    # -- the write path -------------------------------------------------------
    def _gradients(self, batch):
        """A batch's loss, Q of the moves taken, TD errors, gradients and loss metrics.

        With `batch_splits` S > 1 the batch is cut into S equal parts whose losses and
        gradients are independent subgraphs, which TensorFlow runs side by side on its
        threads; the mean of the parts' gradients is the gradient of the batch's mean
        loss. The gradients are of the scaled loss (float16); `apply_gradients`
        unscales them.
        """
        splits = self.config.batch_splits
        if splits == 1:
            columns = {key: [value] for key, value in batch.items()}
        else:
            columns = {key: tf.split(value, splits) for key, value in batch.items()}
        variables = self.trainable
        losses, taken, errors, extras, grads = [], [], [], [], None
        for i in range(splits):
            with tf.GradientTape() as tape:
                loss, q_taken, td_error, extra = self._loss(
                    self.online, self.target, {key: parts[i] for key, parts in columns.items()}
                )
                scaled = self.optimizer.scale_loss(loss)  # float16: times the loss scale
            part = tape.gradient(scaled, variables)
            grads = part if grads is None else [a + b for a, b in zip(grads, part, strict=True)]
            losses.append(loss)
            taken.append(q_taken)
            errors.append(td_error)
            extras.append(extra)
        if splits == 1:
            return loss, q_taken, td_error, grads, extra
        return (
            tf.add_n(losses) / splits,
            tf.concat(taken, 0),
            tf.concat(errors, 0),
            [g / splits for g in grads],
            {k: tf.add_n([e[k] for e in extras]) / splits for k in extras[0]},
        )

    def _train_step_impl(self, batch):
        loss, q_taken, td_error, grads, extra = self._gradients(batch)
        variables = self.trainable
        grad_norm = tf.linalg.global_norm(grads)
        if self.precision.loss_scaling:  # the true gradient's norm; apply_gradients unscales
            grad_norm = grad_norm / tf.cast(self.optimizer.dynamic_scale, grad_norm.dtype)
        self.optimizer.apply_gradients(zip(grads, variables, strict=True))
        self.step.assign_add(1)
        self._update_target()
        return {
            "loss": loss,
            "q_mean": tf.reduce_mean(q_taken),
            "td_abs": tf.reduce_mean(tf.abs(td_error)),
            "grad_norm": grad_norm,
            **extra,  # the loss's own metrics (a policy head's, the ownership heads')
        }

    def _update_target(self) -> None:
        cfg = self.config
        pairs = list(zip(self.target.weights, self.online.weights, strict=True))
        if cfg.hard_update_every_steps:
            copy = tf.equal(self.step % cfg.hard_update_every_steps, 0)
            for t, o in pairs:
                t.assign(tf.where(copy, o, t))
        else:
            for t, o in pairs:
                t.assign(cfg.tau * o + (1.0 - cfg.tau) * t)

    def train_step(self, batch) -> dict[str, tf.Tensor]:
        """One update on one batch; returns scalar metrics as tensors."""
        return self._train_step(batch)

    # -- several steps per compiled call ---------------------------------------
    def _steps_loop(self, fetch, steps):
        """Takes one element of K batches from `fetch()`, then trains on the first `steps`.

        Returns the metrics averaged over the steps and `data_wait_sec`, the time
        spent in `fetch()` (waiting for the input pipeline), measured with
        `tf.timestamp` around it. The control dependencies keep the whole fetch
        between the two clock reads and every step after them, so the wait is not
        overlapped with training.
        """
        t0 = tf.timestamp()
        with tf.control_dependencies([t0]):
            group = fetch()
        with tf.control_dependencies(tf.nest.flatten(group)):
            t1 = tf.timestamp()
        zero = tf.constant(0.0, tf.float32)
        names = ("loss", "q_mean", "td_abs", "grad_norm", *self._loss.metrics)
        sums = dict.fromkeys(names, zero)
        with tf.control_dependencies([t1]):
            for i in tf.range(steps):
                metrics = self._train_step({key: value[i] for key, value in group.items()})
                sums = {key: sums[key] + metrics[key] for key in sums}
        count = tf.cast(tf.maximum(steps, 1), tf.float32)
        out = {key: value / count for key, value in sums.items()}
        with tf.device("CPU:0"):  # read after every call: keep it off the GPU
            out["data_wait_sec"] = t1 - t0
        return out

    def _train_from_impl(self, iterator, steps):
        return self._steps_loop(lambda: next(iterator), steps)

    def _train_on_impl(self, group, steps):
        return self._steps_loop(lambda: group, steps)

    def _steps_tensor(self, steps: int | None) -> tf.Tensor:
        if steps is None:
            steps = self.config.steps_per_call
        if not 1 <= steps <= self.config.steps_per_call:
            raise ValueError(
                f"steps must be in 1..{self.config.steps_per_call} (steps_per_call), got {steps}"
            )
        count = self._step_counts.get(steps)
        if count is None:
            count = self._step_counts[steps] = tf.constant(steps, tf.int32)
        return count

    def train(self, iterator, steps: int | None = None) -> dict[str, tf.Tensor]:
        """Up to `steps_per_call` train steps in one compiled call.

        Takes one element of `element_spec` (K = `steps_per_call` batches) from the
        iterator inside the graph, so the input pipeline costs the learner no Python,
        and trains on its first `steps` batches (default all K; fewer only to stop
        at an exact step budget). Returns the metrics averaged over the steps and
        `data_wait_sec` (float64 seconds spent waiting for the element). Raises
        `tf.errors.OutOfRangeError` when the iterator ends, before any step.
        """
        return self._train_from(iterator, self._steps_tensor(steps))

    def train_on(self, group, steps: int | None = None) -> dict[str, tf.Tensor]:
        """Like `train` on a fixed element already on the device: no input pipeline."""
        return self._train_on(group, self._steps_tensor(steps))

    def anneal(self, progress: float) -> float:
        """Sets the learning rate for `progress` (0..1) through the budget; returns it.

        A half cosine from `learning_rate` down to `lr_final` times it; constant when
        `lr_final` is 1. The rate is a variable the compiled step reads, so this takes
        effect at the next call without retracing.
        """
        cfg = self.config
        share = cfg.lr_final + (1.0 - cfg.lr_final) * 0.5 * (
            1.0 + math.cos(math.pi * min(1.0, max(0.0, progress)))
        )
        rate = cfg.learning_rate * share
        self.optimizer.learning_rate.assign(rate)
        return rate

    # -- what the actors see --------------------------------------------------
    def make_snapshot(self) -> Snapshot:
        arrays = self.q_function.arrays_of(self.online)
        weights = tuple(tf.constant(a) for a in arrays)
        return Snapshot(int(self.step.numpy()), weights, arrays)

    def publish(self) -> int:
        """Publishes the current weights; returns their version (the train step).

        The opponent pool, if any, is offered the same snapshot.
        """
        snap = self.make_snapshot()
        self.snapshots.publish(snap)
        if self.pool is not None:
            self.pool.offer(snap)
        return snap.version

    def warm_up(self) -> None:
        """Traces the compiled functions training uses, with dummy data (main thread only).

        `train` is traced for an iterator of `element_spec`; any iterator with that
        element spec (such as `make_dataset`'s) uses this trace. `train_on`, which only
        the benchmark's ceiling uses, is traced where the benchmark first calls it.
        """
        self.q_function.warm_up(self.snapshots.get().weights)
        dummy = {k: tf.zeros(s.shape, s.dtype) for k, s in self.element_spec.items()}
        iterator = iter(tf.data.Dataset.from_tensors(dummy))
        self._train_from.get_concrete_function(iterator, self._steps_spec)

    def checkpoint_objects(self) -> dict:
        """What a checkpoint must hold to resume this learner exactly."""
        heads = self.heads.checkpoint_objects() if self.heads is not None else {}
        return {
            "online": self.online,
            "target": self.target,
            "optimizer": self.optimizer,
            "step": self.step,
            **heads,
        }
