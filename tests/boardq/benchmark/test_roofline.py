"""The roofline measures the chip as well as a plain compiled loop of `tf.matmul` does."""

from __future__ import annotations

import time

import pytest

from boardq.benchmark.roofline import roofline
from boardq.dqn.builder import Builder
from boardq_games import get_game

_LOOPS = {}


def _plain_loop_rate(m: int, k: int, n: int, seconds: float) -> float:
    """GFLOP/s of the loop anyone would write: a compiled `for` over `c += tf.matmul(a, b)`."""
    import tensorflow as tf

    if (m, k, n) not in _LOOPS:

        @tf.function
        def loop(a, b, count):
            c = tf.zeros([m, n])
            for _ in tf.range(count):
                c += tf.matmul(a, b)
            return c[0, 0]

        _LOOPS[m, k, n] = loop, tf.random.normal([m, k]), tf.random.normal([k, n])
    loop, a, b = _LOOPS[m, k, n]
    loop(a, b, tf.constant(2)).numpy()  # traces the first time
    t0 = time.perf_counter()
    loop(a, b, tf.constant(4)).numpy()
    count = max(4, int(seconds / ((time.perf_counter() - t0) / 4)))
    t0 = time.perf_counter()
    loop(a, b, tf.constant(count)).numpy()
    return 2.0 * m * k * n * count / (time.perf_counter() - t0) / 1e9


@pytest.mark.perf
def test_each_layer_shape_runs_as_fast_as_a_plain_matmul_loop():
    game = get_game("connect_four")
    cfg = game.preset.replace(precision="float32", eval_games=0)  # the preset's shapes
    learner = Builder(cfg, game).make_learner()
    shapes = {}
    best_roof: dict[str, float] = {}
    best_plain: dict[str, float] = {}
    # Best of three rounds, the two measured in turn: a moment of load elsewhere on a
    # shared machine then weighs on neither.
    for _ in range(3):
        roof = roofline(learner, 0.15)
        for layer in roof.figures["layers"]:
            name = layer["name"]
            shapes[name] = (layer["m"], layer["k"], layer["n"])
            best_roof[name] = max(best_roof.get(name, 0.0), layer["gflops"]["float32"])
        for name, shape in shapes.items():
            best_plain[name] = max(best_plain.get(name, 0.0), _plain_loop_rate(*shape, 0.15))
    assert set(shapes) == {"dense0", "dense1", "q_values"}
    for name in shapes:
        # Within 10%: the roofline may find more (the products side by side on every
        # core), never much less than the plain loop on the same shape.
        assert best_roof[name] >= 0.9 * best_plain[name], (name, best_roof, best_plain)
    assert roof.figures["roofline_gflops"]["float32"] == pytest.approx(roof.rate)
