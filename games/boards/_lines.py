"""Line detection shared by the board modules."""

import numpy as np

__all__ = ["line_sums", "line_winner"]


def line_sums(board: np.ndarray, length: int) -> np.ndarray:
    """Returns the sum of every straight run of `length` cells.

    Runs go along rows, columns, the main diagonals and the anti-diagonals. A run of
    `length` cells held by one side sums to `+length` or `-length`.

    Args:
        board: int array of shape (rows, cols) with values in {-1, 0, +1}.
        length: number of cells in a run; at most min(rows, cols).

    Returns:
        A flat int16 array with one entry per run.
    """
    cells = np.asarray(board, dtype=np.int16)
    rows, cols = cells.shape
    row_span, col_span = rows - length + 1, cols - length + 1
    horizontal = sum(cells[:, k : col_span + k] for k in range(length))
    vertical = sum(cells[k : row_span + k, :] for k in range(length))
    diagonal = sum(cells[k : row_span + k, k : col_span + k] for k in range(length))
    anti_diagonal = sum(cells[k : row_span + k, length - 1 - k : cols - k] for k in range(length))
    return np.concatenate([run.ravel() for run in (horizontal, vertical, diagonal, anti_diagonal)])


def line_winner(board: np.ndarray, length: int) -> int:
    """Returns +1 or -1 for the side that holds a run of `length` cells, else 0.

    A hand-made board where both sides hold a run (impossible in play) reports +1.

    Args:
        board: int array of shape (rows, cols) with values in {-1, 0, +1}.
        length: number of cells in a winning run.

    Returns:
        +1, -1 or 0.
    """
    sums = line_sums(board, length)
    if np.any(sums == length):
        return 1
    if np.any(sums == -length):
        return -1
    return 0
