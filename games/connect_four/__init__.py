"""Connect Four: PettingZoo's classic/connect_four-v3, its preset, rules and text board."""

from __future__ import annotations

import numpy as np

from boardq.config import NetworkConfig
from boardq.game import Game, OpenSpielGame, bundled_agent_file
from boardq.gtp.protocol import GtpDialect
from boardq.symmetry import MIRROR, board_symmetries
from boardq_games.connect_four.rules import RULES
from boardq_games.connect_four.text import ConnectFourText
from boardq_games.connect_four.vector import ConnectFourVector
from boardq_games.presets import BOARD_GAME

__all__ = ["GAME", "PRESET"]

PRESET = BOARD_GAME.replace(
    game="connect_four",
    replay_capacity=1_000_000,
    replay_ratio=16.0,
    # Measured side by side: one game in five against the pool and an hour of training
    # gave the strongest agents against search players (docs/results/connect_four.md,
    # "What the presets reach against search players").
    pool_share=0.2,
    budget_minutes=60.0,
    eval_every_sec=120.0,
    eval_ladder="random,winblock,mcts:100",
    # The ladder plays the agent with its values averaged over the mirror, 100 games a
    # seat: the best agent it keeps scored 0.93 / 0.92 against mcts:100 that way over
    # 1,000 games a seat, 0.89 / 0.88 as the network alone (docs/results/connect_four.md,
    # "Symmetric values").
    eval_symmetric=True,
    eval_games=100,
    keep_agent_every_sec=120.0,
    # ... and rates the mean of the weights of the last 10 agents kept (20 minutes).
    # Replayed on the kept agents of two earlier runs of the preset, this ladder chose
    # means that scored 0.965 / 0.912 and 0.969 / 0.922 against mcts:100 over 1,000
    # games a seat, where those runs' best single weights scored 0.928 / 0.923 and
    # 0.955 / 0.875. Two runs of the preset with it: 0.947 / 0.923 and 0.978 / 0.901
    # (docs/results/connect_four.md, "Averaged weights").
    eval_average_agents=10,
    network=NetworkConfig(hidden_units=(256, 256)),
)

GAME = Game(
    name="connect_four",
    title="Connect Four",
    env_id="classic/connect_four-v3",
    obs_shape=(6, 7, 2),
    num_actions=7,
    preset=PRESET,
    rules=RULES,
    text=ConnectFourText(),
    # Every cell of a column is that column's move; the mirror reverses the columns.
    symmetries=board_symmetries(MIRROR, np.tile(np.arange(7), (6, 1))),
    vector=ConnectFourVector,
    # Both name a move by its column, counted from the left.
    openspiel=OpenSpielGame("connect_four", tuple(range(7))),
    bundled_agent=bundled_agent_file(__name__),
    # GTP names for GoGui: a move names its column; its vertex is the point the piece
    # lands on (A1 the bottom left; GoGui's board of 7 has an empty top row).
    gtp=GtpDialect(size=7, letters="ABCDEFG", bottom_up=True, pass_action=None, rows=6, drop=True),
)
