"""Every precision and the split step against the float32 step, on hand-made batches."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

from boardq.dqn.builder import Builder
from boardq.dqn.chip import detect_chip
from boardq.dqn.learner import Learner
from boardq.dqn.networks import build_q_network, layer_gemms, train_step_flops
from boardq.dqn.precision import Precision, resolve_precision
from boardq.players.agent import Agent
from boardq.players.agentfile import export_agent
from boardq_games import get_game

GAME = get_game("connect_four")

VALUE_ATOL = 0.02
"""How far a mixed 16-bit network's Q-values may be from float32's: its hidden layers
multiply inputs rounded to 8 (bfloat16) or 11 (float16) significant bits, about 0.4% or
0.05% of each product, over two layers of 64 units, and chips differ in how they sum."""
KERNEL = {"rtol": 1e-5, "atol": 1e-6}
"""Two float32 computations of the same products (a compiled forward pass and Keras's
call) may sum them in another order: a few float32 units in the last place apart."""


def _needs_units(precision: str) -> None:
    """Skips where this chip has no units for `precision`: boardq trains in float32 there."""
    chip = detect_chip()
    if chip.units(precision) is None:
        pytest.skip(resolve_precision(precision, chip).note)


def _learner(precision: str = "float32", **changes) -> Learner:
    cfg = GAME.preset.replace(batch_size=64, hidden_units=(64, 64), **changes).validate()
    return Learner(cfg, GAME.obs_shape, GAME.num_actions, Precision(precision, "", {}))


def _batch(learner: Learner, seed: int = 0) -> dict[str, tf.Tensor]:
    """Planes, moves, rewards and masks as training sees them; every next mask has a move."""
    rng = np.random.default_rng(seed)
    b, a = learner.config.batch_size, GAME.num_actions
    mask = rng.random((b, a)) < 0.6
    mask[np.arange(b), rng.integers(0, a, b)] = True
    return {
        "obs": tf.constant(rng.integers(0, 2, (b, *GAME.obs_shape)).astype(np.int8)),
        "action": tf.constant(rng.integers(0, a, b).astype(np.int16)),
        "reward": tf.constant(rng.choice([-1.0, 0.0, 1.0], b).astype(np.float32)),
        "discount": tf.constant(rng.choice([0.0, -0.99], b).astype(np.float32)),
        "next_obs": tf.constant(rng.integers(0, 2, (b, *GAME.obs_shape)).astype(np.int8)),
        "next_mask": tf.constant(mask),
    }


def _same_weights(reference: Learner, other: Learner) -> None:
    other.online.set_weights(reference.online.get_weights())
    other.target.set_weights(reference.target.get_weights())


def _spread_head(learner: Learner) -> None:
    """Head biases 0.15 apart in both networks, so the greedy move is clear in every row."""
    order = np.random.default_rng(3).permutation(GAME.num_actions)
    for net in (learner.online, learner.target):
        head = net.get_layer("q_values")
        head.bias.assign((0.15 * order).astype(np.float32))


@pytest.mark.parametrize(("precision", "rtol"), [("bfloat16", 0.03), ("float16", 0.01)])
def test_a_16_bit_step_matches_the_float32_step(precision, rtol):
    # Without the units boardq never trains in this precision (it says so and trains in
    # float32), and TensorFlow's emulation of it is not what a run would compute.
    _needs_units(precision)
    reference, other = _learner("float32"), _learner(precision)
    _spread_head(reference)
    _same_weights(reference, other)
    batch = _batch(reference)
    # The same values before the step, and the same greedy moves wherever float32's best
    # move leads its second by more than the values may move (twice the tolerance) ...
    q32 = reference.online(batch["obs"]).numpy()
    q16 = other.online(batch["obs"]).numpy()
    assert q16.dtype == np.float32
    np.testing.assert_allclose(q16, q32, atol=VALUE_ATOL)
    second, best = np.sort(q32, axis=1)[:, -2:].T
    clear = best - second > 2 * VALUE_ATOL
    assert clear.mean() > 0.5  # the spread head makes most rows clear
    np.testing.assert_array_equal(q16.argmax(1)[clear], q32.argmax(1)[clear])
    # The actors act in float32 whatever the learner computes in.
    snap32, snap16 = reference.make_snapshot(), other.make_snapshot()
    acted32 = reference.q_function(batch["obs"], snap32.weights).numpy()
    acted16 = other.q_function(batch["obs"], snap16.weights).numpy()
    np.testing.assert_array_equal(acted16, acted32)
    np.testing.assert_allclose(acted32, q32, **KERNEL)
    # ... the same loss, values and gradient norm from the step ...
    m32 = {k: float(v) for k, v in reference.train_step(batch).items()}
    m16 = {k: float(v) for k, v in other.train_step(batch).items()}
    for key in ("loss", "td_abs", "grad_norm"):
        assert m16[key] == pytest.approx(m32[key], rel=rtol), key
    assert m16["q_mean"] == pytest.approx(m32["q_mean"], abs=VALUE_ATOL)
    # ... and the float32 master weights moved alike (Adam's first step is about
    # learning_rate per weight, so a sign that differs moves it 2 learning rates apart).
    lr = reference.config.learning_rate
    for w32, w16 in zip(reference.online.get_weights(), other.online.get_weights(), strict=True):
        assert w16.dtype == np.float32
        assert np.abs(w16 - w32).max() <= 2 * lr + 1e-6
        assert np.mean(np.abs(w16 - w32) < 0.1 * lr) > 0.9


def test_float16_scales_its_loss_and_reports_the_true_gradient_norm():
    learner = _learner("float16")
    scale = float(learner.optimizer.dynamic_scale.numpy())
    assert scale > 1
    reference = _learner("float32")
    _same_weights(learner, reference)
    batch = _batch(learner, seed=5)
    loss, _, _, grads, _ = learner._gradients(batch)
    _, _, _, grads32, _ = reference._gradients(batch)
    # The gradients come out scaled; the step reports (and applies) them unscaled.
    norm = float(tf.linalg.global_norm(grads)) / scale
    assert norm == pytest.approx(float(tf.linalg.global_norm(grads32)), rel=0.01)
    assert float(learner.train_step(batch)["grad_norm"]) == pytest.approx(norm, rel=1e-3)


@pytest.mark.parametrize("splits", [2, 4])
def test_a_split_step_equals_the_whole_step(splits):
    whole, split = _learner(), _learner(batch_splits=splits)
    _same_weights(whole, split)
    batch = _batch(whole, seed=1)
    loss1, taken1, error1, grads1, _ = whole._gradients(batch)
    loss2, taken2, error2, grads2, _ = split._gradients(batch)
    assert float(loss2) == pytest.approx(float(loss1), rel=1e-5)
    np.testing.assert_allclose(taken2.numpy(), taken1.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(error2.numpy(), error1.numpy(), rtol=1e-5, atol=1e-6)
    for g1, g2 in zip(grads1, grads2, strict=True):
        np.testing.assert_allclose(g2.numpy(), g1.numpy(), rtol=1e-4, atol=1e-6)
    for _ in range(3):
        m1, m2 = whole.train_step(batch), split.train_step(batch)
    assert float(m2["loss"]) == pytest.approx(float(m1["loss"]), rel=1e-4)
    for w1, w2 in zip(whole.online.get_weights(), split.online.get_weights(), strict=True):
        np.testing.assert_allclose(w2, w1, rtol=1e-4, atol=1e-5)


def test_batch_splits_must_divide_the_batch():
    with pytest.raises(ValueError, match=r"batch_splits \(3\) must divide batch_size \(64\)"):
        _learner(batch_splits=3)


def test_the_agent_file_is_float32_whatever_the_precision(tmp_path):
    learner = _learner("bfloat16")
    weights = learner.online.get_weights()
    assert all(w.dtype == np.float32 for w in weights)
    path = export_agent(
        tmp_path / "agent.npz",
        GAME.name,
        learner.config.network,
        GAME.obs_shape,
        GAME.num_actions,
        weights,
    )
    agent = Agent.load(path, symmetric=False)
    assert all(w.dtype == np.float32 for w in agent.weights())
    obs = _batch(learner)["obs"].numpy()
    np.testing.assert_allclose(agent.q_batch(obs), learner.online(obs).numpy(), atol=VALUE_ATOL)


@pytest.mark.parametrize("precision", ["float32", "bfloat16"])
def test_the_builder_resolves_the_precision_setting(precision):
    cfg = get_game("tictactoe").preset.replace(precision=precision, budget_steps=1)
    learner = Builder(cfg.validate(), get_game("tictactoe")).make_learner()
    assert learner.precision.name == precision
    assert learner.online.get_layer("dense0").compute_dtype == precision


def test_a_mixed_network_computes_its_hidden_layers_in_16_bits_and_its_head_in_float32():
    net = build_q_network(
        GAME.obs_shape, GAME.num_actions, GAME.preset.network, policy="mixed_bfloat16"
    )
    assert net.get_layer("dense0").compute_dtype == "bfloat16"
    assert net.get_layer("q_values").compute_dtype == "float32"
    assert all(w.dtype == "float32" for w in net.weights)


def test_the_train_step_flops_follow_the_layers():
    net = build_q_network(GAME.obs_shape, GAME.num_actions, GAME.preset.network)
    gemms = layer_gemms(net, 256)
    assert gemms == [("dense0", 256, 84, 256), ("dense1", 256, 256, 256), ("q_values", 256, 256, 7)]
    forward = sum(2 * m * k * n for _, m, k, n in gemms)
    # Three forward passes and a backward pass with no input gradient at the first layer.
    assert train_step_flops(net, 256) == 5 * forward - 2 * 256 * 84 * 256
