"""Connect Four rules on a 6x7 numpy board.

Boards are int8 arrays of shape (6, 7) in display orientation (row 0 is the top row,
where PettingZoo's observation also puts it) and always seen by the player to move:
+1 marks that player's pieces, -1 the opponent's, 0 an empty cell. An action is a
column; the piece lands in the lowest empty cell of that column.
"""

import numpy as np

from games.boards._lines import line_winner

__all__ = [
    "COLS",
    "LINE_LENGTH",
    "NUM_ACTIONS",
    "ROWS",
    "apply",
    "board_from_planes",
    "is_full",
    "key",
    "landing_row",
    "legal_mask",
    "planes_from_board",
    "winner",
]

ROWS = 6
COLS = 7
NUM_ACTIONS = 7
LINE_LENGTH = 4


def board_from_planes(planes: np.ndarray) -> np.ndarray:
    """Converts the observation planes of the player to move into a board.

    Args:
        planes: int array (6, 7, 2); channel 0 holds the mover's pieces, channel 1 the
            opponent's, row 0 at the top.

    Returns:
        int8 board (6, 7) in display orientation, +1 for the mover.
    """
    planes = np.asarray(planes)
    if planes.shape != (ROWS, COLS, 2):
        raise ValueError(f"expected planes of shape {(ROWS, COLS, 2)}, got {planes.shape}")
    return planes[:, :, 0].astype(np.int8) - planes[:, :, 1].astype(np.int8)


def planes_from_board(board: np.ndarray) -> np.ndarray:
    """Converts a board into the observation planes PettingZoo gives the mover.

    Args:
        board: int board (6, 7) in display orientation, +1 for the mover.

    Returns:
        int8 planes (6, 7, 2), the exact inverse of `board_from_planes`.
    """
    cells = _checked(board)
    return np.stack([cells == 1, cells == -1], axis=-1).astype(np.int8)


def landing_row(board: np.ndarray, action: int) -> int:
    """Returns the display row where a piece dropped in column `action` lands.

    Args:
        board: int board (6, 7) in display orientation.
        action: column in [0, 7).

    Returns:
        The lowest empty row of the column (row 0 is the top).

    Raises:
        ValueError: if the column is out of range or full.
    """
    cells = _checked(board)
    if not 0 <= int(action) < NUM_ACTIONS:
        raise ValueError(f"action {action} is outside [0, {NUM_ACTIONS})")
    empty_rows = np.flatnonzero(cells[:, int(action)] == 0)
    if empty_rows.size == 0:
        raise ValueError(f"action {action}: the column is full")
    return int(empty_rows[-1])


def legal_mask(board: np.ndarray) -> np.ndarray:
    """Returns which actions are legal: the columns whose top cell is empty.

    The mask does not look for a finished game (neither does PettingZoo's).

    Args:
        board: int board (6, 7) in display orientation.

    Returns:
        bool array (7,) indexed by action.
    """
    return _checked(board)[0] == 0


def apply(board: np.ndarray, action: int) -> np.ndarray:
    """Drops a piece of the player to move (+1) into column `action`.

    Args:
        board: int board (6, 7), +1 for the mover.
        action: column in [0, 7).

    Returns:
        A new int8 board seen by the next mover (the pieces negated).

    Raises:
        ValueError: if the column is out of range or full.
    """
    row = landing_row(board, action)
    after = _checked(board).copy()
    after[row, int(action)] = 1
    return -after


def winner(board: np.ndarray) -> int:
    """Returns +1 if the +1 pieces hold a line of four, -1 if the -1 pieces do, else 0."""
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
