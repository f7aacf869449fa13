"""Hex through Shimmy: OpenSpiel's `hex(board_size=7)`, seen as boardq's planes.

OpenSpiel's tensor is (9, 7, 7), one plane per cell state: four white states (plain,
joined to the west edge, the east edge, both), empty, then the same four of black.
It is the same for both observers. The first player (black, x) joins the top and
bottom rows, the second (white, o) the left and right columns. Cell (r, c) is action
7r + c, row 0 at the top.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["PARAMS", "SIZE", "SPEC", "display_board", "make_env", "planes"]

SIZE = 7
PARAMS = {"board_size": SIZE, "num_cols": SIZE, "num_rows": SIZE}
"""The parameters of OpenSpiel's hex (Shimmy reloads the game from them)."""
SPEC = f"hex(board_size={SIZE})"
"""The same game as OpenSpiel names it (for the MCTS mirror)."""


def _stones(tensor: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Bool (7, 7) each: black's stones, white's stones."""
    return tensor[5:9].sum(axis=0) > 0, tensor[0:4].sum(axis=0) > 0


def planes(tensor: np.ndarray, player: int) -> np.ndarray:
    """int8 (7, 7, 3): the observer's stones, the opponent's, and its seat.

    The seat plane is all ones for the second player, who joins left and right where
    the first joins top and bottom.
    """
    black, white = _stones(tensor)
    mine, theirs = (black, white) if player == 0 else (white, black)
    seat = np.full((SIZE, SIZE), player)
    return np.stack([mine, theirs, seat], axis=-1).astype(np.int8)


def display_board(env: Any) -> np.ndarray:
    """The board of a Hex env: +1 the first player's stones, -1 the second's."""
    tensor = np.asarray(env.unwrapped.game_state.observation_tensor(0))
    black, white = _stones(tensor.reshape(9, SIZE, SIZE))
    return black.astype(np.int8) - white.astype(np.int8)


def make_env() -> Any:
    """A new Hex environment (Shimmy, adapted to boardq's observations)."""
    from games.adapter import SpielView, spiel_env

    view = SpielView((9, SIZE, SIZE), (SIZE, SIZE, 3), SIZE * SIZE, planes)
    return spiel_env("hex", PARAMS, view, "hex")
