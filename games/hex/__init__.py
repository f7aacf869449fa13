"""Hex (7x7): OpenSpiel's `hex` through Shimmy, its preset and text board (no pure rules).

Hex has no rules module: a board seen by the mover does not say which pair of edges
the mover joins, so the `games.game.Rules` protocol (boards negated to swap the
players) does not fit; evaluation uses random play and OpenSpiel's MCTS.
"""

from __future__ import annotations

import numpy as np

from boardq.config import NetworkConfig, TrainConfig
from boardq.symmetry import HALF_TURN, board_symmetries
from games.game import Game, OpenSpielGame
from games.hex.env import SIZE, SPEC, display_board, make_env
from games.hex.text import TEXT

__all__ = ["GAME", "PRESET"]

PRESET = TrainConfig(
    game="hex",
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
    eval_ladder="random,mcts:50",
    keep_agent_every_sec=300.0,
    network=NetworkConfig(hidden_units=(512, 256)),
)

GAME = Game(
    name="hex",
    title="Hex",
    env_id=f"openspiel:{SPEC}",
    obs_shape=(SIZE, SIZE, 3),
    num_actions=SIZE * SIZE,
    preset=PRESET,
    rules=None,
    text=TEXT,
    # On the rhombus the half turn keeps every cell's neighbours and maps each edge to
    # the opposite edge of the same player. The mirrors and quarter turns do not: they
    # break the adjacency or give a player's edges to the other.
    symmetries=board_symmetries(HALF_TURN, np.arange(SIZE * SIZE).reshape(SIZE, SIZE)),
    openspiel=OpenSpielGame(SPEC, tuple(range(SIZE * SIZE))),
    env_maker=make_env,
    board_of=display_board,
    players=(),
)
