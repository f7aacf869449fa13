"""Rules shared by the games won with a straight line of pieces (tic-tac-toe, Connect Four).

`winning_cells` finds the line that won (Gomoku's too), for the drawings to mark.
Boards are int8 arrays of shape (rows, cols) in display orientation (row 0 is the top
row) and always seen by the player to move: +1 marks that player's pieces, -1 the
opponent's, 0 an empty cell. A game's rules class adds how its planes map to boards
and how a move is placed.
"""

from __future__ import annotations

import numpy as np

__all__ = ["LineRules", "line_sums", "line_winner", "winning_cells"]


def line_sums(board: np.ndarray, length: int) -> np.ndarray:
    """The sum of every straight run of `length` cells.

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
    """+1 or -1 for the side that holds a run of `length` cells, else 0.

    A hand-made board where both sides hold a run (impossible in play) reports +1.
    """
    sums = line_sums(board, length)
    if np.any(sums == length):
        return 1
    if np.any(sums == -length):
        return -1
    return 0


def winning_cells(board: np.ndarray, length: int) -> np.ndarray:
    """Which cells are in a run of `length` or more pieces of one side (bool, board's shape).

    Every such run is marked whole, an overline and two crossing lines too.
    """
    cells = np.asarray(board)
    rows, cols = cells.shape
    marked = np.zeros(cells.shape, bool)
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
        for r in range(rows):
            for c in range(cols):
                end_r, end_c = r + dr * (length - 1), c + dc * (length - 1)
                if not (0 <= end_r < rows and 0 <= end_c < cols) or cells[r, c] == 0:
                    continue
                run = [(r + dr * k, c + dc * k) for k in range(length)]
                if all(cells[i, j] == cells[r, c] for i, j in run):
                    for i, j in run:
                        marked[i, j] = True
    return marked


class LineRules:
    """Board checks shared by line games; subclasses define moves and planes.

    Attributes:
        rows, cols: board size.
        line_length: pieces in a row that win.
        num_actions: size of the action space.
    """

    rows: int
    cols: int
    line_length: int
    num_actions: int

    def checked(self, board: np.ndarray) -> np.ndarray:
        """The board as int8, or ValueError if it has the wrong shape."""
        cells = np.asarray(board, dtype=np.int8)
        if cells.shape != (self.rows, self.cols):
            raise ValueError(
                f"expected a board of shape {(self.rows, self.cols)}, got {cells.shape}"
            )
        return cells

    def check_action(self, action: int) -> int:
        """The action as an int, or ValueError if it is out of range."""
        if not 0 <= int(action) < self.num_actions:
            raise ValueError(f"action {action} is outside [0, {self.num_actions})")
        return int(action)

    def winner(self, board: np.ndarray) -> int:
        """+1 if the +1 pieces hold a winning line, -1 if the -1 pieces do, else 0."""
        return line_winner(self.checked(board), self.line_length)

    def is_full(self, board: np.ndarray) -> bool:
        """Whether no cell is empty."""
        return bool(np.all(self.checked(board) != 0))

    def key(self, board: np.ndarray) -> bytes:
        """A hashable key of the board, for memo tables."""
        return self.checked(board).tobytes()

    def signed_planes(self, planes: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
        """Mover's pieces minus the opponent's, from (.., .., 2) planes of `shape`."""
        planes = np.asarray(planes)
        if planes.shape != shape:
            raise ValueError(f"expected planes of shape {shape}, got {planes.shape}")
        return planes[:, :, 0].astype(np.int8) - planes[:, :, 1].astype(np.int8)

    @staticmethod
    def two_planes(cells: np.ndarray) -> np.ndarray:
        """int8 (.., .., 2) planes: the mover's pieces, then the opponent's."""
        return np.stack([cells == 1, cells == -1], axis=-1).astype(np.int8)
