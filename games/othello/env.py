"""Othello through Shimmy: OpenSpiel's `othello`, seen as boardq's planes.

OpenSpiel's tensor is already the observer's: (3, 8, 8) planes of the empty squares,
its discs and the opponent's. boardq keeps the last two, channels-last.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["SPEC", "make_env", "planes"]

SPEC = "othello"
"""The OpenSpiel game, for Shimmy and for the MCTS mirror alike."""


def planes(tensor: np.ndarray, player: int) -> np.ndarray:
    """int8 (8, 8, 2): the observer's discs, then the opponent's."""
    return tensor[1:3].transpose(1, 2, 0).astype(np.int8)


def make_env() -> Any:
    """A new Othello environment (Shimmy, adapted to boardq's observations)."""
    from boardq_games.adapter import SpielView, spiel_env

    return spiel_env(SPEC, {}, SpielView((3, 8, 8), (8, 8, 2), 65, planes), "othello")
