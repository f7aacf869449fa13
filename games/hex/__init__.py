"""Hex (7x7): OpenSpiel's `hex` through Shimmy, its preset, rules, vectorized rules, text board.

The rules' positions keep which pair of edges the mover joins beside the board
(`boardq_games.hex.rules`); training steps many games at once in `boardq_games.hex.vector`.
"""

from __future__ import annotations

import functools

import numpy as np

from boardq.game import Game, OpenSpielGame, bundled_agent_file
from boardq.gtp.protocol import GtpDialect
from boardq.symmetry import HALF_TURN, board_symmetries
from boardq_games.hex.env import SIZE, SPEC, display_board, make_env
from boardq_games.hex.rules import HexRules
from boardq_games.hex.text import TEXT
from boardq_games.hex.vector import HexVector
from boardq_games.presets import BOARD_GAME

__all__ = ["GAME", "PRESET", "RULES"]

RULES = HexRules(SIZE)

PRESET = BOARD_GAME.replace(game="hex", eval_ladder="random,mcts:50")

GAME = Game(
    name="hex",
    title="Hex",
    env_id=f"openspiel:{SPEC}",
    obs_shape=(SIZE, SIZE, 3),
    num_actions=SIZE * SIZE,
    preset=PRESET,
    rules=RULES,
    text=TEXT,
    # On the rhombus the half turn keeps every cell's neighbours and maps each edge to
    # the opposite edge of the same player. The mirrors and quarter turns do not: they
    # break the adjacency or give a player's edges to the other.
    symmetries=board_symmetries(HALF_TURN, np.arange(SIZE * SIZE).reshape(SIZE, SIZE)),
    openspiel=OpenSpielGame(SPEC, tuple(range(SIZE * SIZE))),
    vector=functools.partial(HexVector, size=SIZE),
    env_maker=make_env,
    board_of=display_board,
    players=(),
    bundled_agent=bundled_agent_file(__name__),
    # HTP's names, as MoHex and HexGui speak them: a1 the top-left cell, no letter
    # skipped; no pass (and boardq's Hex has no swap rule).
    gtp=GtpDialect(
        size=SIZE, letters="abcdefghijklmnopqrstuvwxyz"[:SIZE], bottom_up=False, pass_action=None
    ),
)
