"""Tic-tac-toe: PettingZoo's classic/tictactoe-v3, its preset, rules and text board."""

from __future__ import annotations

import numpy as np

from boardq.config import NetworkConfig, TrainConfig
from boardq.game import Game, OpenSpielGame, bundled_agent_file
from boardq.gtp.protocol import GtpDialect
from boardq.symmetry import DIHEDRAL, board_symmetries
from boardq_games.tictactoe.rules import RULES
from boardq_games.tictactoe.text import TicTacToeText
from boardq_games.tictactoe.vector import TicTacToeVector

__all__ = ["GAME", "PRESET"]

PRESET = TrainConfig(
    game="tictactoe",
    games_per_thread=64,
    replay_capacity=100_000,
    warmup_transitions=5_000,
    replay_ratio=16.0,
    batch_size=256,
    learning_rate=1e-3,
    discount=0.95,
    # The TD target assumes the next player errs 1 move in 5 (the actors' final
    # exploration rate): among moves that keep the draw against best play, it prefers
    # those that give a weaker opponent chances to go wrong (docs/results/tictactoe.md,
    # "Playing for the opponent's mistakes").
    bootstrap_epsilon=0.2,
    tau=0.01,
    epsilon_start=1.0,
    epsilon_end=0.2,
    epsilon_decay_transitions=100_000,
    budget_minutes=4.0,
    eval_every_sec=30.0,
    eval_ladder="random,perfect",
    keep_agent_every_sec=30.0,
    network=NetworkConfig(hidden_units=(256, 256)),
)

GAME = Game(
    name="tictactoe",
    title="Tic-tac-toe",
    env_id="classic/tictactoe-v3",
    obs_shape=(3, 3, 2),
    num_actions=9,
    preset=PRESET,
    rules=RULES,
    text=TicTacToeText(),
    # Plane cell (i, j) is action 3 * i + j (PettingZoo's layout), so the 8 symmetries
    # of the square move actions as they move plane cells.
    symmetries=board_symmetries(DIHEDRAL, np.arange(9).reshape(3, 3)),
    vector=TicTacToeVector,
    # OpenSpiel numbers the cells row by row, PettingZoo down the columns: the
    # transpose, action a is cell (a % 3, a // 3), OpenSpiel's 3 * (a % 3) + a // 3.
    openspiel=OpenSpielGame("tic_tac_toe", tuple(3 * (a % 3) + a // 3 for a in range(9))),
    bundled_agent=bundled_agent_file(__name__),
    # GTP names for GoGui: A1 the bottom left, as GoGui names its points (the actions
    # number the cells down the columns).
    gtp=GtpDialect(size=3, letters="ABC", bottom_up=True, pass_action=None, column_major=True),
)
