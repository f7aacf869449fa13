#!/usr/bin/env python3
"""What TensorFlow sees for boardq's learner: its GPUs, or why none, in one line.

    python3 scripts/gpu_check.py

Exit status 0 where TensorFlow sees a GPU; 1 where it sees none, the line saying what
is missing: a TensorFlow built with CUDA, the CUDA libraries of boardq's `gpu` extra
(`python3 -m pip install -e ".[gpu]"`), or an NVIDIA driver (NVML). docs/gpu.md says
what to run next.
"""

from __future__ import annotations

import importlib.util
import sys

from boardq._quiet import import_tensorflow_quietly, quiet_native_logs


def _has_cuda_wheels() -> bool:
    """Whether the `gpu` extra's CUDA libraries (NVIDIA's pip wheels) are installed."""
    try:
        return importlib.util.find_spec("nvidia.cudnn") is not None
    except ModuleNotFoundError:  # no `nvidia` namespace at all
        return False


def _driver() -> str:
    """The NVIDIA driver's version through NVML, or why there is none."""
    try:
        import pynvml

        pynvml.nvmlInit()
    except Exception as e:  # no library, no driver: NVML says why
        return f"no NVIDIA driver ({str(e) or type(e).__name__})"
    try:
        version = pynvml.nvmlSystemGetDriverVersion()
        count = pynvml.nvmlDeviceGetCount()
    finally:
        pynvml.nvmlShutdown()
    version = version.decode() if isinstance(version, bytes) else version
    return f"driver {version}, {count} device(s) by NVML"


def describe() -> tuple[bool, str]:
    """(whether TensorFlow sees a GPU, the line that says what it sees)."""
    with quiet_native_logs():
        import_tensorflow_quietly()
        import tensorflow as tf

        gpus = tf.config.list_physical_devices("GPU")
        details = [tf.config.experimental.get_device_details(g) for g in gpus]
    build = tf.sysconfig.get_build_info()
    head = f"TensorFlow {tf.__version__}"
    if gpus:
        names = ", ".join(
            f"{d.get('device_name', 'GPU')} (compute capability "
            f"{'.'.join(map(str, d.get('compute_capability', ('?',))))})"
            for d in details
        )
        return True, f"{head} sees {len(gpus)} GPU(s): {names}"
    if not build.get("is_cuda_build"):
        return False, f"{head} sees no GPU: this TensorFlow was built without CUDA"
    if not _has_cuda_wheels():
        why = 'the CUDA libraries are not installed (python3 -m pip install -e ".[gpu]")'
    else:
        why = f"CUDA {build.get('cuda_version')} libraries installed; {_driver()}"
    return False, f"{head} sees no GPU: {why}"


def main() -> int:
    found, line = describe()
    print(line)
    return 0 if found else 1


if __name__ == "__main__":
    sys.exit(main())
