"""The numpy forward pass against the Keras network it mirrors, for every network shape."""

import sys

import numpy as np
import pytest

from boardq.dqn.numpy_net import NumpyQNetwork, limit_blas_threads, resolve_actor_inference
from boardq.settings import NetworkConfig

NETWORKS = {
    "mlp": NetworkConfig(hidden_units=(32, 16)),
    "conv": NetworkConfig(conv_filters=(8, 4), hidden_units=(16,)),
    "dueling": NetworkConfig(hidden_units=(16,), dueling=True),
    "conv-dueling": NetworkConfig(conv_filters=(6,), hidden_units=(12, 8), dueling=True),
    "no-hidden": NetworkConfig(hidden_units=()),
}


def _random_weights(model, rng):
    # Keras starts biases at zero: random ones check that every bias is added where it belongs.
    model.set_weights([rng.normal(0, 0.3, w.shape).astype(np.float32) for w in model.weights])


@pytest.mark.parametrize("name", sorted(NETWORKS))
def test_numpy_q_values_equal_the_keras_network(name):
    from boardq.dqn.networks import QFunction, build_q_network

    rng = np.random.default_rng(7)
    obs_shape, actions = (5, 4, 3), 6
    config = NETWORKS[name]
    model = build_q_network(obs_shape, actions, config)
    _random_weights(model, rng)
    q_function = QFunction(model)
    weights = q_function.weights_of(model)
    obs = rng.integers(-1, 2, (9, *obs_shape)).astype(np.int8)

    expected = q_function(obs, weights).numpy()
    net = NumpyQNetwork(obs_shape, actions, config)
    got = net(obs, q_function.arrays_of(model))

    assert got.dtype == np.float32 and got.shape == (9, actions)
    # float32 sums in another order: a few units in the last place of values of order 1.
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


def test_a_convolution_sees_each_neighbour_where_keras_does():
    # One filter that reads only the cell above-left (kernel position [0, 0]): the value
    # at (r, c) is the input at (r-1, c-1), zero on the top row and left column.
    net = NumpyQNetwork((3, 3, 1), 9, NetworkConfig(conv_filters=(1,), hidden_units=()))
    kernel = np.zeros((3, 3, 1, 1), np.float32)
    kernel[0, 0, 0, 0] = 1.0
    head = np.eye(9, dtype=np.float32)  # Q-values: the flattened feature map itself
    obs = np.arange(1, 10, dtype=np.int8).reshape(1, 3, 3, 1)
    q = net(obs, [kernel, np.zeros(1, np.float32), head, np.zeros(9, np.float32)])
    assert q.reshape(3, 3).tolist() == [[0, 0, 0], [0, 1, 2], [0, 4, 5]]


def test_the_wrong_number_of_weights_is_refused():
    net = NumpyQNetwork((3, 3, 2), 9, NetworkConfig(hidden_units=(4,)))
    with pytest.raises(ValueError, match="expected 4 weight arrays, got 2"):
        net(np.zeros((1, 3, 3, 2), np.int8), [np.zeros((18, 4)), np.zeros(4)])


@pytest.mark.parametrize(
    ("asked", "gpu", "chosen"),
    [
        ("auto", False, "numpy"),
        ("auto", True, "tensorflow"),
        ("numpy", True, "numpy"),
        ("tensorflow", False, "tensorflow"),
    ],
)
def test_auto_takes_numpy_beside_a_cpu_learner(asked, gpu, chosen):
    got, note = resolve_actor_inference(asked, NetworkConfig(), gpu)
    assert got == chosen and chosen in note


def test_an_unknown_inference_is_refused():
    with pytest.raises(ValueError, match="auto, numpy or tensorflow"):
        resolve_actor_inference("jax", NetworkConfig(), False)


def test_without_threadpoolctl_blas_threads_are_left_alone(monkeypatch):
    monkeypatch.setitem(sys.modules, "threadpoolctl", None)  # the import fails
    assert limit_blas_threads(1) is False
