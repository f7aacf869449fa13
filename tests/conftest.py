"""Shared fixtures: quiet TensorFlow, small configs, scripted players."""

from __future__ import annotations

import os
import signal

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

# Started in the background by a shell without job control (`pytest ... &`), the suite
# inherits Ctrl-C ignored, and so would every command it starts: the Ctrl-C checks
# would then test nothing a user sees. A handler (unlike "ignore") is not inherited
# across exec, so this gives every child the default, as at a terminal.
signal.signal(signal.SIGINT, signal.default_int_handler)

MARKS = ("slow", "perf")
"""The markers of checks that run only when asked for (`pytest -m slow`, `-m perf`)."""

MAX_WORKERS = 4
"""More workers than this gain little: the longest test file takes about two minutes
alone, and each worker holds its own TensorFlow and starts its own `boardq` processes."""


def pytest_xdist_auto_num_workers(config):
    """How many processes `-n auto` (pyproject's default) runs the chosen tests in.

    One a core, at most `MAX_WORKERS`, when only the default checks are chosen: most of
    their time is `boardq` child processes importing TensorFlow, which overlap well. None
    (in this process) when the marker expression chooses slow or perf checks: the slow
    ones train against the clock to a preset's figures and the perf ones time code, so
    both want the machine to themselves.
    """
    from _pytest.mark.expression import Expression

    if not config.option.markexpr:  # no marker expression: every check, slow ones too
        return 0
    chosen = Expression.compile(config.option.markexpr)
    if any(chosen.evaluate(lambda name, mark=mark, **_: name == mark) for mark in MARKS):
        return 0
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, min(cores or 1, MAX_WORKERS))


@pytest.fixture
def tiny_config(tmp_path):
    """A tic-tac-toe config that trains for a few seconds."""
    return tiny_settings(tmp_path)


@pytest.fixture(scope="session")
def tiny_settings_for():
    """`tiny_settings_for(path)`: `tiny_config`'s settings, for fixtures of a wider scope."""
    return tiny_settings


def tiny_settings(tmp_path):
    """The `tiny_config` fixture's settings, runs written under `tmp_path`."""
    from boardq_games import get_game

    return get_game("tictactoe").preset.replace(
        actor_threads=2,
        games_per_thread=8,
        warmup_transitions=256,
        replay_capacity=20_000,
        batch_size=64,
        budget_steps=60,
        budget_minutes=0.0,
        eval_games=0,
        log_every_sec=0.5,
        checkpoint_every_sec=3600.0,
        out_dir=str(tmp_path / "runs"),
        hidden_units=(32,),
    )


def _random_batch(game, n, seed):
    """n transitions of random columns in the batch schema's dtypes (not real games)."""
    rng = np.random.default_rng(seed)
    return {
        "obs": rng.integers(0, 2, (n, *game.obs_shape)).astype(np.int8),
        "action": rng.integers(0, game.num_actions, n).astype(np.int16),
        "reward": rng.standard_normal(n).astype(np.float32),
        "discount": rng.random(n).astype(np.float32),
        "next_obs": rng.integers(0, 2, (n, *game.obs_shape)).astype(np.int8),
        "next_mask": rng.random((n, game.num_actions)) < 0.5,
    }


@pytest.fixture
def random_batch():
    """`random_batch(game, n, seed)`: random columns of n transitions."""
    return _random_batch
