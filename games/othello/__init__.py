"""Othello: OpenSpiel's `othello` through Shimmy, its preset, rules and text board."""

from __future__ import annotations

from typing import Any

import numpy as np

from boardq.game import Game, OpenSpielGame, bundled_agent_file
from boardq.gtp.protocol import GtpDialect
from boardq.setup import Setup
from boardq.symmetry import DIHEDRAL, board_symmetries
from boardq_games.othello.env import SPEC, make_env
from boardq_games.othello.rules import PASS, RULES, SIZE
from boardq_games.othello.text import TEXT
from boardq_games.presets import BOARD_GAME

__all__ = ["GAME", "PRESET", "disc_score"]

PRESET = BOARD_GAME.replace(
    game="othello",
    # A game lasts ~60 moves: exploration decays over more of them.
    epsilon_decay_transitions=2_000_000,
    # GRhino (Debian's grhino) decides which agent is the best (boardq.training.ladder);
    # where it is not installed, the rung is left out with one line.
    eval_ladder="random,greedy,mcts:50,gtp:gtp-rhino -l 1",
)


def disc_score(env: Any) -> float:
    """Black's discs minus white's on an Othello env's board (black moves first)."""
    first = env.possible_agents[0]
    return float(RULES.board_from_planes(env.observe(first)["observation"]).sum())


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
    bundled_agent=bundled_agent_file(__name__),
    # GRhino's names: a1 the top-left square, as the board's labels; a pass is forced,
    # and GRhino refuses to be told of one.
    gtp=GtpDialect(
        size=SIZE,
        letters=TEXT.grid.letters,
        bottom_up=False,
        pass_action=PASS,
        passes_implied=True,
    ),
    setup=Setup(score=disc_score, pass_action=PASS),
)
