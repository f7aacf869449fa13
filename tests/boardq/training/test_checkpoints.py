"""Checkpoints are whole or absent: names, commits, sweeps, the writer thread, full disks."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest
import tensorflow as tf

from boardq.training.checkpoints import (
    CheckpointStore,
    CheckpointWriteError,
    SaveWriter,
    disk_full_error,
)


@pytest.fixture
def store(tmp_path) -> CheckpointStore:
    """A store over a real checkpoint of one variable; its folder not made yet."""
    return CheckpointStore(tmp_path / "checkpoints", tf.train.Checkpoint(v=tf.Variable(1.0)))


def test_a_second_checkpoint_at_the_same_step_gets_the_next_free_name(store):
    first = store.write_networks(5)  # also makes the folder
    store.commit(first)
    again = store.write_networks(5)  # the folder is there now
    store.commit(again)
    third = store.write_networks(5)
    assert [first.name, again.name, third.name] == ["ckpt-5", "ckpt-5.1", "ckpt-5.2"]
    assert store.committed() == ["ckpt-5", "ckpt-5.1"]


def test_a_network_write_that_fails_says_why_and_which_checkpoint_stands(store):
    store.commit(store.write_networks(5))
    # TensorFlow writes its shards in ckpt-7_temp/: a file there makes the write fail.
    store.directory.joinpath("ckpt-7_temp").write_text("in the way")
    with pytest.raises(CheckpointWriteError) as failed:
        store.write_networks(7)
    message = str(failed.value)
    assert message.startswith(f"cannot write checkpoint ckpt-7 in {store.directory}: ")
    assert "Not a directory" in message and "\n" not in message
    assert message.endswith("; the last good checkpoint, ckpt-5, stands")
    assert store.latest() == store.directory / "ckpt-5"


def test_a_failure_before_any_commit_says_none_was_kept(store):
    error = OSError(errno.ENOSPC, "No space left on device")
    assert store.failure("ckpt-3", error) == (
        f"cannot write checkpoint ckpt-3 in {store.directory}: No space left on device; "
        "none was kept"
    )


def test_a_commit_that_cannot_write_the_state_file_says_why(store):
    prefix = store.write_networks(8)
    store.directory.joinpath("checkpoint", "in-the-way").mkdir(parents=True)
    with pytest.raises(CheckpointWriteError) as failed:
        store.commit(prefix)
    message = str(failed.value)
    assert message.startswith(f"cannot write checkpoint ckpt-8 in {store.directory}: ")
    assert "Is a directory" in message


def test_a_commit_removes_what_uncommitted_checkpoints_left_and_keeps_the_newest(tmp_path):
    store = CheckpointStore(
        tmp_path / "checkpoints", tf.train.Checkpoint(v=tf.Variable(1.0)), keep=2
    )
    for step in (1, 2):
        store.commit(store.write_networks(step))
    # What a crash leaves: the files of a checkpoint never committed, TensorFlow's
    # unfinished shards, a half-written replay file.
    store.write_networks(9)
    folder = store.directory
    folder.joinpath("ckpt-10_temp").mkdir()
    folder.joinpath("ckpt-10_temp", "part-00000-of-00001.data-00000-of-00001").write_text("x")
    folder.joinpath(".ckpt-10.replay.abc.tmp").write_text("x")
    store.commit(store.write_networks(3))
    names = sorted(p.name for p in folder.iterdir())
    assert names == [
        "checkpoint",
        "ckpt-2.data-00000-of-00001",
        "ckpt-2.index",
        "ckpt-3.data-00000-of-00001",
        "ckpt-3.index",
    ]
    assert store.committed() == ["ckpt-2", "ckpt-3"]


def _failing_job(hold) -> None:
    hold()
    raise OSError(errno.ENOSPC, "No space left on device")


def test_a_background_save_hands_its_error_to_the_run():
    errors: list[BaseException] = []
    writer = SaveWriter(on_error=errors.append)
    writer.run(_failing_job, wait=False)  # returns at once: the error cannot be raised here
    writer.wait()
    assert [e.errno for e in errors] == [errno.ENOSPC]


def test_a_save_waited_for_raises_its_error_in_the_caller_only():
    errors: list[BaseException] = []
    writer = SaveWriter(on_error=errors.append)
    with pytest.raises(OSError, match="No space left on device"):
        writer.run(_failing_job, wait=True)
    assert errors == []  # the caller handles it; the run is not told twice
    done: list[int] = []
    writer.run(lambda hold: done.append(1), wait=True)  # the next save goes on
    assert done == [1] and writer.saves == 2


@pytest.mark.parametrize(
    ("error", "reason"),
    [
        (OSError(errno.ENOSPC, "No space left on device"), "No space left on device"),
        (OSError(errno.EDQUOT, "Disk quota exceeded"), "Disk quota exceeded"),
        (
            tf.errors.ResourceExhaustedError(None, None, "x.tempstate1; No space left on device"),
            "No space left on device",
        ),
    ],
    ids=["ENOSPC", "EDQUOT", "tensorflow"],
)
def test_a_full_disk_is_one_line_that_names_the_checkpoint_that_stands(error, reason):
    run = Path("runs/tictactoe/1")
    assert str(disk_full_error(error, run, run / "checkpoints" / "ckpt-40")) == (
        f"cannot write to {run}: {reason}; the run stopped and its last good checkpoint, "
        "ckpt-40, stands"
    )
    assert str(disk_full_error(error, run, None)).endswith("the run stopped and it kept none")


def test_other_errors_are_not_a_full_disk():
    run = Path("runs/tictactoe/1")
    assert disk_full_error(OSError(errno.EACCES, "Permission denied"), run, None) is None
    assert disk_full_error(tf.errors.NotFoundError(None, None, "gone"), run, None) is None
    assert disk_full_error(ValueError("No space left on device"), run, None) is None
