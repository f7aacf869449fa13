"""The ownership and score heads (boardq/dqn/ownership_heads.py): their loss by hand, the
learner's weighted sum trained through the one write path, and the Q-network that
play, snapshots and agent files see unchanged."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

from boardq.dqn.learner import Learner
from boardq.dqn.ownership_heads import aux_losses
from boardq.dqn.policy_head import make_loss
from boardq.players.agentfile import q_arrays
from boardq_games import get_game

GO = get_game("go")
A = GO.num_actions


def test_the_heads_losses_by_hand():
    ownership = tf.constant([[0.5, -1.0, 0.0], [1.0, 1.0, 1.0]])
    score = tf.constant([0.2, -0.4])
    batch = {"ownership": tf.constant([[1, -1, 0], [-1, 1, 0]], tf.int8),
             "score": tf.constant([0.0, -0.5])}  # fmt: skip
    own, sc = aux_losses(ownership, score, batch)
    # 0.5 e^2 over the six points: 0.25^2... e = 0.5, 0, 0, 2, 0, 1.
    assert float(own) == pytest.approx(0.5 * (0.25 + 4 + 1) / 6)
    assert float(sc) == pytest.approx(0.5 * (0.04 + 0.01) / 2)


def _batch(n, seed=0):
    rng = np.random.default_rng(seed)
    return {
        "obs": rng.integers(0, 2, (n, *GO.obs_shape)).astype(np.int8),
        "action": rng.integers(0, A, n).astype(np.int16),
        "reward": rng.uniform(-1, 1, n).astype(np.float32),
        "discount": np.full(n, -0.95, np.float32),
        "next_obs": rng.integers(0, 2, (n, *GO.obs_shape)).astype(np.int8),
        "next_mask": rng.random((n, A)) < 0.7,
        "ownership": rng.integers(-1, 2, (n, 81)).astype(np.int8),
        "score": rng.uniform(-1, 1, n).astype(np.float32),
    }


@pytest.mark.parametrize("policy_head", [False, True])
def test_the_learner_trains_the_q_loss_plus_the_weighted_heads(policy_head):
    cfg = GO.preset.replace(
        batch_size=16, steps_per_call=2, conv_filters=(4,), hidden_units=(16,),
        policy_head=policy_head,
        ownership_targets=True, ownership_weight=1.5, score_weight=0.5,
    )  # fmt: skip
    learner = Learner(cfg, GO.obs_shape, A)
    plain = Learner(cfg.replace(ownership_targets=False), GO.obs_shape, A)
    # The Q-network the actors, agent files and play see is the one without the heads.
    assert [w.shape for w in learner.online.weights] == [w.shape for w in plain.online.weights]
    assert len(learner.online.weights) == q_arrays(cfg.network) + (2 if policy_head else 0)
    assert len(learner.make_snapshot().arrays) == len(plain.make_snapshot().arrays)
    assert {"ownership_head", "score_head"} <= set(learner.checkpoint_objects())
    assert "ownership_head" not in plain.checkpoint_objects()
    tensors = {k: tf.constant(v) for k, v in _batch(16).items()}
    q_loss = make_loss(cfg, A)(learner.online, learner.target, tensors)[0]
    _, ownership, score = learner.heads.model(tensors["obs"])
    own, sc = aux_losses(ownership, score[:, 0], tensors)
    heads_before = [v.numpy().copy() for v in learner.heads.trainable_variables]
    torso_before = learner.online.get_layer("conv0").kernel.numpy().copy()
    metrics = learner.train_step(tensors)
    expected = float(q_loss) + 1.5 * float(own) + 0.5 * float(sc)
    assert float(metrics["loss"]) == pytest.approx(expected, rel=1e-5)
    assert float(metrics["ownership_loss"]) == pytest.approx(float(own), rel=1e-5)
    assert float(metrics["score_loss"]) == pytest.approx(float(sc), rel=1e-5)
    for before, after in zip(heads_before, learner.heads.trainable_variables, strict=True):
        assert not np.allclose(before, after.numpy())  # apply_gradients wrote the heads
    assert not np.allclose(torso_before, learner.online.get_layer("conv0").kernel.numpy())
    # Several steps in one compiled call, with the heads' metrics averaged.
    group = {k: tf.stack([v, v]) for k, v in tensors.items()}
    assert {"ownership_loss", "score_loss"} <= set(learner.train_on(group, 2))
