"""The policy head: its target pi' and loss by hand, sampling from pi', the two-headed
network in Keras and numpy, and the learner's loss with it.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import tensorflow as tf

from boardq.config import NetworkConfig
from boardq.dqn import sampling
from boardq.dqn.learner import Learner
from boardq.dqn.losses import td_loss
from boardq.dqn.networks import build_q_network
from boardq.dqn.numpy_net import NumpyQNetwork
from boardq.dqn.policy_head import (
    make_loss,
    policy_cross_entropy,
    policy_entropy,
    regularized_policy,
    td_policy_loss,
)
from boardq_games import get_game

SQRT2 = math.sqrt(2.0)


def _tf_pi(q, logits, mask, alpha, beta):
    return regularized_policy(
        tf.constant(q, tf.float32), tf.constant(logits, tf.float32), tf.constant(mask), alpha, beta
    ).numpy()


def test_the_target_is_the_formula_on_a_known_q_and_prior():
    # alpha = beta = 1, Q = (ln 2, 0), prior uniform over the two legal moves:
    # (Q + log pi) / 2 = (0, -ln 2 / 2), so pi' = (1, 2^-1/2) / (1 + 2^-1/2) = (2 - sqrt 2,
    # sqrt 2 - 1). The third move is illegal: 0 whatever its Q and logit.
    q = [[math.log(2.0), 0.0, 9.0]]
    logits = [[3.0, 3.0, 50.0]]
    mask = [[True, True, False]]
    np.testing.assert_allclose(
        _tf_pi(q, logits, mask, 1.0, 1.0), [[2 - SQRT2, SQRT2 - 1, 0]], atol=1e-6
    )
    # beta 0: softmax(Q / alpha), the prior ignored; alpha ln 3 on one move: 3 to 1.
    q = [[0.5 * math.log(3.0), 0.0, 0.0]]
    got = _tf_pi(q, [[0.0, 7.0, 0.0]], [[True, True, False]], 0.5, 0.0)
    np.testing.assert_allclose(got, [[0.75, 0.25, 0.0]], atol=1e-6)
    # Q equal: pi' is the prior sharpened by beta / (alpha + beta) = 1/2: sqrt of (4:1) = 2:1.
    logits = [[math.log(4.0), 0.0, 0.0]]
    got = _tf_pi([[0.2, 0.2, 0.2]], logits, [[True, True, False]], 0.1, 0.1)
    np.testing.assert_allclose(got, [[2 / 3, 1 / 3, 0.0]], atol=1e-6)


def test_the_actors_pi_is_the_learners_pi():
    rng = np.random.default_rng(0)
    q, logits = rng.normal(size=(50, 7)), rng.normal(size=(50, 7)) * 3
    mask = rng.random((50, 7)) < 0.6
    mask[:, 0] = True
    got = sampling.regularized_policy(q, logits, mask, 0.03, 0.1)
    np.testing.assert_allclose(got, _tf_pi(q, logits, mask, 0.03, 0.1), atol=2e-5)
    np.testing.assert_allclose(got.sum(axis=1), 1.0, atol=1e-12)
    assert np.all(got[~mask] == 0.0)


def test_the_cross_entropy_by_hand_and_rows_without_a_move_left_out():
    logits = tf.constant([[1.0, 1.0, 30.0], [0.0, 0.0, 0.0]])
    target = tf.constant([[0.75, 0.25, 0.0], [0.5, 0.5, 0.0]])
    mask = tf.constant([[True, True, False], [False, False, False]])
    # The first row: pi = (1/2, 1/2) over its legal moves, -sum target log pi = ln 2.
    assert float(policy_cross_entropy(logits, target, mask)) == pytest.approx(math.log(2), 1e-6)
    # Its entropy: ln 2, the uniform policy's over two moves.
    assert float(policy_entropy(logits, mask)) == pytest.approx(math.log(2), 1e-6)


def test_sampling_follows_the_probabilities_and_plays_only_legal_moves():
    probs = np.array([[0.0, 0.5, 0.2, 0.0, 0.3], [0.9, 0.0, 0.0, 0.1, 0.0]])
    draws = 40_000
    moves = sampling.sample_moves(np.repeat(probs, draws, axis=0), np.random.default_rng(1))
    for row in range(2):
        counts = np.bincount(moves[row * draws : (row + 1) * draws], minlength=5) / draws
        # 4 standard deviations of a share over 40,000 draws is at most 0.01.
        np.testing.assert_allclose(counts, probs[row], atol=0.01)
        assert np.all(counts[probs[row] == 0] == 0)


def test_policy_sampling_draws_from_pi_prime_of_the_network_output():
    play = sampling.make_play(True, 3, alpha=1.0, beta=1.0)
    out = np.array([[math.log(2.0), 0.0, 9.0, 3.0, 3.0, 50.0]])  # Q then logits
    mask = np.array([[True, True, False]])
    q, logits = play.split(out)
    draws = 40_000
    moves = play.choose(
        np.repeat(q, draws, 0),
        np.repeat(logits, draws, 0),
        np.repeat(mask, draws, 0),
        1.0,
        np.random.default_rng(2),
    )
    counts = np.bincount(moves, minlength=3) / draws
    np.testing.assert_allclose(counts, [2 - SQRT2, SQRT2 - 1, 0.0], atol=0.01)
    assert isinstance(sampling.make_play(False, 3, 0.03, 0.1), sampling.EpsilonGreedy)


def test_the_two_headed_network_in_keras_and_numpy():
    config = NetworkConfig(hidden_units=(16,), dueling=True, policy_head=True)
    model = build_q_network((3, 3, 2), 9, config)
    assert model.output_shape == (None, 18)
    # The policy head's kernel and bias are the last two weights (agent files rely on it).
    assert [w.path for w in model.weights[-2:]] == ["policy/kernel", "policy/bias"]
    rng = np.random.default_rng(3)
    weights = [rng.normal(0, 0.5, w.shape).astype(np.float32) for w in model.weights]
    model.set_weights(weights)
    planes = rng.integers(0, 2, (5, 3, 3, 2)).astype(np.int8)
    net = NumpyQNetwork((3, 3, 2), 9, config)
    assert net.num_weights == len(weights) == 8
    np.testing.assert_allclose(net(planes, weights), model(planes).numpy(), atol=1e-5)


GAME = get_game("tictactoe")
A = GAME.num_actions


def _stub(out_s, out_next):
    """A network that gives `out_s` at the batch's positions and `out_next` at the next."""

    def net(obs, training=False):
        first = tf.cast(obs[:, 0, 0, 0], tf.bool)[:, None]  # the marker below
        return tf.where(first, tf.constant(out_s), tf.constant(out_next))

    return net


def test_the_loss_is_the_q_loss_plus_the_cross_entropy_at_the_next_positions():
    rng = np.random.default_rng(4)
    b = 6
    obs = np.zeros((b, 3, 3, 2), np.int8)
    obs[:, 0, 0, 0] = 1  # marks the positions moved from; next positions have a 0 there
    batch = {
        "obs": obs,
        "action": rng.integers(0, A, b).astype(np.int16),
        "reward": rng.uniform(-1, 1, b).astype(np.float32),
        "discount": np.full(b, -0.9, np.float32),
        "next_obs": np.zeros((b, 3, 3, 2), np.int8),
        "next_mask": rng.random((b, A)) < 0.5,
    }
    batch["next_mask"][:, 4] = True
    batch["next_mask"][0] = False  # a finished game: no policy loss there
    outs = [rng.normal(size=(b, 2 * A)).astype(np.float32) for _ in range(4)]
    online, target = _stub(outs[0], outs[1]), _stub(outs[2], outs[3])
    tensors = {k: tf.constant(v) for k, v in batch.items()}
    loss, _, errors, extra = td_policy_loss(online, target, tensors, 1.0, 0.0, A, 0.03, 0.1)
    # The Q part: td_loss on the Q columns alone.
    q_only = [_stub(o_s[:, :A], o_n[:, :A]) for o_s, o_n in (outs[:2], outs[2:])]
    q_loss, _, q_errors = td_loss(*q_only, tensors, 1.0)
    np.testing.assert_allclose(errors.numpy(), q_errors.numpy(), atol=1e-6)
    # The policy part in numpy: pi' from the target's Q and logits at s', the online
    # network's logits there, rows 1..5.
    mask = batch["next_mask"][1:]
    pi = sampling.regularized_policy(outs[3][1:, :A], outs[3][1:, A:], mask, 0.03, 0.1)
    with np.errstate(divide="ignore"):  # log 0 on the illegal moves, left out below
        log_pi = np.log(sampling.policy_probabilities(outs[1][1:, A:], mask))
    ce = [-np.sum(p[m] * lp[m]) for p, lp, m in zip(pi, log_pi, mask, strict=True)]
    assert float(loss) == pytest.approx(float(q_loss) + np.mean(ce), rel=1e-5)
    assert float(extra["policy_loss"]) == pytest.approx(np.mean(ce), rel=1e-5)
    pi_online = sampling.policy_probabilities(outs[1][1:, A:], mask)
    entropy = [-np.sum(p[m] * np.log(p[m])) for p, m in zip(pi_online, mask, strict=True)]
    assert float(extra["policy_entropy"]) == pytest.approx(np.mean(entropy), rel=1e-5)


def test_the_learner_with_a_policy_head_trains_both_heads():
    cfg = GAME.preset.replace(batch_size=32, hidden_units=(16,), policy_head=True)
    learner = Learner(cfg, GAME.obs_shape, A)
    assert learner.online.output_shape == (None, 2 * A)
    rng = np.random.default_rng(5)
    batch = {
        "obs": rng.integers(0, 2, (32, *GAME.obs_shape)).astype(np.int8),
        "action": rng.integers(0, A, 32).astype(np.int16),
        "reward": rng.uniform(-1, 1, 32).astype(np.float32),
        "discount": np.full(32, -0.95, np.float32),
        "next_obs": rng.integers(0, 2, (32, *GAME.obs_shape)).astype(np.int8),
        "next_mask": rng.random((32, A)) < 0.7,
    }
    tensors = {k: tf.constant(v) for k, v in batch.items()}
    expected = make_loss(cfg, A)(learner.online, learner.target, tensors)[0]
    policy_before = learner.online.get_layer("policy").kernel.numpy().copy()
    metrics = learner.train_step(tensors)
    assert float(metrics["loss"]) == pytest.approx(float(expected), rel=1e-5)
    assert 0.0 < float(metrics["policy_entropy"]) <= math.log(A)
    assert 0.0 < float(metrics["policy_loss"]) < float(metrics["loss"])
    assert not np.allclose(learner.online.get_layer("policy").kernel.numpy(), policy_before)


def test_a_policy_head_needs_some_temperature():
    from boardq.config import ConfigError

    bad = GAME.preset.replace(policy_head=True, policy_alpha=0.0, policy_beta=0.0)
    with pytest.raises(ConfigError, match="policy_alpha"):
        bad.validate()
