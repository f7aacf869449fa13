"""`boardq train --config FILE`: a run's settings from a file, options over them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from boardq.config import ConfigError, TrainConfig
from boardq.rundir import read_settings_file
from boardq_games import get_game


def boardq(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
    return subprocess.run(
        [sys.executable, "-m", "boardq", *args],
        capture_output=True, text=True, timeout=240, env=env, cwd=cwd,
    )  # fmt: skip


def shown(*args: str) -> dict:
    r = boardq("train", *args, "--show-config")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_a_runs_config_json_gives_the_settings_and_options_override_it(tmp_path):
    preset = get_game("connect_four").preset
    written = preset.replace(batch_size=128, tau=0.02, hidden_units=(64, 32), seed=7)
    (tmp_path / "config.json").write_text(written.to_json())
    # The game comes from the file when it is not named.
    got = shown("--config", str(tmp_path / "config.json"), "--seed", "9")
    assert TrainConfig.from_dict(got) == written.replace(seed=9)
    assert shown("connect_four", "--config", str(tmp_path / "config.json"))["seed"] == 7


def test_a_toml_file_with_some_settings_keeps_the_preset_for_the_rest(tmp_path):
    path = tmp_path / "quick.toml"
    path.write_text(
        'game = "tictactoe"\nbatch_size = 32\nlearning_rate = 1\n[network]\nhidden_units = [16]\n'
    )
    got = TrainConfig.from_dict(shown("--config", str(path)))
    preset = get_game("tictactoe").preset
    assert got == preset.replace(batch_size=32, learning_rate=1.0, hidden_units=(16,))


def test_a_run_started_from_a_file_writes_those_settings(tmp_path):
    path = tmp_path / "tiny.toml"
    path.write_text(
        "budget_steps = 30\nbudget_minutes = 0.0\nwarmup_transitions = 256\nbatch_size = 32\n"
        "games_per_thread = 8\nactor_threads = 1\neval_games = 0\n"
        "[network]\nhidden_units = [16]\n"
    )
    r = boardq("train", "tictactoe", "--config", str(path), "--out-dir", str(tmp_path / "runs"))
    assert r.returncode == 0, r.stderr
    (config_json,) = (tmp_path / "runs").glob("tictactoe/*/config.json")
    written = TrainConfig.from_dict(json.loads(config_json.read_text()))
    assert (written.budget_steps, written.batch_size, written.network.hidden_units) == (
        30, 32, (16,),
    )  # fmt: skip


@pytest.mark.parametrize(
    ("text", "suffix", "words"),
    [
        ('{"batch_size": "many"}', ".json", ["batch_size must be a whole number", "'many'"]),
        (
            '{"bogus": 1, "network": {"wide": 2}}',
            ".json",
            ["unknown settings: bogus, network.wide"],
        ),
        ('{"game": "connect_four"}', ".json", ["is for connect_four, not for tictactoe"]),
        ('{"game": "tictactoe"', ".json", ["is not valid JSON"]),
        ("[1, 2]", ".json", ["does not hold a table of settings"]),
        ("batch_size = = 3", ".toml", ["is not valid TOML"]),
        ("learning_rate = -1.0", ".toml", ["learning_rate"]),
        ('network = "wide"', ".toml", ["network must be a table"]),
        ("eval_symmetric = 1", ".toml", ["eval_symmetric must be true or false"]),
    ],
)
def test_a_bad_file_is_one_clear_line(tmp_path, text, suffix, words):
    path = tmp_path / f"settings{suffix}"
    path.write_text(text)
    r = boardq("train", "tictactoe", "--config", str(path), "--show-config")
    assert r.returncode == 1, r.stdout + r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    for word in words:
        assert word in lines[0]


def test_config_and_resume_together_and_no_game_at_all_are_refused(tmp_path):
    (tmp_path / "c.json").write_text("{}")
    for args, words in [
        (["--config", str(tmp_path / "c.json"), "--resume", str(tmp_path)], "--config starts"),
        ([], "name the game to train"),
        (["--config", str(tmp_path / "missing.json")], "does not exist"),
    ]:
        r = boardq("train", *args)
        assert r.returncode == 1 and words in r.stderr and "Traceback" not in r.stderr


def test_settings_files_are_read_as_json_or_toml(tmp_path):
    (tmp_path / "a.toml").write_text("tau = 0.5\n")
    (tmp_path / "a.json").write_text('{"tau": 0.5}')
    assert read_settings_file(tmp_path / "a.toml") == read_settings_file(tmp_path / "a.json")
    with pytest.raises(ConfigError, match="does not exist"):
        read_settings_file(tmp_path / "b.json")
