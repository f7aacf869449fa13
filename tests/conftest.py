"""Shared fixtures: quiet TensorFlow, small configs, scripted players."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


@pytest.fixture
def tiny_config(tmp_path):
    """A tic-tac-toe config that trains for a few seconds."""
    from games import get_game

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
