"""Tic-tac-toe: PettingZoo's classic/tictactoe-v3, its preset and its network."""

from __future__ import annotations

import numpy as np

from boardq.config import NetworkConfig, TrainConfig
from boardq.replay import Symmetry
from games.base import Game
from games.boards import tictactoe as board

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
    tau=0.01,
    epsilon_start=1.0,
    epsilon_end=0.2,
    epsilon_decay_transitions=100_000,
    budget_minutes=4.0,
    eval_every_sec=30.0,
    network=NetworkConfig(hidden_units=(256, 256)),
)


def _symmetries() -> list[Symmetry]:
    """The 8 symmetries of the square, acting on [..., 3, 3, C] planes.

    Action a sits at plane cell (a // 3, a % 3), so the action map follows from
    transforming a grid of action numbers the same way as the planes.
    """
    grid = np.arange(9).reshape(3, 3)
    out = []
    for k in range(4):
        for flip in (False, True):

            def planes(p, k=k, flip=flip):
                p = np.rot90(p, k, axes=(-3, -2))
                return np.flip(p, axis=-2) if flip else p

            image = planes(grid[..., None])[..., 0]
            # The move at cell c of the original lands where c's number went.
            action_map = np.empty(9, np.int64)
            action_map[image.ravel()] = np.arange(9)
            out.append(Symmetry(lambda p, f=planes: np.ascontiguousarray(f(p)), action_map))
    return out


GAME = Game(
    name="tictactoe",
    env_id="classic/tictactoe-v3",
    obs_shape=(3, 3, 2),
    num_actions=9,
    preset=PRESET,
    board=board,
    symmetries=_symmetries(),
    title="Tic-tac-toe",
)
