"""The Q-network and the compiled forward pass over explicit snapshot weights."""

from __future__ import annotations

import numpy as np
import pytest

from boardq.config import NetworkConfig
from boardq.dqn.networks import QFunction, build_q_network, layer_gemms


@pytest.mark.parametrize(
    "config",
    [NetworkConfig(hidden_units=(16,)), NetworkConfig(conv_filters=(4,), hidden_units=(8,)),
     NetworkConfig(hidden_units=(8,), dueling=True)],
)  # fmt: skip
def test_the_forward_pass_over_a_snapshot_equals_the_model(config):
    model = build_q_network((6, 7, 2), 7, config)
    q = QFunction(model)
    weights = q.weights_of(model)
    q.warm_up(weights)
    planes = np.random.default_rng(0).integers(0, 2, (5, 6, 7, 2)).astype(np.int8)
    # The same products, maybe summed in another order by another kernel.
    np.testing.assert_allclose(
        q(planes, weights).numpy(), model(planes).numpy(), rtol=1e-5, atol=1e-6
    )


def test_the_forward_pass_uses_the_snapshot_not_the_live_weights():
    model = build_q_network((3, 3, 2), 9, NetworkConfig(hidden_units=(8,)))
    q = QFunction(model)
    snapshot = q.weights_of(model)
    planes = np.ones((2, 3, 3, 2), np.int8)
    before = q(planes, snapshot).numpy()
    model.set_weights([w + 1.0 for w in model.get_weights()])  # the learner moved on
    np.testing.assert_array_equal(q(planes, snapshot).numpy(), before)
    assert not np.allclose(q(planes, q.weights_of(model)).numpy(), before)


def test_a_convolution_is_its_im2col_product():
    # 3x3 "same" over 6x7 cells of 2 planes: m = 3 boards x 42 cells, k = 9 cells x 2 planes.
    model = build_q_network((6, 7, 2), 7, NetworkConfig(conv_filters=(4,), hidden_units=(8,)))
    assert layer_gemms(model, 3) == [
        ("conv0", 3 * 42, 18, 4),
        ("dense0", 3, 42 * 4, 8),
        ("q_values", 3, 8, 7),
    ]
