"""The training settings of a game built on the fly (a starting point, not a tuned preset).

Nothing is known of such a game but its sizes, so the settings are those that suit
most small board games on a CPU: an MLP, one-step Double DQN, a discount that keeps a
win 100 moves ahead worth a third of a win now, exploration decaying over a million
moves, and random play as the only evaluation opponent (others depend on the game:
add `mcts:N` with `--eval-ladder` for an OpenSpiel game). The replay memory holds as
many transitions as fit in `REPLAY_BYTES` (each stores two sets of planes and a legal
mask as wide as the action space: 8 KB in Lines of Action), at most 500k.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from boardq.config import NetworkConfig, TrainConfig
from boardq_games.presets import BOARD_GAME

__all__ = ["PRESET", "REPLAY_BYTES", "generic_preset"]

REPLAY_BYTES = 256 * 2**20
"""The replay memory's share of RAM in the generic preset."""

PRESET = BOARD_GAME.replace(
    epsilon_decay_transitions=1_000_000,
    budget_minutes=30.0,
    eval_every_sec=120.0,
    network=NetworkConfig(hidden_units=(256, 256)),
)
"""The generic settings; `generic_preset` fills in the game and sizes the replay."""


def generic_preset(name: str, obs_shape: Sequence[int], num_actions: int) -> TrainConfig:
    """The generic settings for the game called `name`, its replay sized to its transitions."""
    per_transition = 2 * int(np.prod(obs_shape)) + int(num_actions) + 16  # int8 planes, bools
    capacity = max(25_000, min(PRESET.replay_capacity, REPLAY_BYTES // per_transition))
    return PRESET.replace(
        game=name,
        replay_capacity=capacity,
        warmup_transitions=min(PRESET.warmup_transitions, capacity // 2),
    )
