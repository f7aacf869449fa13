"""The loss the learner trains on is Double DQN, checked against a numpy reference.

The online and target networks are made to differ, so a target that the online
network evaluates, or a best move that the target network chooses, gives another
loss; discounts are non-zero and carry both negamax signs; some rows have no legal
next move (no bootstrap whatever the discount) and some ended (discount 0).
"""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

from boardq.dqn.learner import Learner
from boardq.dqn.losses import td_loss
from boardq.dqn.transitions import NStepBuilder, stack_transitions
from boardq_games import get_game

GAME = get_game("tictactoe")
BATCH = 32
HUBER_DELTA = 0.5


def _learner(**changes) -> Learner:
    cfg = GAME.preset.replace(
        batch_size=BATCH, hidden_units=(16,), huber_delta=HUBER_DELTA, **changes
    )
    learner = Learner(cfg, GAME.obs_shape, GAME.num_actions)
    rng = np.random.default_rng(1)
    # A target network far from the online one (it starts as a copy).
    learner.target.set_weights(
        [w + rng.normal(0.0, 0.5, w.shape).astype(w.dtype) for w in learner.online.get_weights()]
    )
    return learner


def _batch(seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    shape = (BATCH, *GAME.obs_shape)
    next_mask = rng.random((BATCH, GAME.num_actions)) < 0.5
    next_mask[:4] = False  # no legal next move: no bootstrap, whatever the discount
    discount = rng.choice(np.array([-0.9, 0.81, -0.729], np.float32), BATCH)
    discount[4:8] = 0.0  # the game ended
    return {
        "obs": rng.integers(0, 2, shape).astype(np.int8),
        "action": rng.integers(0, GAME.num_actions, BATCH).astype(np.int16),
        "reward": rng.uniform(-1, 1, BATCH).astype(np.float32),
        "discount": discount,
        "next_obs": rng.integers(0, 2, shape).astype(np.int8),
        "next_mask": next_mask,
    }


def _huber(error: np.ndarray) -> np.ndarray:
    small = np.minimum(np.abs(error), HUBER_DELTA)
    return 0.5 * small**2 + HUBER_DELTA * (np.abs(error) - small)


def _targets(batch, q_select: np.ndarray, q_value: np.ndarray, epsilon: float) -> np.ndarray:
    """y = r + d * v: the best legal move by `q_select`, valued by `q_value` (numpy)."""
    mask = batch["next_mask"]
    best = np.argmax(np.where(mask, q_select, -np.inf), axis=1)
    value = q_value[np.arange(BATCH), best]
    legal = mask.sum(axis=1)
    mean = (q_value * mask).sum(axis=1) / np.maximum(legal, 1)
    value = (1.0 - epsilon) * value + epsilon * mean
    value = np.where(legal > 0, value, 0.0)
    return batch["reward"] + batch["discount"] * value


def _reference_loss_and_gradients(learner, batch, y):
    """The mean Huber loss of y - Q_online(s, a) and its gradients, y held constant."""
    variables = learner.online.trainable_variables
    with tf.GradientTape() as tape:
        q = learner.online(tf.constant(batch["obs"]), training=True)
        taken = tf.gather(q, tf.constant(batch["action"], tf.int32), batch_dims=1)
        error = tf.constant(y, tf.float32) - taken
        small = tf.minimum(tf.abs(error), HUBER_DELTA)
        loss = tf.reduce_mean(0.5 * small**2 + HUBER_DELTA * (tf.abs(error) - small))
    grads = tape.gradient(loss, variables)
    return float(loss), [g.numpy() for g in grads]


@pytest.mark.parametrize(("epsilon", "splits"), [(0.0, 1), (0.2, 2)])
def test_the_learner_trains_on_the_double_dqn_loss(epsilon, splits):
    learner = _learner(bootstrap_epsilon=epsilon, batch_splits=splits, learning_rate=1e-3)
    batch = _batch()
    q_now = learner.online(batch["obs"]).numpy()
    q_next_online = learner.online(batch["next_obs"]).numpy()
    q_next_target = learner.target(batch["next_obs"]).numpy()
    taken = q_now[np.arange(BATCH), batch["action"]]
    y = _targets(batch, q_next_online, q_next_target, epsilon)
    expected = float(np.mean(_huber(y - taken)))
    # The reference is not blind: choosing or valuing with the other network, or
    # bootstrapping the rows with no legal move, each gives a loss far from it.
    for other in (
        _targets(batch, q_next_online, q_next_online, epsilon),
        _targets(batch, q_next_target, q_next_target, epsilon),
        _targets(batch, q_next_target, q_next_online, epsilon),
        _targets(batch, q_next_online, q_next_target, epsilon)
        + batch["discount"] * (batch["next_mask"].sum(axis=1) == 0) * q_next_target[:, 0],
    ):
        assert abs(float(np.mean(_huber(other - taken))) - expected) > 1e-3
    ref_loss, ref_grads = _reference_loss_and_gradients(learner, batch, y)
    assert ref_loss == pytest.approx(expected, rel=1e-5)
    before = [v.numpy() for v in learner.online.trainable_variables]

    metrics = learner.train_step({k: tf.constant(v) for k, v in batch.items()})

    assert float(metrics["loss"]) == pytest.approx(expected, rel=1e-5)
    norm = np.sqrt(sum(float(np.sum(g**2)) for g in ref_grads))
    assert float(metrics["grad_norm"]) == pytest.approx(norm, rel=1e-4)
    # Adam's first step moves each weight by about the learning rate against the sign
    # of its gradient: the step went down the reference loss, weight by weight.
    after = [v.numpy() for v in learner.online.trainable_variables]
    moved = 0
    for w0, w1, g in zip(before, after, ref_grads, strict=True):
        clear = np.abs(g) > 1e-4
        np.testing.assert_array_equal(np.sign(w0 - w1)[clear], np.sign(g)[clear])
        moved += int(clear.sum())
    assert moved > 100


def test_td_loss_assumes_a_greedy_next_player_unless_told():
    learner = _learner()
    batch = _batch(seed=3)
    taken = learner.online(batch["obs"]).numpy()[np.arange(BATCH), batch["action"]]
    q_next = learner.online(batch["next_obs"]).numpy(), learner.target(batch["next_obs"]).numpy()
    tensors = {k: tf.constant(v) for k, v in batch.items()}
    loss, _, errors = td_loss(learner.online, learner.target, tensors, HUBER_DELTA)
    y = _targets(batch, *q_next, epsilon=0.0)
    np.testing.assert_allclose(errors.numpy(), y - taken, rtol=1e-5, atol=1e-6)
    assert float(loss) == pytest.approx(float(np.mean(_huber(y - taken))), rel=1e-5)


def test_a_position_lost_to_the_opponents_next_move_is_learned_as_lost():
    """The negamax sign through the real bookkeeping and train step.

    Player 1 plays move 0 from position A. From the position B that follows, player
    2 wins with move 4 and draws with move 8 (its only legal moves). So Q(B, 4) = +1
    and Q(B, 8) = 0 for player 2, and Q(A, 0) = -gamma: A's value is the opponent's
    best value at B, with its sign flipped.
    """
    gamma = 0.9
    a = np.zeros(GAME.obs_shape, np.int8)
    b = a.copy()
    b[0, 0, 1] = 1
    mask_b = np.zeros(GAME.num_actions, bool)
    mask_b[[4, 8]] = True
    rows = []
    for reply, reward in ((4, 1.0), (8, 0.0)):
        builder = NStepBuilder(1, gamma, GAME.obs_shape, GAME.num_actions)
        rows += builder.add(a, 0, 0.0, b, mask_b, done=False)
        rows += builder.add(b, reply, reward, None, None, done=True)
    chunk = stack_transitions(rows * (BATCH // len(rows)))
    learner = Learner(
        GAME.preset.replace(
            batch_size=BATCH, hidden_units=(16,), learning_rate=1e-2, tau=0.5, bootstrap_epsilon=0.0
        ),
        GAME.obs_shape,
        GAME.num_actions,
    )
    batch = {k: tf.constant(v) for k, v in chunk.items()}
    for _ in range(300):
        learner.train_step(batch)
    q = learner.online(np.stack([a, b])).numpy()
    assert q[1, 4] == pytest.approx(1.0, abs=0.05)
    assert q[1, 8] == pytest.approx(0.0, abs=0.05)
    assert q[0, 0] == pytest.approx(-gamma, abs=0.05)
