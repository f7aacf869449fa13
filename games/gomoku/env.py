"""Gomoku through Shimmy: OpenSpiel's `gomoku(size=9)`, seen as boardq's planes.

OpenSpiel's tensor is (3, 81): the first player's stones, the second's, and a plane
boardq does not need, each flattened row by row; it is the same for both observers.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from boardq_games.gomoku.rules import SIZE

__all__ = ["PARAMS", "SPEC", "make_env", "planes"]

PARAMS = {"anti": False, "connect": 5, "dims": 2, "size": SIZE, "wrap": False}
"""Every parameter of OpenSpiel's gomoku (Shimmy reloads the game from them)."""
SPEC = f"gomoku(size={SIZE})"
"""The same game as OpenSpiel names it (for the MCTS mirror)."""


def planes(tensor: np.ndarray, player: int) -> np.ndarray:
    """int8 (9, 9, 2): the observer's stones, then the opponent's."""
    board = tensor[:2].reshape(2, SIZE, SIZE)
    return np.stack([board[player], board[1 - player]], axis=-1).astype(np.int8)


def make_env() -> Any:
    """A new Gomoku environment (Shimmy, adapted to boardq's observations)."""
    from boardq_games.adapter import SpielView, spiel_env

    view = SpielView((3, SIZE * SIZE), (SIZE, SIZE, 2), SIZE * SIZE, planes)
    return spiel_env("gomoku", PARAMS, view, "gomoku")
