"""`boardq train` stopped and carried on: kill and resume, a run in use, SIGTERM and its
replay, kill -9 while a checkpoint is written, and a full disk.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from cli_runs import FAST, boardq, one_line_error, run_dir, start, wait_for


def test_kill_and_resume_continues_from_the_checkpoint_step(tmp_path):
    proc = start(
        "train", "tictactoe", *FAST, "--budget-minutes", "10",
        "--checkpoint-every-sec", "1", "--out-dir", str(tmp_path),
    )  # fmt: skip
    try:
        ckpt = lambda: list(tmp_path.glob("tictactoe/*/checkpoints/ckpt-*.index"))  # noqa: E731
        assert wait_for(lambda: len(ckpt()) >= 2)
    finally:
        proc.kill()  # no chance to save anything more
        proc.wait()
    run = run_dir(tmp_path)
    saved_step = _committed_step(run)
    assert saved_step > 0
    target = saved_step + 30
    before = len((run / "metrics.jsonl").read_text().splitlines())
    r = boardq("train", "tictactoe", "--resume", str(run), "--budget-steps", str(target))
    assert r.returncode == 0, r.stderr
    assert "resuming Tic-tac-toe" in r.stdout
    lines = (run / "metrics.jsonl").read_text().splitlines()[before:]
    updates = [json.loads(x)["train_steps"] for x in lines]
    # The resumed run starts at the checkpoint's step and reaches the new budget.
    assert updates and updates[0] >= saved_step and updates[-1] >= target
    assert updates == sorted(updates)
    assert f"finished: {updates[-1]:,} train steps" in r.stdout
    assert f"agent: {run / 'agent.npz'}" in r.stdout
    best = f"best agent by the evaluation ladder: {run / 'best-agent.npz'}"
    assert (best in r.stdout) == (run / "best-agent.npz").exists()
    assert json.loads((run / "config.json").read_text())["budget_steps"] == target


def test_a_second_training_on_a_run_in_use_refuses_with_one_line(tmp_path):
    proc = start("train", "tictactoe", *FAST, "--budget-minutes", "10", "--out-dir", str(tmp_path))
    try:
        metrics = lambda: list(tmp_path.glob("tictactoe/*/metrics.jsonl"))  # noqa: E731
        assert wait_for(lambda: metrics() and '"train_steps": ' in metrics()[0].read_text())
        run = run_dir(tmp_path)
        config = (run / "config.json").read_text()
        second = boardq("train", "tictactoe", "--resume", str(run), "--budget-minutes", "1")
        one_line_error(second, 1, "in use by another training", f"pid {proc.pid}")
        assert (run / "config.json").read_text() == config  # nothing written
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 130
    # Once the first has ended, the run can be resumed.
    third = boardq("train", "tictactoe", *FAST, "--resume", str(run), "--budget-steps", "8")
    assert third.returncode == 0, third.stderr


def _committed_step(run: Path) -> int:
    """The train step of the run's newest committed checkpoint (ckpt-STEP or ckpt-STEP.K)."""
    import tensorflow as tf

    name = Path(tf.train.latest_checkpoint(str(run / "checkpoints"))).name
    return int(name.split("-")[1].split(".")[0])


def _rows(run: Path) -> list[dict]:
    return [json.loads(x) for x in (run / "metrics.jsonl").read_text().splitlines()]


def _steps_so_far(metrics: Path) -> int:
    """The train steps of the last whole line of a metrics file being written."""
    lines = [x for x in metrics.read_text().split("\n")[:-1] if x.strip()]
    return json.loads(lines[-1])["train_steps"] if lines else 0


def _saved_replay_size(run: Path) -> int:
    """Transitions in the replay file of the newest committed checkpoint."""
    import tensorflow as tf

    from boardq.dqn.replay_file import ReplayFileReader

    prefix = tf.train.latest_checkpoint(str(run / "checkpoints"))
    with ReplayFileReader(prefix + ".replay") as reader:
        return reader.shape("replay/obs")[0]


def test_a_run_stopped_by_sigterm_resumes_with_its_replay_and_no_warm_up(tmp_path):
    proc = start("train", "tictactoe", *FAST, "--budget-minutes", "10", "--out-dir", str(tmp_path))
    try:
        metrics = lambda: list(tmp_path.glob("tictactoe/*/metrics.jsonl"))  # noqa: E731
        assert wait_for(lambda: metrics() and _steps_so_far(metrics()[0]) > 200)
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 143
    run = run_dir(tmp_path)
    before = _rows(run)
    stopped = before[-1]
    assert stopped["replay_size"] == _saved_replay_size(run) > 256
    r = boardq(
        "train", "tictactoe", *FAST, "--resume", str(run),
        "--budget-steps", str(stopped["train_steps"] + 100),
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert f"replay restored: {stopped['replay_size']:,} transitions, no warm-up" in r.stdout
    resumed = _rows(run)[len(before) :]
    # The first row of the resumed run is where the stopped one ended ...
    assert resumed[0]["replay_size"] == stopped["replay_size"]
    assert resumed[0]["train_steps"] == stopped["train_steps"]
    # ... and it trains at once, with no warm-up to collect (the first run had one).
    assert before[0]["warmup_left"] == 256
    assert [row["warmup_left"] for row in resumed] == [0] * len(resumed)
    steps = [row["train_steps"] for row in resumed]
    assert steps == sorted(steps) and steps[-1] == stopped["train_steps"] + 100


def test_kill_9_while_a_checkpoint_is_written_leaves_the_previous_one(tmp_path):
    """A save held in the middle of its replay file (BOARDQ_HOLD_SAVE) is killed."""
    held = tmp_path / "held"
    proc = start(
        "train", "tictactoe", *FAST, "--budget-minutes", "10",
        "--checkpoint-every-sec", "1", "--out-dir", str(tmp_path / "runs"),
        env={"BOARDQ_HOLD_SAVE": f"2,{held}"},
    )  # fmt: skip
    try:
        assert wait_for(held.exists)
    finally:
        proc.kill()  # kill -9 in the middle of the second save's replay file
        proc.wait()
    (run,) = (tmp_path / "runs" / "tictactoe").iterdir()
    folder = run / "checkpoints"
    # The second save's networks were written and its replay file begun, not committed:
    # the first checkpoint is still the newest, with its own whole replay file.
    assert len(list(folder.glob("ckpt-*.index"))) == 2
    assert len(list(folder.glob(".ckpt-*.replay.*.tmp"))) == 1
    assert len(list(folder.glob("ckpt-*.replay"))) == 1
    saved = _saved_replay_size(run)
    step = _committed_step(run)
    r = boardq("train", "tictactoe", *FAST, "--resume", str(run), "--budget-steps", str(step + 40))
    assert r.returncode == 0, r.stderr
    assert f"replay restored: {saved:,} transitions" in r.stdout or saved == 0
    # The next commit cleared what the killed save left.
    assert list(folder.glob(".ckpt-*.tmp")) == []
    assert len(list(folder.glob("ckpt-*.index"))) == len(list(folder.glob("ckpt-*.replay")))


@dataclass
class FullDisk:
    """Where a run writes, how to start it there, and how to make that disk full and free."""

    root: Path
    command: list[str]
    fill: Callable[[], None]
    free: Callable[[], None]


# `boardq train` whose checkpoint writes fail as on a full disk (ENOSPC) while FLAG exists.
INJECTED_FULL_DISK = """
import errno, os, runpy, sys
from boardq._quiet import import_tensorflow_quietly
import_tensorflow_quietly()
import tensorflow as tf
flag = sys.argv.pop(1)
write = tf.train.Checkpoint.write
def write_unless_full(self, *args, **kwargs):
    if os.path.exists(flag):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    return write(self, *args, **kwargs)
tf.train.Checkpoint.write = write_unless_full
sys.argv[0] = "boardq"
runpy.run_module("boardq", run_name="__main__")
"""


@pytest.fixture
def full_disk(tmp_path):
    """A disk that fills up: a real 24 MB tmpfs where one can be mounted (root or
    CAP_SYS_ADMIN); elsewhere a run whose checkpoint writes fail with ENOSPC once told."""
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=24m", "tmpfs", str(disk)],
        capture_output=True, text=True,
    )  # fmt: skip
    if mounted.returncode != 0:
        flag = tmp_path / "full"
        helper = tmp_path / "full_disk.py"
        helper.write_text(INJECTED_FULL_DISK)
        yield FullDisk(disk, [sys.executable, str(helper), str(flag)], flag.touch, flag.unlink)
        return
    try:
        yield FullDisk(
            disk, [sys.executable, "-m", "boardq"], lambda: _fill(disk), (disk / "filler").unlink
        )
    finally:
        subprocess.run(["umount", "-l", str(disk)], capture_output=True)


def _fill(disk: Path) -> None:
    """Writes zeros into the disk until it is full."""
    fd = os.open(disk / "filler", os.O_WRONLY | os.O_CREAT)
    try:
        while True:
            os.write(fd, bytes(1 << 16))
    except OSError as e:
        assert e.errno == 28  # ENOSPC
    finally:
        os.close(fd)
    try:  # and the last few bytes
        while True:
            with open(disk / "filler", "ab", buffering=0) as f:
                f.write(bytes(512))
    except OSError:
        pass


def test_a_full_disk_stops_the_run_with_one_line_and_keeps_the_last_checkpoint(full_disk):
    disk = full_disk.root
    proc = subprocess.Popen(
        [*full_disk.command, "train", "tictactoe", *FAST, "--budget-minutes", "10",
         "--checkpoint-every-sec", "1", "--out-dir", str(disk)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"},
    )  # fmt: skip
    try:
        state = lambda: list(disk.glob("tictactoe/*/checkpoints/checkpoint"))  # noqa: E731
        assert wait_for(state)
        full_disk.fill()
        out, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 1, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    assert "No space left on device" in lines[0] and "stands" in lines[0], lines[0]
    (run,) = (disk / "tictactoe").iterdir()
    saved = _saved_replay_size(run)  # the committed checkpoint's replay file is whole
    full_disk.free()
    step = _committed_step(run)
    r = boardq("train", "tictactoe", *FAST, "--resume", str(run), "--budget-steps", str(step + 40))
    assert r.returncode == 0, r.stderr
    assert f"replay restored: {saved:,} transitions" in r.stdout or saved == 0
