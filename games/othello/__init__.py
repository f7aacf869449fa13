"""Othello: OpenSpiel's `othello` through Shimmy, its preset, rules and text board."""

from __future__ import annotations

import numpy as np

from boardq.config import NetworkConfig, TrainConfig
from boardq.symmetry import DIHEDRAL, board_symmetries
from games.game import Game, OpenSpielGame
from games.othello.env import SPEC, make_env
from games.othello.rules import PASS, RULES, SIZE
from games.othello.text import TEXT

__all__ = ["GAME", "PRESET"]

PRESET = TrainConfig(
    game="othello",
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
    epsilon_decay_transitions=2_000_000,
    budget_minutes=60.0,
    eval_every_sec=180.0,
    eval_ladder="random,greedy,mcts:50",
    keep_agent_every_sec=300.0,
    # An MLP (see connect_four): a game lasts ~60 moves, so the net sees many positions.
    network=NetworkConfig(hidden_units=(512, 256)),
)

GAME = Game(
    name="othello",
    title="Othello",
    env_id=f"openspiel:{SPEC}",
    obs_shape=(SIZE, SIZE, 2),
    num_actions=PASS + 1,
    preset=PRESET,
    rules=RULES,
    text=TEXT,
    # Square (r, c) is action 8r + c; the flipping rules look the same in all 8
    # images of the square, and the pass stays a pass.
    symmetries=board_symmetries(DIHEDRAL, np.arange(PASS).reshape(SIZE, SIZE), extra_actions=1),
    openspiel=OpenSpielGame(SPEC, tuple(range(PASS + 1))),
    env_maker=make_env,
    players=("greedy",),
)
