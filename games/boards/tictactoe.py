"""Tic-tac-toe rules on a 3x3 numpy board.

Boards are int8 arrays of shape (3, 3) in display orientation (row 0 is the top row)
and always seen by the player to move: +1 marks that player's pieces, -1 the
opponent's, 0 an empty cell.

PettingZoo's tic-tac-toe numbers its cells down the columns::

    0 | 3 | 6
    1 | 4 | 7
    2 | 5 | 8

so action `a` is the cell at row `a % 3`, column `a // 3`. Its observation is the flat
cell list reshaped to (3, 3), so `planes[i, j]` is cell `3 * i + j`, i.e. column `i`,
row `j`: the planes are the transpose of the display.
"""

import numpy as np

from games.boards._lines import line_winner

__all__ = [
    "COLS",
    "LINE_LENGTH",
    "NUM_ACTIONS",
    "ROWS",
    "action_cell",
    "apply",
    "board_from_planes",
    "cell_action",
    "is_full",
    "key",
    "legal_mask",
    "planes_from_board",
    "winner",
]

ROWS = 3
COLS = 3
NUM_ACTIONS = 9
LINE_LENGTH = 3


def board_from_planes(planes: np.ndarray) -> np.ndarray:
    """Converts the observation planes of the player to move into a board.

    Args:
        planes: int array (3, 3, 2); channel 0 holds the mover's pieces, channel 1 the
            opponent's, in PettingZoo's column-major cell layout.

    Returns:
        int8 board (3, 3) in display orientation, +1 for the mover.
    """
    planes = np.asarray(planes)
    if planes.shape != (COLS, ROWS, 2):
        raise ValueError(f"expected planes of shape {(COLS, ROWS, 2)}, got {planes.shape}")
    signed = planes[:, :, 0].astype(np.int8) - planes[:, :, 1].astype(np.int8)
    return np.ascontiguousarray(signed.T)


def planes_from_board(board: np.ndarray) -> np.ndarray:
    """Converts a board into the observation planes PettingZoo gives the mover.

    Args:
        board: int board (3, 3) in display orientation, +1 for the mover.

    Returns:
        int8 planes (3, 3, 2), the exact inverse of `board_from_planes`.
    """
    cells = _checked(board).T
    return np.stack([cells == 1, cells == -1], axis=-1).astype(np.int8)


def action_cell(action: int) -> tuple[int, int]:
    """Returns the (row, col) display cell of a PettingZoo action.

    Args:
        action: PettingZoo action in [0, 9).

    Returns:
        (row, col) with row 0 at the top.
    """
    _check_action_range(action)
    return int(action) % ROWS, int(action) // ROWS


def cell_action(row: int, col: int) -> int:
    """Returns the PettingZoo action for a display cell; the inverse of `action_cell`.

    Args:
        row: display row, 0 at the top.
        col: display column, 0 at the left.

    Returns:
        PettingZoo action in [0, 9).
    """
    if not (0 <= row < ROWS and 0 <= col < COLS):
        raise ValueError(f"cell {(row, col)} is off the board")
    return col * ROWS + row


def legal_mask(board: np.ndarray) -> np.ndarray:
    """Returns which actions are legal: the empty cells.

    The mask does not look for a finished game (neither does PettingZoo's).

    Args:
        board: int board (3, 3) in display orientation.

    Returns:
        bool array (9,) indexed by action.
    """
    return (_checked(board).T == 0).reshape(NUM_ACTIONS)


def apply(board: np.ndarray, action: int) -> np.ndarray:
    """Plays `action` for the player to move (+1).

    Args:
        board: int board (3, 3), +1 for the mover.
        action: PettingZoo action in [0, 9).

    Returns:
        A new int8 board seen by the next mover (the pieces negated).

    Raises:
        ValueError: if the action is out of range or its cell is taken.
    """
    cells = _checked(board)
    row, col = action_cell(action)
    if cells[row, col] != 0:
        raise ValueError(f"action {action}: cell {(row, col)} is taken")
    after = cells.copy()
    after[row, col] = 1
    return -after


def winner(board: np.ndarray) -> int:
    """Returns +1 if the +1 pieces hold a line of three, -1 if the -1 pieces do, else 0."""
    return line_winner(_checked(board), LINE_LENGTH)


def is_full(board: np.ndarray) -> bool:
    """Returns whether no cell is empty."""
    return bool(np.all(_checked(board) != 0))


def key(board: np.ndarray) -> bytes:
    """Returns a hashable key of the board, for memo tables."""
    return _checked(board).tobytes()


def _checked(board: np.ndarray) -> np.ndarray:
    cells = np.asarray(board, dtype=np.int8)
    if cells.shape != (ROWS, COLS):
        raise ValueError(f"expected a board of shape {(ROWS, COLS)}, got {cells.shape}")
    return cells


def _check_action_range(action: int) -> None:
    if not 0 <= int(action) < NUM_ACTIONS:
        raise ValueError(f"action {action} is outside [0, {NUM_ACTIONS})")
