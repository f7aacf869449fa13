"""Run directories: atomic writes, new directories, stored settings, the lock."""

from __future__ import annotations

import json
import os
import stat

import pytest

from boardq.config import TrainConfig
from boardq.errors import RunDirError
from boardq.rundir import (
    RunLock,
    atomic_write_text,
    new_run_dir,
    read_run_config,
)


def test_atomic_write_replaces_whole_files_with_the_usual_mode(tmp_path):
    path = tmp_path / "f.json"
    atomic_write_text(path, "one")
    atomic_write_text(path, "two")
    assert path.read_text() == "two"
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~umask
    assert [p.name for p in tmp_path.iterdir()] == ["f.json"]  # no temporary left


def test_new_run_dirs_never_collide(tmp_path):
    made = {new_run_dir(tmp_path, "tictactoe") for _ in range(3)}
    assert len(made) == 3 and all(p.parent == tmp_path / "tictactoe" for p in made)


def test_read_run_config_round_trips_and_names_what_is_wrong(tmp_path):
    cfg = TrainConfig(budget_steps=5, batch_size=32)
    (tmp_path / "config.json").write_text(cfg.to_json())
    assert read_run_config(tmp_path) == cfg
    with pytest.raises(RunDirError, match="does not exist"):
        read_run_config(tmp_path / "missing")
    (tmp_path / "config.json").write_text(json.dumps({"bogus": 1}))
    with pytest.raises(RunDirError, match="bogus"):
        read_run_config(tmp_path)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(RunDirError, match="not a boardq run directory"):
        read_run_config(empty)


def test_the_run_lock_is_exclusive_until_released(tmp_path):
    first = RunLock(tmp_path)
    with pytest.raises(RunDirError, match=f"in use by another training \\(pid {os.getpid()}\\)"):
        RunLock(tmp_path)
    first.release()
    first.release()  # twice is fine
    second = RunLock(tmp_path)
    second.release()
