"""Gomoku (9x9, five in a row): OpenSpiel's `gomoku` through Shimmy, its preset, rules, text."""

from __future__ import annotations

import numpy as np

from boardq.config import NetworkConfig, TrainConfig
from boardq.symmetry import DIHEDRAL, board_symmetries
from games.game import Game, OpenSpielGame
from games.gomoku.env import SPEC, make_env
from games.gomoku.rules import RULES, SIZE
from games.gomoku.text import TEXT

__all__ = ["GAME", "PRESET"]

PRESET = TrainConfig(
    game="gomoku",
    games_per_thread=64,
    replay_capacity=500_000,
    warmup_transitions=20_000,
    replay_ratio=8.0,
    batch_size=256,
    learning_rate=5e-4,
    discount=0.99,
    tau=0.005,
    epsilon_start=1.0,
    epsilon_end=0.05,
    epsilon_decay_transitions=1_500_000,
    budget_minutes=60.0,
    eval_every_sec=180.0,
    eval_ladder="random,winblock,line",
    keep_agent_every_sec=300.0,
    network=NetworkConfig(hidden_units=(512, 256)),
)

GAME = Game(
    name="gomoku",
    title="Gomoku",
    env_id=f"openspiel:{SPEC}",
    obs_shape=(SIZE, SIZE, 2),
    num_actions=SIZE * SIZE,
    preset=PRESET,
    rules=RULES,
    text=TEXT,
    # Point (r, c) is action 9r + c; lines stay lines in all 8 images of the square.
    symmetries=board_symmetries(DIHEDRAL, np.arange(SIZE * SIZE).reshape(SIZE, SIZE)),
    openspiel=OpenSpielGame(SPEC, tuple(range(SIZE * SIZE))),
    env_maker=make_env,
    players=("winblock", "line"),
)
