"""`boardq train` as a user runs it: bad input, Ctrl-C, SIGTERM, kill and resume."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

FAST = [
    "--actor-threads", "1", "--games-per-thread", "8", "--warmup-transitions", "256",
    "--batch-size", "64", "--hidden-units", "32", "--eval-games", "0",
    "--log-every-sec", "0.5",
]  # fmt: skip


def boardq(*args, **kwargs) -> subprocess.CompletedProcess:
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
    return subprocess.run(
        [sys.executable, "-m", "boardq", *args],
        capture_output=True, text=True, timeout=240, env=env, **kwargs,
    )  # fmt: skip


def start(*args, env: dict[str, str] | None = None, **kwargs) -> subprocess.Popen:
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", **(env or {})}
    return subprocess.Popen(
        [sys.executable, "-m", "boardq", *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, **kwargs,
    )  # fmt: skip


def wait_for(predicate, timeout=120.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.2)
    return False


def command_lines() -> str:
    """Every process's whole command line (-ww: ps cuts them to $COLUMNS otherwise)."""
    return subprocess.run(["ps", "-ww", "-eo", "args="], capture_output=True, text=True).stdout


def one_line_error(result: subprocess.CompletedProcess, code: int, *words: str) -> None:
    assert result.returncode == code, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr
    for word in words:
        assert word in lines[0]


@pytest.mark.parametrize(
    ("args", "code", "words"),
    [
        (["train", "chess"], 1, ["unknown game 'chess'", "tictactoe"]),
        (["train", "tictactoe", "--batch-size", "many"], 2, ["--batch-size", "'many'"]),
        (["train", "tictactoe", "--learning-rate", "-1"], 1, ["learning_rate"]),
        (["train", "tictactoe", "--discount", "2"], 1, ["discount"]),
        (["train", "tictactoe", "--hidden-units", "64,x"], 2, ["--hidden-units"]),
        (["train", "tictactoe", "--bogus"], 2, ["--bogus"]),
        (["train", "tictactoe", "--threads", "2"], 2, ["--threads"]),  # no second names
        (["train", "tictactoe", "--actor-processes", "-1"], 1, ["actor_processes"]),
        (["train", "tictactoe", "--resume", "/no/such/run"], 1, ["does not exist"]),
        (["train", "tictactoe", "--precision", "half"], 2, ["--precision", "'half'", "float32"]),
        (["train", "tictactoe", "--batch-splits", "5"], 1, ["batch_splits (5) must divide"]),
        (["train", "tictactoe", "--resume-without-replay"], 1, ["goes with --resume"]),
        (["train", "go", "--reward-lead", "1.5"], 1, ["reward_lead must be in [0, 1]"]),
        (["train", "tictactoe", "--reward-lead", "0.5"], 1, ["reward_lead needs", "tictactoe"]),
    ],
)
def test_bad_input_is_one_clear_line(args, code, words):
    one_line_error(boardq(*args), code, *words)


def test_resume_of_a_directory_that_is_not_a_run(tmp_path):
    (tmp_path / "config.json").write_text("{not json")
    one_line_error(boardq("train", "tictactoe", "--resume", str(tmp_path)), 1, "cannot read")
    assert (tmp_path / "config.json").read_text() == "{not json"  # nothing overwritten


def test_actor_processes_leave_out_the_presets_pool_and_refuse_an_asked_one():
    r = boardq("train", "connect_four", "--show-config")
    assert r.returncode == 0 and json.loads(r.stdout)["pool_share"] == 0.2, r.stderr
    r = boardq("train", "connect_four", "--actor-processes", "2", "--show-config")
    assert r.returncode == 0, r.stderr
    cfg = json.loads(r.stdout)
    assert cfg["actor_processes"] == 2 and cfg["pool_share"] == 0.0
    asked = boardq("train", "connect_four", "--actor-processes", "2", "--pool-share", "0.2")
    one_line_error(asked, 1, "pool_share needs actor threads")


def test_show_config_applies_options():
    r = boardq("train", "connect_four", "--show-config", "--batch-size", "32", "--tau", "0.1")
    assert r.returncode == 0, r.stderr
    cfg = json.loads(r.stdout)
    assert cfg["game"] == "connect_four" and cfg["batch_size"] == 32 and cfg["tau"] == 0.1


def test_help_lists_every_setting():
    r = boardq("train", "--help")
    assert r.returncode == 0
    for flag in [
        "--actor-threads", "--games-per-thread", "--replay-capacity", "--warmup-transitions",
        "--replay-ratio", "--batch-size", "--learning-rate", "--discount", "--tau",
        "--epsilon-start", "--epsilon-end", "--epsilon-decay-transitions", "--n-step",
        "--budget-steps", "--budget-minutes", "--seed", "--out-dir", "--resume",
    ]:  # fmt: skip
        assert flag in r.stdout
    # Grouped: algorithm, replay and pipeline, performance, run, network, in that order.
    headings = [
        r.stdout.index(g)
        for g in ("algorithm (", "replay and input", "performance (", "run (", "network (")
    ]
    assert headings == sorted(headings)


def _run_dir(out: Path) -> Path:
    runs = sorted((out / "tictactoe").iterdir())
    assert len(runs) == 1
    return runs[0]


@pytest.mark.parametrize(
    ("sent", "code"),
    [(signal.SIGINT, 130), (signal.SIGTERM, 143)],
    ids=["ctrl-c", "sigterm"],
)
def test_ctrl_c_or_sigterm_saves_a_loadable_checkpoint_and_exits_128_plus_signal(
    tmp_path, sent, code
):
    """Ctrl-C, or SIGTERM as `kill` and job schedulers send it, stops and saves the run."""
    proc = start("train", "tictactoe", *FAST, "--budget-minutes", "10", "--out-dir", str(tmp_path))
    try:
        metrics = lambda: list(tmp_path.glob("tictactoe/*/metrics.jsonl"))  # noqa: E731
        assert wait_for(lambda: metrics() and '"train_steps": ' in metrics()[0].read_text())
        assert wait_for(
            lambda: any(
                json.loads(x)["train_steps"] > 0 for x in metrics()[0].read_text().splitlines()
            )
        )
        proc.send_signal(sent)
        out, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == code, err
    assert "Traceback" not in err
    run = _run_dir(tmp_path)
    assert "interrupted: stopping threads and saving a checkpoint" in out
    assert "resume with: boardq train tictactoe --resume" in out
    from boardq.players.agent import Agent

    agent = Agent.load(run)
    assert agent.info["train_step"] > 0
    assert (run / "checkpoints" / "checkpoint").exists()


def start_during_an_evaluation(tmp_path, **kwargs) -> tuple[subprocess.Popen, str]:
    """A training run, once its evaluation ladder runs; and the candidate agent's path,
    which is on the evaluation's command line."""
    proc = start(
        "train", "tictactoe", *FAST, "--budget-minutes", "10", "--out-dir", str(tmp_path),
        "--eval-games", "400", "--eval-ladder", "random,perfect", "--eval-every-sec", "1",
        **kwargs,
    )  # fmt: skip
    try:
        candidate = lambda: list(tmp_path.glob("tictactoe/*/.ladder-agent.npz"))  # noqa: E731
        assert wait_for(candidate)
        path = str(candidate()[0])
        assert wait_for(lambda: path in command_lines())  # 400 games a seat take a while
    except BaseException:
        proc.kill()
        raise
    return proc, path


def test_ctrl_c_at_a_terminal_during_a_ladder_evaluation_exits_130_and_ends_it(tmp_path):
    """Ctrl-C at a terminal signals the whole foreground process group."""
    # Its own process group stands in for the terminal's.
    proc, path = start_during_an_evaluation(tmp_path, start_new_session=True)
    try:
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "ladder failed" not in err, err
    assert "resume with: boardq train tictactoe --resume" in out
    assert path not in command_lines()  # no evaluation outlives the run


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="parent-death signal: Linux")
def test_a_killed_run_takes_its_ladder_evaluation_with_it(tmp_path):
    proc, path = start_during_an_evaluation(tmp_path)
    try:
        proc.kill()  # kill -9: the run cannot clean up
        proc.communicate(timeout=60)
    finally:
        proc.kill()
    # The evaluation dies by its parent-death signal; it runs at nice 19, so on a busy machine
    # even its exit waits for the CPU: 60 s only guards against a hang.
    assert wait_for(lambda: path not in command_lines(), timeout=60)


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
    run = _run_dir(tmp_path)
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
        run = _run_dir(tmp_path)
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


def test_a_precision_this_chip_cannot_run_falls_back_to_float32_with_one_line(tmp_path):
    from boardq.dqn.chip import detect_chip

    chip = detect_chip()
    lacking = [p for p in ("bfloat16", "float16") if chip.units(p) is None]
    if not lacking:
        pytest.skip(f"{chip.describe()} runs both 16-bit precisions natively")
    asked = lacking[-1]
    result = boardq(
        "train", "tictactoe", *FAST, "--budget-steps", "40", "--precision", asked,
        "--out-dir", str(tmp_path),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    said = [line for line in result.stdout.splitlines() if line.startswith("precision ")]
    assert len(said) == 1, result.stdout
    assert said[0].startswith(f"precision {asked}: {chip.describe()} has no ")
    assert said[0].endswith("; training in float32")


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
    run = _run_dir(tmp_path)
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
