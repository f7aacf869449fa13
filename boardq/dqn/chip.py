"""The chip the learner runs on: a GPU TensorFlow sees, else the CPU, and its 16-bit units.

Read from TensorFlow's device details (a GPU's name and compute capability) and the
CPU's /proc/cpuinfo (its name and feature flags); `boardq.dqn.precision` and the
benchmark's roofline ask it which precisions have units.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

__all__ = ["CPU_UNITS", "Chip", "cpu_flags", "cpu_name", "detect_chip"]

# CPU flags (/proc/cpuinfo) of the units that multiply 16-bit numbers natively.
CPU_UNITS = {
    "bfloat16": (("amx_bf16", "AMX"), ("avx512_bf16", "AVX512_BF16")),
    "float16": (("amx_fp16", "AMX-FP16"), ("avx512_fp16", "AVX512_FP16")),
}


@dataclass(frozen=True)
class Chip:
    """What the learner runs on.

    Attributes:
      name: the device as people name it ("NVIDIA H100 80GB HBM3", "AMD EPYC").
      gpu: whether TensorFlow's default device for the learner is a GPU.
      compute_capability: the GPU's (major, minor), or None.
      cpu_flags: the CPU's feature flags (lower case; empty where unknown).
    """

    name: str
    gpu: bool = False
    compute_capability: tuple[int, int] | None = None
    cpu_flags: frozenset[str] = frozenset()

    def units(self, precision: str) -> str | None:
        """The chip's units that run `precision`'s matmuls natively, or None.

        float32 runs everywhere ("FP32"). On a GPU: tensor cores (bfloat16 from
        compute capability 8.0, float16 from 7.0). On a CPU: AMX or AVX-512 with the
        16-bit extensions, read from its flags.
        """
        if precision == "float32":
            return "FP32"
        if self.gpu:
            need = (8, 0) if precision == "bfloat16" else (7, 0)
            cc = self.compute_capability or (0, 0)
            return "tensor cores" if cc >= need else None
        for flag, units in CPU_UNITS.get(precision, ()):
            if flag in self.cpu_flags:
                return units
        return None

    @property
    def streams(self) -> int:
        """Products a probe runs at once for the whole chip.

        Every core of a CPU; one on a GPU, whose kernels fill the device.
        """
        return 1 if self.gpu else os.cpu_count() or 1

    def describe(self) -> str:
        if self.gpu:
            cc = self.compute_capability
            return f"GPU {self.name}" + (f" (compute capability {cc[0]}.{cc[1]})" if cc else "")
        return f"CPU {self.name}"


def _cpuinfo(prefixes: tuple[str, ...], path: str) -> str | None:
    """The value of the first /proc/cpuinfo line that starts with one of `prefixes`."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith(prefixes):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return None


def cpu_flags(path: str = "/proc/cpuinfo") -> frozenset[str]:
    """The CPU's feature flags, lower case (empty where there is no /proc/cpuinfo)."""
    return frozenset((_cpuinfo(("flags", "Features"), path) or "").lower().split())


def cpu_name(path: str = "/proc/cpuinfo") -> str:
    """The CPU's model name (the platform's processor where there is no /proc/cpuinfo)."""
    import platform

    return _cpuinfo(("model name",), path) or platform.processor() or platform.machine()


def detect_chip() -> Chip:
    """The learner's device: the first GPU TensorFlow sees, else the CPU."""
    import tensorflow as tf

    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        details = tf.config.experimental.get_device_details(gpus[0])
        cc = details.get("compute_capability")
        return Chip(
            name=details.get("device_name", gpus[0].name),
            gpu=True,
            compute_capability=tuple(cc) if cc else None,
        )
    return Chip(name=cpu_name(), cpu_flags=cpu_flags())
