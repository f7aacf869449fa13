"""Othello rules on an 8x8 numpy board seen by the player to move (+1 its discs, -1 the other's).

OpenSpiel's actions: square `a` < 64 is row `a // 8` (row 0 at the top, named 1),
column `a % 8` (a-h); 64 is a pass, legal only when the mover cannot place a disc
but the opponent can. The game ends when neither can place a disc; the side with
more discs wins.
"""

from __future__ import annotations

import numpy as np

__all__ = ["PASS", "RULES", "SIZE", "OthelloRules"]

SIZE = 8
PASS = SIZE * SIZE
_DIRECTIONS = ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1))


def _shift(cells: np.ndarray, dr: int, dc: int) -> np.ndarray:
    """`cells` moved by (dr, dc): out[r + dr, c + dc] = cells[r, c]; what leaves is dropped."""
    out = np.zeros_like(cells)
    rows, cols = cells.shape
    out[max(dr, 0) : rows + min(dr, 0), max(dc, 0) : cols + min(dc, 0)] = cells[
        max(-dr, 0) : rows + min(-dr, 0), max(-dc, 0) : cols + min(-dc, 0)
    ]
    return out


class OthelloRules:
    """Othello (8x8, OpenSpiel's `othello`) on boards seen by the player to move."""

    size = SIZE
    num_actions = PASS + 1
    pass_action = PASS

    def checked(self, board: np.ndarray) -> np.ndarray:
        """The board as int8, or ValueError if it has the wrong shape."""
        cells = np.asarray(board, dtype=np.int8)
        if cells.shape != (SIZE, SIZE):
            raise ValueError(f"expected a board of shape {(SIZE, SIZE)}, got {cells.shape}")
        return cells

    def board_from_planes(self, planes: np.ndarray, legal: np.ndarray | None = None) -> np.ndarray:
        """The board of the mover's (8, 8, 2) planes: its discs, then the opponent's.

        The planes show the whole position: `legal` is not needed.
        """
        planes = np.asarray(planes)
        if planes.shape != (SIZE, SIZE, 2):
            raise ValueError(f"expected planes of shape {(SIZE, SIZE, 2)}, got {planes.shape}")
        return planes[..., 0].astype(np.int8) - planes[..., 1].astype(np.int8)

    def planes_from_board(self, board: np.ndarray) -> np.ndarray:
        """The mover's planes of a board: the inverse of `board_from_planes`."""
        cells = self.checked(board)
        return np.stack([cells == 1, cells == -1], axis=-1).astype(np.int8)

    def placements(self, board: np.ndarray) -> np.ndarray:
        """Bool (8, 8): the empty squares where the mover's disc would flip some."""
        cells = self.checked(board)
        mine, theirs, empty = cells == 1, cells == -1, cells == 0
        moves = np.zeros_like(mine)
        for dr, dc in _DIRECTIONS:
            # Runs of the opponent's discs that start next to one of the mover's...
            run = _shift(mine, dr, dc) & theirs
            for _ in range(SIZE - 3):
                run |= _shift(run, dr, dc) & theirs
            # ...and end next to an empty square: a disc there flips the run.
            moves |= _shift(run, dr, dc) & empty
        return moves

    def legal_mask(self, board: np.ndarray) -> np.ndarray:
        """Bool (65,) by action: the placements, else a pass if the opponent can move."""
        mask = np.zeros(self.num_actions, bool)
        moves = self.placements(board)
        mask[:PASS] = moves.ravel()
        mask[PASS] = not moves.any() and bool(self.placements(-self.checked(board)).any())
        return mask

    def flips(self, board: np.ndarray, action: int) -> list[tuple[int, int]]:
        """The opponent's discs a disc on square `action` would flip."""
        cells = self.checked(board)
        row, col = divmod(int(action), SIZE)
        flipped: list[tuple[int, int]] = []
        for dr, dc in _DIRECTIONS:
            r, c, run = row + dr, col + dc, []
            while 0 <= r < SIZE and 0 <= c < SIZE and cells[r, c] == -1:
                run.append((r, c))
                r, c = r + dr, c + dc
            if run and 0 <= r < SIZE and 0 <= c < SIZE and cells[r, c] == 1:
                flipped += run
        return flipped

    def apply(self, board: np.ndarray, action: int) -> np.ndarray:
        """Plays `action` for the mover; returns the board seen by the next mover.

        Raises:
            ValueError: the action is not legal here.
        """
        cells = self.checked(board)
        action = int(action)
        if not 0 <= action < self.num_actions or not self.legal_mask(cells)[action]:
            raise ValueError(f"action {action} is not legal here")
        if action == PASS:
            return -cells
        after = cells.copy()
        after[divmod(action, SIZE)] = 1
        for cell in self.flips(cells, action):
            after[cell] = 1
        return -after

    def over(self, board: np.ndarray) -> bool:
        """Whether neither side can place a disc."""
        cells = self.checked(board)
        return not self.placements(cells).any() and not self.placements(-cells).any()

    def winner(self, board: np.ndarray) -> int:
        """Once the game is over, +1 if the mover has more discs, -1 if fewer; else 0."""
        cells = self.checked(board)
        return int(np.sign(cells.sum(dtype=np.int32))) if self.over(cells) else 0

    def is_full(self, board: np.ndarray) -> bool:
        """Whether the game is over with as many discs on each side (a draw)."""
        cells = self.checked(board)
        # The count first: it is cheap, and an uneven count is no draw whether over or not.
        return int(cells.sum(dtype=np.int32)) == 0 and self.over(cells)

    def key(self, board: np.ndarray) -> bytes:
        """A hashable key of the board, for memo tables."""
        return self.checked(board).tobytes()

    @staticmethod
    def start() -> np.ndarray:
        """The first position, seen by the first player (black: d5 and e4)."""
        board = np.zeros((SIZE, SIZE), np.int8)
        board[3, 3] = board[4, 4] = -1
        board[3, 4] = board[4, 3] = 1
        return board


RULES = OthelloRules()
