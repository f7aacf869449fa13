"""Gomoku (9x9, five in a row): OpenSpiel's `gomoku` through Shimmy, preset, rules, text.

Training steps the games with the vectorized rules of `boardq_games.gomoku.vector`.
"""

from __future__ import annotations

import numpy as np

from boardq.config import NetworkConfig
from boardq.game import Game, OpenSpielGame, bundled_agent_file
from boardq.gtp.protocol import GtpDialect
from boardq.symmetry import DIHEDRAL, board_symmetries
from boardq_games.gomoku.env import SPEC, make_env
from boardq_games.gomoku.rules import RULES, SIZE
from boardq_games.gomoku.text import TEXT
from boardq_games.gomoku.vector import GomokuVector
from boardq_games.presets import BOARD_GAME

__all__ = ["GAME", "PRESET"]

PRESET = BOARD_GAME.replace(
    game="gomoku",
    eval_ladder="random,winblock,line",
    # Measured side by side, 20 minutes each: a small convolutional network (the same
    # line patterns everywhere on the board) beat the MLP against the line player at a
    # half of its train steps per second (docs/results/gomoku.md, "The preset: an
    # hour"). An hour, and the best agent chosen as --symmetric plays it.
    network=NetworkConfig(conv_filters=(16, 16), hidden_units=(128,)),
    budget_minutes=60.0,
    eval_symmetric=True,
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
    vector=GomokuVector,
    players=("winblock", "line"),
    bundled_agent=bundled_agent_file(__name__),
    # GTP names for GoGui: its letters skip I, A1 the bottom left (the text board's
    # letters do not skip it).
    gtp=GtpDialect(
        size=SIZE, letters="ABCDEFGHJKLMNOPQRST"[:SIZE], bottom_up=True, pass_action=None
    ),
)
