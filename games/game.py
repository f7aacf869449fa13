"""What boardq needs to know about a game: the `Game` record and the rules protocol."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

from boardq.config import TrainConfig
from boardq.symmetry import Symmetry
from games.text import BoardText

__all__ = ["Game", "OpenSpielGame", "Rules"]


@runtime_checkable
class Rules(Protocol):
    """A game's pure rules on numpy boards seen by the player to move (+1 pieces).

    Evaluation opponents (win/block, perfect play) and the text boards use these.
    """

    num_actions: int

    def board_from_planes(self, planes: np.ndarray) -> np.ndarray:
        """The board of the mover's observation planes."""
        ...

    def planes_from_board(self, board: np.ndarray) -> np.ndarray:
        """The mover's observation planes of a board (PettingZoo's layout)."""
        ...

    def legal_mask(self, board: np.ndarray) -> np.ndarray:
        """Bool [num_actions]: the legal moves."""
        ...

    def apply(self, board: np.ndarray, action: int) -> np.ndarray:
        """The board after the mover plays `action`, seen by the next mover."""
        ...

    def winner(self, board: np.ndarray) -> int:
        """+1 or -1 for the side holding a winning line, else 0."""
        ...

    def is_full(self, board: np.ndarray) -> bool:
        """Whether the game ended without a winner."""
        ...

    def key(self, board: np.ndarray) -> bytes:
        """A hashable key of the board (memo tables)."""
        ...


@dataclass(frozen=True)
class OpenSpielGame:
    """The same game in OpenSpiel, for its bots and as a second referee.

    Attributes:
      name: the OpenSpiel game name (`pyspiel.load_game(name)`).
      actions: `actions[a]` is the OpenSpiel action of PettingZoo action `a`.
    """

    name: str
    actions: tuple[int, ...]


@dataclass(frozen=True)
class Game:
    """A two-player game reached through PettingZoo's AEC API.

    Attributes:
      name: the name on the command line.
      title: a human name.
      env_id: the PettingZoo registry id.
      obs_shape: shape of the observation planes [H, W, C].
      num_actions: size of the action space.
      preset: default training settings.
      rules: pure rules on numpy boards.
      text: the board and move labels for people.
      symmetries: board symmetries (identity first) for augmentation.
      vector: `vector(num_games)` makes a batch of games stepped together in numpy
        (the actors' fast path, see `boardq.gamebatch.GameBatch`); None: the actors step
        PettingZoo environments.
    """

    name: str
    title: str
    env_id: str
    obs_shape: tuple[int, ...]
    num_actions: int
    preset: TrainConfig
    rules: Rules
    text: BoardText
    symmetries: Sequence[Symmetry]
    vector: Callable[[int], Any] | None = None
    openspiel: OpenSpielGame | None = None

    def make_env(self, **kwargs):
        """A new AEC environment of this game."""
        import pettingzoo  # here: `boardq --help` need not import it

        return pettingzoo.make("aec", self.env_id, **kwargs)
