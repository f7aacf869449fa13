"""`boardq train` as a user runs it: bad input, its settings, Ctrl-C and SIGTERM, and a
ladder evaluation ended with its run. Kill, resume and a full disk: test_train_resume.py.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time

import pytest
from cli_runs import FAST, boardq, command_lines, one_line_error, run_dir, start, wait_for


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
        (
            ["train", "connect_four", "--ownership-targets", "true"],
            1,
            ["ownership_targets needs", "connect_four"],
        ),
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
        re.search(rf"^{re.escape(g)}", r.stdout, flags=re.M).start()
        for g in ("algorithm (", "replay and input", "performance (", "run (", "network (")
    ]  # each at the start of its line: a help text may name a group too
    assert headings == sorted(headings)


@pytest.mark.parametrize(
    ("sent", "code"),
    [
        ((signal.SIGINT,), 130),
        ((signal.SIGTERM,), 143),
        ((signal.SIGINT, signal.SIGINT, signal.SIGINT), 130),
        ((signal.SIGTERM, signal.SIGINT), 143),
    ],
    ids=["ctrl-c", "sigterm", "ctrl-c-again-while-it-saves", "sigterm-then-ctrl-c"],
)
def test_ctrl_c_or_sigterm_saves_a_loadable_checkpoint_and_exits_128_plus_signal(
    tmp_path, sent, code
):
    """Ctrl-C, or SIGTERM as `kill` and job schedulers send it, stops and saves the run.

    Signals after the first (Ctrl-C pressed again; `timeout -s INT`, which signals the
    command and then its process group) do not cut the save short: the exit code is the
    first one's. (Two signals that arrive before the first one's handler runs count as
    one; `test_a_second_stop_signal_is_ignored_with_one_line` holds the handler itself.)
    """
    proc = start("train", "tictactoe", *FAST, "--budget-minutes", "10", "--out-dir", str(tmp_path))
    try:
        metrics = lambda: list(tmp_path.glob("tictactoe/*/metrics.jsonl"))  # noqa: E731
        assert wait_for(lambda: metrics() and '"train_steps": ' in metrics()[0].read_text())
        assert wait_for(
            lambda: any(
                json.loads(x)["train_steps"] > 0 for x in metrics()[0].read_text().splitlines()
            )
        )
        for i, signum in enumerate(sent):
            time.sleep(0.05 if i else 0)  # while the run stops and saves (it takes longer)
            proc.send_signal(signum)
        out, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == code, err
    assert "Traceback" not in err
    run = run_dir(tmp_path)
    assert "interrupted: stopping threads and saving a checkpoint" in out
    assert "resume with: boardq train tictactoe --resume" in out
    from boardq.players.agent import Agent

    agent = Agent.load(run)
    assert agent.info["train_step"] > 0
    assert (run / "checkpoints" / "checkpoint").exists()


@pytest.mark.parametrize("first", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_a_second_stop_signal_is_ignored_with_one_line(first, capsys):
    from boardq.commands.train import stop_once

    before = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    with stop_once() as stops:
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), first)
            time.sleep(5)  # the handler runs in this thread at once; not reached
        for again in (signal.SIGINT, signal.SIGTERM, signal.SIGINT):
            os.kill(os.getpid(), again)  # would end the save; ignored
        time.sleep(0.01)  # the handler runs between two bytecodes of this thread
    assert stops == [first, signal.SIGINT, signal.SIGTERM, signal.SIGINT]
    err = capsys.readouterr().err
    assert err.count("already stopping") == 1, err
    assert f"kill -9 {os.getpid()}" in err
    assert {s: signal.getsignal(s) for s in before} == before  # the old handlers are back


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
