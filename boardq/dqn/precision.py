"""The learner's arithmetic: float32, or 16-bit matmuls where the chip has units for them.

`--precision` is one of `PRECISIONS`. The 16-bit settings are Keras mixed precision:
float32 master weights, optimizer state and loss, matmuls and activations in bfloat16
or float16 (`boardq.dqn.networks.build_q_network`). float16 needs loss scaling (its range
is small); bfloat16 has float32's range and needs none. Agent files hold float32
weights whatever the run's precision.

`auto` takes what the chip offers, found out rather than assumed: on a GPU, its
compute capability (tensor cores: bfloat16 from 8.0, float16 from 7.0); on a CPU with
bfloat16 units (AVX512_BF16 or AMX), a short probe of the learner's own matrix
products on every core (the benchmark's roofline), bfloat16 only where it is clearly
faster than float32. A setting the chip cannot run falls back to float32 with one
line saying why.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from boardq.dqn.chip import CPU_UNITS, Chip
from boardq.execution import PRECISIONS

__all__ = [
    "AUTO_MIN_SPEEDUP",
    "FLOAT32",
    "PRECISIONS",
    "Precision",
    "in_turn",
    "best_matmul_rate",
    "matmul_rate",
    "products_rate",
    "resolve_precision",
]


_POLICIES = {"float32": "float32", "bfloat16": "mixed_bfloat16", "float16": "mixed_float16"}

AUTO_MIN_SPEEDUP = 1.5
"""`auto` on a CPU takes bfloat16 when its probe is at least this much faster.

On a 2-core AMD EPYC with AVX512_BF16 the probe read 0.93-1.31x and the learner trained
no faster in bfloat16 (docs/results/performance.md, "The learner against the chip"):
the probe overstates the gain, so only a clear one (AMX multiplies bfloat16 at several
times float32's rate) switches."""


@dataclass(frozen=True)
class Precision:
    """A resolved precision: what the learner computes in, and why.

    Attributes:
      name: "float32", "bfloat16" or "float16".
      note: one line: what was asked, what was chosen and why.
      probe: GFLOP/s the probe measured per precision (empty where none ran).
    """

    name: str
    note: str
    probe: dict[str, float]

    @property
    def policy(self) -> str:
        """The Keras dtype policy of the network's layers."""
        return _POLICIES[self.name]

    @property
    def loss_scaling(self) -> bool:
        """float16 needs its loss scaled so that small gradients do not flush to zero."""
        return self.name == "float16"


FLOAT32 = Precision("float32", "precision float32", {})
"""The reference: everything in float32."""


def matmul_rate(
    precision: str,
    m: int,
    k: int,
    n: int,
    seconds: float = 0.3,
    streams: int = 1,
) -> float:
    """GFLOP/s of [m, k] x [k, n] matmuls in `precision` on the default device.

    Many products run inside one compiled call, and that one call is timed: a first
    call of a few products (which also traces) sets how many make a call of about
    `seconds`. Each turn of the call's loop multiplies `streams` pairs of inputs of
    their own, independent of each other, which TensorFlow's inter-op threads can run
    at once (the chip's cores, as the learner's independent forward passes use them);
    with 1 stream one product runs at a time on TensorFlow's compute (intra-op) threads,
    as a plain loop of `tf.matmul` does. The best of the two is the chip's rate at this
    shape (`best_matmul_rate`).
    """
    run = _probe(precision, streams)  # its signature takes the turns as an int32 tensor
    a, b = _inputs(precision, m, k, n, streams)
    trial = 4
    run(a, b, trial).numpy()  # a first call may trace: time a second one
    t0 = time.perf_counter()
    run(a, b, trial).numpy()
    per_turn = max(1e-7, (time.perf_counter() - t0) / trial)
    turns = max(trial, int(seconds / per_turn))
    t0 = time.perf_counter()
    run(a, b, turns).numpy()
    elapsed = time.perf_counter() - t0
    return 2.0 * m * k * n * streams * turns / elapsed / 1e9


def best_matmul_rate(
    precision: str, m: int, k: int, n: int, seconds: float, streams: int
) -> tuple[float, dict[str, float]]:
    """The chip's rate at a shape: the best of one product at a time and `streams` at once.

    Returns the best GFLOP/s and each way's (`one_at_a_time`, `side_by_side`).
    """
    ways = {"one_at_a_time": matmul_rate(precision, m, k, n, seconds, streams=1)}
    if streams > 1:
        ways["side_by_side"] = matmul_rate(precision, m, k, n, seconds, streams=streams)
    return max(ways.values()), ways


_PROBES: dict[tuple, object] = {}
"""Traced probes by (precision, streams): one trace serves every shape, so probing many
layers traces a handful of times, never once a layer."""


def _probe(precision: str, streams: int):
    import tensorflow as tf

    key = (precision, streams)
    if key in _PROBES:
        return _PROBES[key]
    dtype = tf.as_dtype(precision)  # the names are TensorFlow's
    matrix = tf.TensorSpec([None, None], dtype)
    signature = [[matrix] * streams, [matrix] * streams, tf.TensorSpec([], tf.int32)]

    @tf.function(autograph=False, input_signature=signature)
    def run(a, b, turns):
        def body(i, accs):
            return i + 1, [acc + tf.matmul(x, y) for acc, x, y in zip(accs, a, b, strict=True)]

        shape = tf.stack([tf.shape(a[0])[0], tf.shape(b[0])[1]])
        init = (tf.constant(0), [tf.zeros(shape, dtype) for _ in range(streams)])
        cond = lambda i, _: i < turns  # noqa: E731
        _, accs = tf.while_loop(cond, body, init, parallel_iterations=1)
        # One number out: the call's end waits for every product, and copies nothing big.
        return tf.add_n([tf.reduce_sum(tf.cast(acc[:1, :1], tf.float32)) for acc in accs])

    _PROBES[key] = run
    return run


def _inputs(precision: str, m: int, k: int, n: int, streams: int) -> tuple[list, list]:
    import tensorflow as tf

    dtype = tf.as_dtype(precision)
    # Each stream its own inputs: equal products could be merged into one by the graph
    # optimizer.
    a = [
        tf.cast(tf.random.stateless_normal([m, k], seed=[1, 2 + s]), dtype) for s in range(streams)
    ]
    b = [
        tf.cast(tf.random.stateless_normal([k, n], seed=[3, 4 + s]), dtype) for s in range(streams)
    ]
    return a, b


def _fallback(asked: str, chip: Chip) -> Precision:
    if chip.gpu:
        lacks = f"{asked} tensor cores"
    else:
        lacks = " or ".join(units for _, units in CPU_UNITS[asked])
    note = f"precision {asked}: {chip.describe()} has no {lacks}; training in float32"
    return Precision("float32", note, {})


def products_rate(
    precision: str,
    shapes: Sequence[tuple[int, int, int]],
    streams: int,
    seconds: float = 0.15,
) -> float:
    """GFLOP/s of the products `shapes` ((m, k, n) each) in turn: FLOPs over time.

    Each distinct shape is timed once by `best_matmul_rate`: the better of one product
    at a time and `streams` at once (`Chip.streams` for the whole chip, as the roofline
    is).
    """
    rates = {s: best_matmul_rate(precision, *s, seconds, streams)[0] for s in set(shapes)}
    return in_turn(shapes, rates)


def in_turn(
    shapes: Sequence[tuple[int, int, int]], rates: dict[tuple[int, int, int], float]
) -> float:
    """GFLOP/s of the products `shapes` run in turn, each at its rate in `rates`."""
    flops = [2.0 * m * k * n for m, k, n in shapes]
    return sum(flops) / sum(f / rates[shape] for f, shape in zip(flops, shapes, strict=True))


def resolve_precision(
    asked: str, chip: Chip, shapes: Sequence[tuple[int, int, int]] = ((256, 256, 256),)
) -> Precision:
    """The precision to train in for the setting `asked` on `chip`.

    Args:
      asked: one of `PRECISIONS`.
      chip: the learner's device (`detect_chip`).
      shapes: (m, k, n) of the learner's products (`boardq.dqn.networks.layer_gemms`), for
        `auto`'s probe on a CPU: their rate in both precisions, with as many at once
        as there are cores (the roofline of `boardq bench`).

    Raises:
      ValueError: `asked` is not one of `PRECISIONS`.
    """
    if asked not in PRECISIONS:
        raise ValueError(f"precision must be one of {', '.join(PRECISIONS)}, got {asked!r}")
    if asked == "float32":
        return FLOAT32
    if asked != "auto":
        units = chip.units(asked)
        if units is None:
            return _fallback(asked, chip)
        return Precision(
            asked, f"precision {asked} (mixed) on the {units} of {chip.describe()}", {}
        )
    if chip.gpu:
        for name in ("bfloat16", "float16"):
            if chip.units(name):
                note = f"precision auto: {name} (mixed) on the tensor cores of {chip.describe()}"
                return Precision(name, note, {})
        return Precision("float32", f"precision auto: float32, {chip.describe()} has no "
                         "tensor cores", {})  # fmt: skip
    units = chip.units("bfloat16")
    if units is None:
        return Precision("float32", f"precision auto: float32, {chip.describe()} has no "
                         "bfloat16 units (AVX512_BF16 or AMX)", {})  # fmt: skip
    # Best of two rounds, interleaved: a moment of load elsewhere weighs on neither.
    probe = dict.fromkeys(("float32", "bfloat16"), 0.0)
    for _ in range(2):
        for p in probe:
            probe[p] = max(probe[p], products_rate(p, shapes, chip.streams, seconds=0.1))
    speedup = probe["bfloat16"] / probe["float32"]
    measured = (
        f"the learner's products ran {probe['bfloat16']:.0f} GFLOP/s in bfloat16, "
        f"{probe['float32']:.0f} in float32 ({speedup:.2f}x)"
    )
    if speedup >= AUTO_MIN_SPEEDUP:
        return Precision("bfloat16", f"precision auto: bfloat16 (mixed) on {units}: {measured}",
                         probe)  # fmt: skip
    return Precision("float32", f"precision auto: float32: {measured}, under "
                     f"{AUTO_MIN_SPEEDUP}x", probe)  # fmt: skip
