"""What boardq needs to know about a game."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from types import ModuleType

import pettingzoo

from boardq.config import TrainConfig
from boardq.replay import Symmetry

__all__ = ["Game"]


@dataclass(frozen=True)
class Game:
    """A two-player game reached through PettingZoo's AEC API.

    Attributes:
      name: the name on the command line.
      env_id: the PettingZoo registry id.
      obs_shape: shape of the observation planes.
      num_actions: size of the action space.
      preset: default training settings.
      board: pure rules module (`games.boards.*`).
      symmetries: board symmetries (identity first) for augmentation.
      title: a human name.
    """

    name: str
    env_id: str
    obs_shape: tuple[int, ...]
    num_actions: int
    preset: TrainConfig
    board: ModuleType
    symmetries: Sequence[Symmetry]
    title: str

    def make_env(self, **kwargs):
        """A new AEC environment of this game."""
        return pettingzoo.make("aec", self.env_id, **kwargs)
