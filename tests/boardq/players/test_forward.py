"""An agent's forward pass in numpy or through TensorFlow (`boardq.players.forward`).

The two compute the same values from the same weights (float32 sums in another order:
within 1e-4 of values in [-1, 1]); "auto" is numpy on a machine without a GPU; a bad
choice is refused.
"""

from __future__ import annotations

import numpy as np
import pytest

from boardq import Agent
from boardq.config import NetworkConfig
from boardq.dqn.networks import build_q_network
from boardq.players.agentfile import export_agent
from boardq.players.forward import forward_pass, resolve_inference
from boardq_games import get_game

SHAPES = [
    ("connect_four", NetworkConfig(hidden_units=(32, 16))),
    ("go", NetworkConfig(conv_filters=(8, 8), hidden_units=(16,))),
    ("othello", NetworkConfig(conv_filters=(4,), hidden_units=(8,), dueling=True)),
]


def random_network(game, network: NetworkConfig, seed: int = 0):
    """A network of that shape with random weights, values spread over (-1, 1)."""
    model = build_q_network(game.obs_shape, game.num_actions, network)
    rng = np.random.default_rng(seed)
    model.set_weights([rng.normal(0, 0.3, w.shape).astype(np.float32) for w in model.weights])
    return model


def random_planes(game, count: int, seed: int = 1) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 2, (count, *game.obs_shape)).astype(np.int8)


@pytest.mark.parametrize(("name", "network"), SHAPES, ids=[s[0] for s in SHAPES])
def test_numpy_and_tensorflow_give_the_same_values(name, network):
    game = get_game(name)
    model = random_network(game, network)
    numpy_q, chosen = forward_pass(model, network, "numpy")
    tf_q, other = forward_pass(model, network, "tensorflow")
    assert (chosen, other) == ("numpy", "tensorflow")
    for batch in (1, 15, 64):
        planes = random_planes(game, batch)
        a, b = numpy_q(planes), tf_q(planes)
        assert a.shape == b.shape == (batch, game.num_actions) and a.dtype == np.float32
        assert np.abs(b).max() > 0.1  # not a network whose values are all near zero
        np.testing.assert_allclose(a, b, atol=1e-4)


def test_the_pass_keeps_the_weights_it_was_made_with():
    game = get_game("connect_four")
    network = NetworkConfig(hidden_units=(8,))
    model = random_network(game, network)
    planes = random_planes(game, 4)
    for inference in ("numpy", "tensorflow"):
        q, _ = forward_pass(model, network, inference)
        before = q(planes)
        model.set_weights([np.zeros_like(w) for w in model.get_weights()])
        np.testing.assert_array_equal(q(planes), before)
        model = random_network(game, network)


def test_auto_is_numpy_without_a_gpu():
    import tensorflow as tf

    if tf.config.list_physical_devices("GPU"):
        pytest.skip("a GPU is visible: auto is tensorflow there")
    assert resolve_inference("auto") == "numpy"
    assert resolve_inference("tensorflow") == "tensorflow"


def test_bad_choices_are_refused():
    game = get_game("connect_four")
    model = random_network(game, NetworkConfig(hidden_units=(8,)))
    with pytest.raises(ValueError, match="inference must be one of auto, numpy, tensorflow"):
        resolve_inference("cuda")
    with pytest.raises(ValueError, match="numpy inference needs the network's shape"):
        forward_pass(model, None, "numpy")
    # Without the shape, auto falls back on TensorFlow, which needs none.
    assert forward_pass(model, None, "auto")[1] == "tensorflow"


def test_an_agent_plays_the_same_moves_with_either(tmp_path):
    game = get_game("go")
    network = NetworkConfig(conv_filters=(8,), hidden_units=(16,))
    model = random_network(game, network, seed=3)
    path = export_agent(
        tmp_path / "go.npz", "go", network, game.obs_shape, game.num_actions, model.get_weights()
    )
    agents = {k: Agent.load(path, inference=k) for k in ("numpy", "tensorflow")}
    assert {k: a.inference for k, a in agents.items()} == {
        "numpy": "numpy",
        "tensorflow": "tensorflow",
    }
    env = game.make_env()
    env.reset(seed=0)
    for _ in range(6):
        observation = env.observe(env.agent_selection)
        values = [a.q_values(observation) for a in agents.values()]
        np.testing.assert_allclose(values[0], values[1], atol=1e-4)
        moves = {a.act(observation) for a in agents.values()}
        assert len(moves) == 1
        env.step(moves.pop())
