"""GPU utilization through NVML, and CPU use, sampled in a background thread.

`pynvml` (the nvidia-ml-py package) is imported only when sampling starts. Without
the package, without an NVIDIA driver, or without a device, the monitor reports
"no GPU" with the reason and still samples the CPU.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from boardq.benchmark.measure import Clock, Window, max_in_windows, mean_in_windows

__all__ = ["NVML_NOTE", "GpuStatus", "UtilizationMonitor", "load_nvml", "read_proc_stat"]

NVML_NOTE = (
    "NVML's utilization.gpu is the share of time in which at least one kernel ran on "
    "the GPU (over NVML's own sample period, 1/6 s to 1 s); it counts time busy, not "
    "how much of the chip that kernel used: a tiny kernel running all the time reads 100%."
)


def load_nvml():
    """The pynvml module (imported here, lazily)."""
    import pynvml

    return pynvml


@dataclass
class GpuStatus:
    """Whether NVML sees a GPU; why not if it does not; the devices if it does."""

    available: bool
    reason: str = ""
    driver: str = ""
    devices: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "available": self.available,
            "reason": self.reason,
            "driver": self.driver,
            "devices": self.devices,
        }


def _text(value) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def read_proc_stat(path: str = "/proc/stat") -> tuple[float, float] | None:
    """(busy, total) CPU jiffies of the whole machine, or None where there is no /proc."""
    try:
        with open(path, encoding="ascii") as f:
            fields = f.readline().split()
    except OSError:
        return None
    if not fields or fields[0] != "cpu":
        return None
    values = [float(v) for v in fields[1:]]
    idle = values[3] + (values[4] if len(values) > 4 else 0.0)  # idle + iowait
    return sum(values) - idle, sum(values)


class UtilizationMonitor:
    """Samples GPU utilization (NVML) and CPU use at `hz` until stopped.

    Per sample: every GPU's `utilization.gpu` and `utilization.memory` (percent) and
    memory used (MB); the cores this process kept busy since the last sample; the
    cores the whole machine kept busy (from /proc/stat, where there is one).

    Args:
      hz: samples per second (NVML asks for 10 or more).
      nvml_loader: returns the pynvml module; tests pass a stand-in.
      cpu_count: cores of the machine (default: os.cpu_count()).
      clock: where the sample times are read and the wait between samples is waited
        (default: the monotonic clock, the wait cut short by `stop`); tests step their own.
    """

    def __init__(
        self,
        hz: float = 10.0,
        nvml_loader: Callable[[], Any] = load_nvml,
        cpu_count: int | None = None,
        clock: Clock | None = None,
    ):
        if hz <= 0:
            raise ValueError("hz must be > 0")
        self._period = 1.0 / hz
        self.hz = hz
        self._loader = nvml_loader
        self.cpu_count = cpu_count or os.cpu_count() or 1
        self._nvml = None
        self._handles: list[Any] = []
        self.status = GpuStatus(False, "not started")
        self.times: list[float] = []
        self.process_cores: list[float | None] = []
        self.machine_cores: list[float | None] = []
        self.gpu_util: list[list[float | None]] = []
        self.gpu_mem_util: list[list[float | None]] = []
        self.gpu_mem_used_mb: list[list[float | None]] = []
        self._stop = threading.Event()
        self.clock = clock or Clock(time.monotonic, self._wait)
        self._thread: threading.Thread | None = None
        self._last_cpu: tuple[float, float, tuple[float, float] | None] | None = None

    # -- NVML -------------------------------------------------------------------------
    def _open_nvml(self) -> GpuStatus:
        try:
            nvml = self._loader()
        except ImportError as e:
            return GpuStatus(False, f"no GPU: pynvml is not installed ({e})")
        try:
            nvml.nvmlInit()
        except Exception as e:  # NVMLError and its subclasses (no driver, no library)
            return GpuStatus(False, f"no GPU: NVML cannot start ({_text(e) or type(e).__name__})")
        try:
            count = nvml.nvmlDeviceGetCount()
            driver = _text(nvml.nvmlSystemGetDriverVersion())
            devices, handles = [], []
            for i in range(count):
                handle = nvml.nvmlDeviceGetHandleByIndex(i)
                memory = nvml.nvmlDeviceGetMemoryInfo(handle)
                devices.append(
                    {
                        "index": i,
                        "name": _text(nvml.nvmlDeviceGetName(handle)),
                        "memory_total_mb": memory.total / 2**20,
                    }
                )
                handles.append(handle)
        except Exception as e:
            self._shutdown(nvml)
            return GpuStatus(False, f"no GPU: NVML failed listing devices ({_text(e)})")
        if not handles:
            self._shutdown(nvml)
            return GpuStatus(False, "no GPU: NVML found no device", driver)
        self._nvml, self._handles = nvml, handles
        return GpuStatus(True, "", driver, devices)

    @staticmethod
    def _shutdown(nvml) -> None:
        try:
            nvml.nvmlShutdown()
        except Exception:  # shutting down after a failure; nothing left to report
            pass

    def _read_gpus(self) -> tuple[list, list, list]:
        util, mem_util, mem_used = [], [], []
        for handle in self._handles:
            try:
                rates = self._nvml.nvmlDeviceGetUtilizationRates(handle)
                memory = self._nvml.nvmlDeviceGetMemoryInfo(handle)
                util.append(float(rates.gpu))
                mem_util.append(float(rates.memory))
                mem_used.append(memory.used / 2**20)
            except Exception:  # one failed read (e.g. a GPU reset) leaves a gap
                util.append(None)
                mem_util.append(None)
                mem_used.append(None)
        return util, mem_util, mem_used

    # -- sampling -----------------------------------------------------------------------
    def sample(self) -> None:
        """Takes one sample now."""
        now = self.clock.now()
        cpu = time.process_time()
        machine = read_proc_stat()
        proc_cores = machine_cores = None
        if self._last_cpu is not None:
            t0, cpu0, machine0 = self._last_cpu
            dt = now - t0
            if dt > 0:
                proc_cores = (cpu - cpu0) / dt
                if machine is not None and machine0 is not None:
                    dtotal = machine[1] - machine0[1]
                    if dtotal > 0:
                        machine_cores = self.cpu_count * (machine[0] - machine0[0]) / dtotal
        self._last_cpu = (now, cpu, machine)
        util, mem_util, mem_used = self._read_gpus() if self._handles else ([], [], [])
        self.times.append(now)
        self.process_cores.append(proc_cores)
        self.machine_cores.append(machine_cores)
        self.gpu_util.append(util)
        self.gpu_mem_util.append(mem_util)
        self.gpu_mem_used_mb.append(mem_used)

    def _wait(self, seconds: float) -> None:
        self._stop.wait(seconds)

    def _run(self) -> None:
        while True:
            self.clock.sleep(self._period)
            if self._stop.is_set():
                return
            self.sample()

    def start(self) -> GpuStatus:
        """Opens NVML (if it can) and starts sampling; returns what it found."""
        self.status = self._open_nvml()
        self.sample()
        self._thread = threading.Thread(target=self._run, name="bench-utilization", daemon=True)
        self._thread.start()
        return self.status

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5.0)
            self._thread = None
        if self._nvml is not None:
            self._shutdown(self._nvml)
            self._nvml = None
            self._handles = []

    def __enter__(self) -> UtilizationMonitor:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    # -- summaries ------------------------------------------------------------------------
    def device_series(self, device: int, which: str = "util") -> list[float | None]:
        """One device's samples: "util", "mem_util" or "mem_used_mb"."""
        rows = {
            "util": self.gpu_util,
            "mem_util": self.gpu_mem_util,
            "mem_used_mb": self.gpu_mem_used_mb,
        }[which]
        return [row[device] if device < len(row) else None for row in rows]

    def summary(self, windows: Sequence[Window]) -> dict[str, Any]:
        """Means (and peaks) over the samples inside the windows.

        With several GPUs the busiest one is reported (a single-process learner
        runs on one), with every device's mean alongside.
        """
        out: dict[str, Any] = {
            "process_cores": mean_in_windows(self.times, self.process_cores, windows),
            "machine_cores": mean_in_windows(self.times, self.machine_cores, windows),
            "gpu": self.status.available,
        }
        if not self.status.available:
            return out
        per_device = []
        for i in range(len(self.status.devices)):
            per_device.append(
                {
                    "index": i,
                    "util_mean": mean_in_windows(self.times, self.device_series(i), windows),
                    "util_max": max_in_windows(self.times, self.device_series(i), windows),
                    "mem_util_mean": mean_in_windows(
                        self.times, self.device_series(i, "mem_util"), windows
                    ),
                    "mem_used_mb_max": max_in_windows(
                        self.times, self.device_series(i, "mem_used_mb"), windows
                    ),
                    "samples": sum(
                        1
                        for t, v in zip(self.times, self.device_series(i), strict=True)
                        if v is not None and any(w.contains(t) for w in windows)
                    ),
                }
            )
        busiest = max(per_device, key=lambda d: d["util_mean"] or 0.0)
        out.update(
            {
                "gpu_util_mean": busiest["util_mean"],
                "gpu_util_max": busiest["util_max"],
                "gpu_mem_util_mean": busiest["mem_util_mean"],
                "gpu_mem_used_mb_max": busiest["mem_used_mb_max"],
                "gpu_samples": busiest["samples"],
                "gpu_device": busiest["index"],
                "gpu_devices": per_device,
            }
        )
        return out
