"""The records' tests share games of random moves played for real."""

from __future__ import annotations

import numpy as np
import pytest

from boardq.catalog import get_game
from boardq.records import GameLog, GameRecord, PlayerInfo


@pytest.fixture
def random_game():
    """`random_game(name, seed)`: a game of random moves played in the env.

    It is logged move by move; it returns the record, the env's own final board and its
    result.
    """
    return _random_game


def _random_game(name: str, seed: int) -> tuple[GameRecord, np.ndarray, int]:
    """A game of random moves played in the env, logged move by move.

    Returns the record, the env's own final board and its result.
    """
    game = get_game(name)
    rng = np.random.default_rng(seed)
    log = GameLog(game, (PlayerInfo("alice", {"kind": "random"}), PlayerInfo("bob")), "test")
    env = game.make_env()
    env.reset(seed=seed)
    first, second = env.possible_agents
    while not (any(env.terminations.values()) or any(env.truncations.values())):
        mask = np.asarray(env.observe(env.agent_selection)["action_mask"], bool)
        action = int(rng.choice(np.flatnonzero(mask)))
        env.step(action)
        log.add(action, seconds=float(rng.random()), value=float(rng.uniform(-1, 1)))
    result = int(np.sign(env.rewards[first] - env.rewards[second]))
    board = np.asarray(game.board(env)) if game.rules is not None or game.board_of else None
    env.close()
    return log.record(result, engine_count="W+1.5 (a test)"), board, result
