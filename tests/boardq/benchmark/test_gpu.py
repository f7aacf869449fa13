"""GPU sampling: the real no-GPU path on this machine, and the arithmetic with a
stand-in for NVML (no TensorFlow)."""

from __future__ import annotations

import subprocess
import sys
import time
from types import SimpleNamespace

import pytest

from boardq.benchmark.gpu import UtilizationMonitor, read_proc_stat
from boardq.benchmark.measure import Clock, Window


class FakeNVMLError(Exception):
    pass


class FakeNVML:
    """Two devices; device 1 is busier. Utilization follows a script per device."""

    def __init__(self, count=2, fail_init=False, util=None):
        self.count = count
        self.fail_init = fail_init
        self.util = util or {0: [10, 20], 1: [80, 90]}
        self.reads = {0: 0, 1: 0}
        self.shutdowns = 0

    def nvmlInit(self):
        if self.fail_init:
            raise FakeNVMLError("Driver Not Loaded")

    def nvmlShutdown(self):
        self.shutdowns += 1

    def nvmlDeviceGetCount(self):
        return self.count

    def nvmlSystemGetDriverVersion(self):
        return b"550.54"

    def nvmlDeviceGetHandleByIndex(self, i):
        return i

    def nvmlDeviceGetName(self, handle):
        return f"Fake GPU {handle}"

    def nvmlDeviceGetMemoryInfo(self, handle):
        return SimpleNamespace(total=16 * 2**30, used=(handle + 1) * 2**30)

    def nvmlDeviceGetUtilizationRates(self, handle):
        script = self.util[handle]
        value = script[min(self.reads[handle], len(script) - 1)]
        self.reads[handle] += 1
        return SimpleNamespace(gpu=value, memory=value / 2)


def samples_taken(monitor: UtilizationMonitor, count: int) -> None:
    """Waits until the monitor's thread has taken `count` samples, then stops it.

    The deadline only guards against a hang: a busy machine delays the samples, and the
    test waits for them rather than counting what came within a fixed time.
    """
    deadline = time.monotonic() + 60
    try:
        while len(monitor.times) < count:
            assert time.monotonic() < deadline, f"{len(monitor.times)} samples in 60 s"
            time.sleep(0.01)
    finally:
        monitor.stop()


class Stepped:
    """A clock that moves only when slept on, and notes each wait."""

    def __init__(self):
        self.t, self.waits = 100.0, []
        self.clock = Clock(lambda: self.t, self.sleep)

    def sleep(self, seconds: float) -> None:
        self.waits.append(seconds)
        self.t += seconds


def test_no_gpu_on_this_machine_is_reported_not_raised():
    monitor = UtilizationMonitor(hz=20)
    status = monitor.start()
    samples_taken(monitor, 2)
    if status.available:
        pytest.skip("this machine has a GPU")
    assert status.reason.startswith("no GPU")
    assert status.devices == []
    summary = monitor.summary([Window(monitor.times[0], monitor.times[-1])])
    assert summary["gpu"] is False
    assert "gpu_util_mean" not in summary
    # The CPU is still sampled.
    assert len(monitor.times) >= 2
    assert summary["process_cores"] is not None and summary["process_cores"] >= 0


def test_pynvml_is_imported_lazily():
    code = (
        "import sys, boardq.commands.bench, boardq.benchmark.gpu; "
        "assert 'pynvml' not in sys.modules and 'tensorflow' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_missing_package_means_no_gpu():
    def loader():
        raise ImportError("No module named 'pynvml'")

    monitor = UtilizationMonitor(nvml_loader=loader)
    status = monitor.start()
    monitor.stop()
    assert not status.available and "pynvml is not installed" in status.reason


def test_nvml_error_means_no_gpu():
    nvml = FakeNVML(fail_init=True)
    monitor = UtilizationMonitor(nvml_loader=lambda: nvml)
    status = monitor.start()
    monitor.stop()
    assert not status.available
    assert "Driver Not Loaded" in status.reason


def test_no_device_means_no_gpu_and_nvml_is_shut_down():
    nvml = FakeNVML(count=0)
    monitor = UtilizationMonitor(nvml_loader=lambda: nvml)
    status = monitor.start()
    monitor.stop()
    assert not status.available and "no device" in status.reason
    assert nvml.shutdowns == 1


def test_gpu_samples_are_summarised_over_the_window():
    nvml = FakeNVML()
    monitor = UtilizationMonitor(hz=10, nvml_loader=lambda: nvml, cpu_count=2)
    status = monitor._open_nvml()
    monitor.status = status
    assert status.available
    assert [d["name"] for d in status.devices] == ["Fake GPU 0", "Fake GPU 1"]
    assert status.devices[0]["memory_total_mb"] == pytest.approx(16 * 1024)
    for _ in range(3):  # reads 10, 20, 20 on device 0 and 80, 90, 90 on device 1
        monitor.sample()
    monitor.stop()
    assert nvml.shutdowns == 1
    everything = Window(monitor.times[0], monitor.times[-1])
    summary = monitor.summary([everything])
    # The busiest device is reported; every device's mean is kept.
    assert summary["gpu_device"] == 1
    assert summary["gpu_util_mean"] == pytest.approx((80 + 90 + 90) / 3)
    assert summary["gpu_util_max"] == 90
    assert summary["gpu_mem_util_mean"] == pytest.approx((40 + 45 + 45) / 3)
    assert summary["gpu_mem_used_mb_max"] == pytest.approx(2 * 1024)
    assert summary["gpu_samples"] == 3
    assert summary["gpu_devices"][0]["util_mean"] == pytest.approx(50 / 3)
    # Only samples inside the window count.
    late = Window(monitor.times[1], monitor.times[-1])
    assert monitor.summary([late])["gpu_util_mean"] == pytest.approx(90.0)


def test_a_failed_read_leaves_a_gap():
    nvml = FakeNVML(count=1, util={0: [50]})
    monitor = UtilizationMonitor(nvml_loader=lambda: nvml)
    monitor.status = monitor._open_nvml()
    monitor.sample()

    def broken(handle):
        raise FakeNVMLError("GPU is lost")

    nvml.nvmlDeviceGetUtilizationRates = broken
    monitor.sample()
    assert monitor.device_series(0) == [50.0, None]
    summary = monitor.summary([Window(monitor.times[0], monitor.times[-1])])
    assert summary["gpu_util_mean"] == 50.0 and summary["gpu_samples"] == 1


def test_sampling_rate_is_at_least_ten_per_second():
    nvml, stepped = FakeNVML(count=1, util={0: [30]}), Stepped()
    monitor = UtilizationMonitor(nvml_loader=lambda: nvml, clock=stepped.clock)  # default rate
    assert monitor.hz >= 10
    monitor.start()
    samples_taken(monitor, 6)
    # The thread waits a tenth of a second (or less) between samples, by its clock: the
    # first sample at the start, then one after each wait, until stopped.
    period = stepped.waits[0]
    assert period == pytest.approx(1 / monitor.hz) and period <= 0.1
    assert set(stepped.waits) == {period}
    assert monitor.times[:6] == pytest.approx([100.0 + i * period for i in range(6)])
    assert monitor.device_series(0)[:6] == [30.0] * 6
    assert nvml.shutdowns == 1


def test_read_proc_stat(tmp_path):
    stat = tmp_path / "stat"
    # user nice system idle iowait irq softirq steal
    stat.write_text("cpu  100 0 50 800 50 0 0 0\ncpu0 1 2 3 4\n")
    busy, total = read_proc_stat(str(stat))
    assert (busy, total) == (150.0, 1000.0)
    assert read_proc_stat(str(tmp_path / "missing")) is None


def test_nvml_bindings_come_with_boardq():
    """The README's install brings nvidia-ml-py, so a GPU machine is read at once."""
    from importlib.metadata import requires

    import pynvml

    assert hasattr(pynvml, "nvmlInit")
    assert any(r.startswith("nvidia-ml-py") and "extra" not in r for r in requires("boardq"))
