"""Precision: what each chip runs natively, how a setting resolves, and the probe."""

from __future__ import annotations

import math

import pytest

from boardq.dqn import precision
from boardq.dqn.chip import Chip, cpu_flags, cpu_name, detect_chip
from boardq.dqn.precision import (
    AUTO_MIN_SPEEDUP,
    best_matmul_rate,
    in_turn,
    matmul_rate,
    resolve_precision,
)

PLAIN_CPU = Chip(name="Test CPU", cpu_flags=frozenset({"avx2", "fma"}))
BF16_CPU = Chip(name="Test CPU", cpu_flags=frozenset({"avx512f", "avx512_bf16"}))
AMX_CPU = Chip(name="Test CPU", cpu_flags=frozenset({"avx512_bf16", "amx_bf16", "amx_tile"}))
FP16_CPU = Chip(name="Test CPU", cpu_flags=frozenset({"avx512_fp16"}))


def gpu(cc: tuple[int, int]) -> Chip:
    return Chip(name="Test GPU", gpu=True, compute_capability=cc)


@pytest.mark.parametrize(
    ("chip", "precision", "units"),
    [
        (PLAIN_CPU, "float32", "FP32"),
        (PLAIN_CPU, "bfloat16", None),
        (PLAIN_CPU, "float16", None),
        (BF16_CPU, "bfloat16", "AVX512_BF16"),
        (AMX_CPU, "bfloat16", "AMX"),
        (BF16_CPU, "float16", None),
        (FP16_CPU, "float16", "AVX512_FP16"),
        (gpu((8, 6)), "bfloat16", "tensor cores"),
        (gpu((8, 0)), "bfloat16", "tensor cores"),
        (gpu((8, 6)), "float16", "tensor cores"),
        (gpu((7, 5)), "bfloat16", None),
        (gpu((7, 0)), "float16", "tensor cores"),
        (gpu((6, 1)), "float16", None),
    ],
)
def test_units_per_chip_and_precision(chip, precision, units):
    assert chip.units(precision) == units


@pytest.mark.parametrize(
    ("chip", "expected"),
    [(gpu((9, 0)), "bfloat16"), (gpu((7, 5)), "float16"), (gpu((6, 1)), "float32")],
)
def test_auto_on_a_gpu_takes_its_tensor_cores(chip, expected):
    chosen = resolve_precision("auto", chip)
    assert chosen.name == expected
    assert chosen.note.startswith("precision auto: ")
    assert chosen.probe == {}  # decided by the compute capability, no probe


def test_auto_on_a_cpu_without_bfloat16_units_is_float32_without_a_probe():
    chosen = resolve_precision("auto", PLAIN_CPU)
    assert chosen.name == "float32" and chosen.probe == {}
    assert "no bfloat16 units" in chosen.note


def test_auto_on_a_cpu_with_bfloat16_units_follows_its_probe():
    # The probe runs for real here (on a CPU without the units bfloat16 is emulated,
    # and slow): whatever it measures, the choice must follow it.
    chosen = resolve_precision("auto", BF16_CPU, shapes=[(64, 32, 64), (64, 64, 64)])
    speedup = chosen.probe["bfloat16"] / chosen.probe["float32"]
    assert chosen.name == ("bfloat16" if speedup >= AUTO_MIN_SPEEDUP else "float32")
    assert f"({speedup:.2f}x)" in chosen.note


@pytest.mark.parametrize(
    ("asked", "chip", "line"),
    [
        (
            "bfloat16",
            PLAIN_CPU,
            "precision bfloat16: CPU Test CPU has no AMX or AVX512_BF16; training in float32",
        ),
        (
            "float16",
            BF16_CPU,
            "precision float16: CPU Test CPU has no AMX-FP16 or AVX512_FP16; training in float32",
        ),
        (
            "bfloat16",
            gpu((7, 5)),
            "precision bfloat16: GPU Test GPU (compute capability 7.5) has no bfloat16 "
            "tensor cores; training in float32",
        ),
        (
            "float16",
            Chip(name="Test GPU", gpu=True),
            "precision float16: GPU Test GPU has no float16 tensor cores; training in float32",
        ),
    ],
)
def test_a_precision_the_chip_lacks_falls_back_to_float32_with_one_line(asked, chip, line):
    chosen = resolve_precision(asked, chip)
    assert chosen.name == "float32"
    assert chosen.note == line
    assert chosen.probe == {}  # no probe ran
    assert "\n" not in chosen.note


def test_a_precision_the_chip_has_is_taken():
    assert resolve_precision("bfloat16", AMX_CPU).name == "bfloat16"
    chosen = resolve_precision("float16", gpu((8, 0)))
    assert chosen.name == "float16" and chosen.loss_scaling
    assert chosen.policy == "mixed_float16"
    assert resolve_precision("float32", AMX_CPU).policy == "float32"


def test_an_unknown_precision_is_refused():
    with pytest.raises(ValueError, match="precision must be one of auto, float32"):
        resolve_precision("float8", PLAIN_CPU)


def test_cpu_flags_are_read_from_cpuinfo(tmp_path):
    info = tmp_path / "cpuinfo"
    info.write_text("processor\t: 0\nmodel name\t: X\nflags\t\t: fpu AVX512_BF16 amx_tile\n\n")
    assert cpu_flags(str(info)) == frozenset({"fpu", "avx512_bf16", "amx_tile"})
    assert cpu_flags(str(tmp_path / "missing")) == frozenset()
    assert cpu_name(str(info)) == "X"
    assert cpu_name(str(tmp_path / "missing"))  # the platform's name instead


def test_products_in_turn_take_the_time_of_each():
    # 2 GFLOP at 100 GFLOP/s and 1 GFLOP at 50: 3 GFLOP in 0.04 s.
    shapes = [(1000, 1000, 1000), (500, 1000, 1000)]
    rates = {shapes[0]: 100.0, shapes[1]: 50.0}
    assert in_turn(shapes, rates) == pytest.approx(3.0 / 0.04)


def test_this_machine_is_detected_and_probed():
    chip = detect_chip()
    assert chip.name
    assert chip.units("float32") == "FP32"
    rate = matmul_rate("float32", 64, 32, 16, seconds=0.05)
    assert math.isfinite(rate) and rate > 0


class _Clock:
    """A clock that reads `step` seconds later at each reading: every timed call takes `step`."""

    def __init__(self, step: float):
        self.step = step
        self.now = 0.0

    def perf_counter(self) -> float:
        self.now += self.step
        return self.now


def test_the_timed_call_fills_its_seconds_and_counts_every_streams_products(monkeypatch):
    # Each call takes 1/8 s: the trial's 4 turns say 1/32 s a turn, so the timed call runs
    # int(0.3 * 32) = 9 turns (0.3 s by default), or 16 for 0.5 s, of 3 products of
    # 2 * 8 * 4 * 2 FLOPs each, in 1/8 s.
    monkeypatch.setattr(precision, "time", _Clock(0.125))
    assert matmul_rate("float32", 8, 4, 2, streams=3) == pytest.approx(128 * 3 * 9 * 8 / 1e9)
    assert matmul_rate("float32", 8, 4, 2, 0.5, streams=3) == pytest.approx(128 * 3 * 16 * 8 / 1e9)


def test_one_stream_is_timed_one_way(monkeypatch):
    monkeypatch.setattr(precision, "time", _Clock(0.125))
    one = 128 * 9 * 8 / 1e9  # as above, one product a turn
    assert best_matmul_rate("float32", 8, 4, 2, 0.3, 1) == (
        pytest.approx(one),
        {"one_at_a_time": pytest.approx(one)},
    )
    best, ways = best_matmul_rate("float32", 8, 4, 2, 0.3, 2)
    assert ways == {"one_at_a_time": pytest.approx(one), "side_by_side": pytest.approx(2 * one)}
    assert best == pytest.approx(2 * one)


def test_autos_probe_times_each_way_for_a_tenth_of_a_second(monkeypatch):
    # At 1/32 s a turn 0.1 s is 3 turns: the 4 of the trial, the least a timed call runs.
    # Both precisions equally fast: float32, with the rates measured.
    monkeypatch.setattr(precision, "time", _Clock(0.125))
    chosen = resolve_precision("auto", BF16_CPU, shapes=[(8, 4, 2)])
    rate = 128 * BF16_CPU.streams * 4 * 8 / 1e9
    assert chosen.probe == {"float32": pytest.approx(rate), "bfloat16": pytest.approx(rate)}
    assert chosen.name == "float32"
    assert chosen.note.endswith(f"(1.00x), under {AUTO_MIN_SPEEDUP}x")
