"""The roofline stage: what this chip's matrix products reach, and the learner's share.

The learner's work is matrix products (`boardq.dqn.networks.layer_gemms`): the stage times
each of its layers' products on the learner's device in every precision the chip has
units for, and a large square product as the chip's peak. Each shape is timed two ways,
many products in one compiled call each time (`boardq.dqn.precision.best_matmul_rate`): one
product at a time on TensorFlow's compute threads, as a plain loop of `tf.matmul` runs,
and one product per core at once, as the learner's independent forward passes run; the
better is the chip's rate there. At the learner's shapes the chip can do at most the
FLOP-weighted harmonic mean of those rates (the roofline); the learner's ceiling in
train steps/s times the FLOPs of a train step (`train_step_flops`) is what it reaches.
Their ratio is the learner's distance to the chip's limit.
"""

from __future__ import annotations

import time
from typing import Any

from boardq.benchmark.measure import StageResult, Window, ratio
from boardq.dqn.chip import Chip, detect_chip
from boardq.dqn.precision import PRECISIONS, best_matmul_rate, in_turn

__all__ = ["PEAK_SHAPE", "learner_flops", "roofline", "roofline_ratios"]

PEAK_SHAPE = (1024, 1024, 1024)
"""The product whose rate stands for the chip's peak."""


def learner_flops(learner) -> int:
    """FLOPs of one of the learner's train steps."""
    from boardq.dqn.networks import train_step_flops

    return train_step_flops(learner.online, learner.config.batch_size)


def roofline(learner, seconds: float, chip: Chip | None = None) -> StageResult:
    """Times the learner's layers' products in each precision the chip runs natively.

    Each shape's rate is the better of one product at a time and, on a CPU, one per
    core at once (`best_matmul_rate`); on a GPU one at a time fills the device.

    Args:
      learner: whose network, batch size and precision are measured against.
      seconds: time per probe (each precision runs one or two probes per distinct layer
        shape and per `PEAK_SHAPE`).
      chip: the device (default: `detect_chip()`).
    """
    from boardq.dqn.networks import layer_gemms

    chip = chip or detect_chip()
    streams = chip.streams
    gemms = layer_gemms(learner.online, learner.config.batch_size)
    shapes = [(m, k, n) for _, m, k, n in gemms]
    precisions = [p for p in PRECISIONS[1:] if chip.units(p)]
    t0 = time.monotonic()
    rates: dict[str, dict[str, float]] = {}
    ways: dict[str, dict[str, dict[str, float]]] = {}
    roof: dict[str, float] = {}
    peak: dict[str, float] = {}
    for p in precisions:
        timed = {s: best_matmul_rate(p, *s, seconds, streams) for s in set(shapes)}
        by_shape = {s: best for s, (best, _) in timed.items()}
        rates[p] = {name: by_shape[(m, k, n)] for name, m, k, n in gemms}
        ways[p] = {name: timed[(m, k, n)][1] for name, m, k, n in gemms}
        roof[p] = in_turn(shapes, by_shape)
        peak[p] = best_matmul_rate(p, *PEAK_SHAPE, seconds, streams)[0]
    window = Window(t0, time.monotonic())
    learner_p = learner.precision.name
    figures: dict[str, Any] = {
        "chip": chip.describe(),
        "units": {p: chip.units(p) for p in PRECISIONS[1:]},
        "layers": [
            {
                "name": name,
                "m": m,
                "k": k,
                "n": n,
                "gflops": {p: rates[p][name] for p in rates},
                "ways": {p: ways[p][name] for p in ways},
            }
            for name, m, k, n in gemms
        ],
        "roofline_gflops": roof,
        "peak_gflops": peak,
        "peak_shape": list(PEAK_SHAPE),
        "streams": streams,
        "learner_precision": learner_p,
        "learner_precision_note": learner.precision.note,
        "train_step_flops": learner_flops(learner),
        "batch_size": learner.config.batch_size,
        "batch_splits": learner.config.batch_splits,
    }
    title = f"matrix products at the learner's shapes, {chip.describe()}"
    return StageResult(
        key="roofline", title=title, unit="GFLOP/s", rate=roof.get(learner_p),
        figures=figures, windows=[window],
    )  # fmt: skip


def roofline_ratios(roof: StageResult | None, ceiling: float | None) -> dict[str, Any]:
    """The learner's achieved GFLOP/s at its ceiling, and its share of the roofline and peak."""
    if roof is None:
        return {"learner_gflops": None, "learner_vs_roofline": None, "learner_vs_peak": None}
    f = roof.figures
    achieved = ceiling * f["train_step_flops"] / 1e9 if ceiling else None
    return {
        "learner_gflops": achieved,
        "learner_vs_roofline": ratio(achieved, roof.rate),
        "learner_vs_peak": ratio(achieved, f["peak_gflops"].get(f["learner_precision"])),
    }
