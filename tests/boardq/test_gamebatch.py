"""EnvGames: PettingZoo environments behind the GameBatch interface."""

from __future__ import annotations

import numpy as np
import pettingzoo
from pettingzoo.utils.wrappers import BaseWrapper

from boardq.gamebatch import EnvGames, unwrap_guards
from boardq_games import get_game


def test_unwrap_guards_peels_only_the_guard_wrappers():
    env = pettingzoo.make("aec", "classic/tictactoe-v3")
    assert unwrap_guards(env) is env.unwrapped
    custom = BaseWrapper(env)  # any other wrapper may change the game: kept
    assert unwrap_guards(custom) is custom


def test_env_games_report_moves_wins_and_restarts():
    game = get_game("tictactoe")
    games = EnvGames([game.make_env() for _ in range(2)], seeds=[0, 1])
    obs, mask = games.observe()
    assert obs.shape == (2, 3, 3, 2) and mask.all()
    # Game 0: X takes the left column (actions 0, 1, 2 in PettingZoo's numbering);
    # game 1 plays the same moves shifted so that O wins on the right column.
    script = [(0, 3), (3, 6), (1, 4), (4, 7), (2, 0), (None, 8)]
    outcomes = []
    for a0, a1 in script:
        if a0 is None:  # game 0 restarted after X's win: play its first move again
            a0 = 4
        outcomes.append(games.step(np.array([a0, a1])))
    win0 = outcomes[4]
    assert win0.done[0] and win0.reward[0] == 1.0 and win0.first_mover[0]
    assert not win0.done[1]
    win1 = outcomes[5]
    assert win1.done[1] and win1.reward[1] == 1.0 and not win1.first_mover[1]
    obs, mask = games.observe()
    # Game 1 restarted: an empty board, the first player to move.
    assert not obs[1].any() and mask[1].all()
    # Game 0 restarted before its last move: one piece of the opponent's on the board.
    assert obs[0, :, :, 1].sum() == 1 and obs[0, :, :, 0].sum() == 0
