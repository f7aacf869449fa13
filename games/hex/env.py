"""Hex through Shimmy: OpenSpiel's `hex(board_size=7)`, seen as boardq's planes.

OpenSpiel's tensor is (9, 7, 7), one plane per cell state: four white states (plain,
joined to the west edge, the east edge, both), empty, then the same four of black.
It is the same for both observers. The first player (black, x) joins the top and
bottom rows, the second (white, o) the left and right columns. Cell (r, c) is action
7r + c, row 0 at the top. Other sizes (`make_env(size)`) are seen the same way; the
tests check the rules on them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["SIZE", "SPEC", "display_board", "make_env", "planes"]

SIZE = 7
SPEC = f"hex(board_size={SIZE})"
"""The same game as OpenSpiel names it (for the MCTS mirror)."""


def _stones(tensor: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Bool (7, 7) each: black's stones, white's stones."""
    return tensor[5:9].sum(axis=0) > 0, tensor[0:4].sum(axis=0) > 0


def planes(tensor: np.ndarray, player: int) -> np.ndarray:
    """int8 (N, N, 3) of OpenSpiel's (9, N, N): the observer's stones, the opponent's, its seat.

    The seat plane is all ones for the second player, who joins left and right where
    the first joins top and bottom.
    """
    black, white = _stones(tensor)
    mine, theirs = (black, white) if player == 0 else (white, black)
    seat = np.full(black.shape, player)
    return np.stack([mine, theirs, seat], axis=-1).astype(np.int8)


def display_board(env: Any) -> np.ndarray:
    """The board of a Hex env: +1 the first player's stones, -1 the second's."""
    tensor = np.asarray(env.unwrapped.game_state.observation_tensor(0))
    size = int(round((tensor.size / 9) ** 0.5))
    black, white = _stones(tensor.reshape(9, size, size))
    return black.astype(np.int8) - white.astype(np.int8)


def make_env(size: int = SIZE) -> Any:
    """A new Hex environment of `size` x `size` (Shimmy, adapted to boardq's observations)."""
    from boardq_games.adapter import SpielView, spiel_env

    # Every parameter: Shimmy reloads the game from them at each reset.
    params = {"board_size": size, "num_cols": size, "num_rows": size}
    view = SpielView((9, size, size), (size, size, 3), size * size, planes)
    return spiel_env("hex", params, view, "hex")
