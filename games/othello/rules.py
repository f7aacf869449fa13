"""Othello rules on an 8x8 numpy board seen by the player to move (+1 its discs, -1 the other's).

OpenSpiel's actions: square `a` < 64 is row `a // 8` (row 0 at the top, named 1),
column `a % 8` (a-h); 64 is a pass, legal only when the mover cannot place a disc
but the opponent can. The game ends when neither can place a disc; the side with
more discs wins.

The boards stay numpy arrays at the interface (`boardq.game.Rules`); inside, each
side's discs are a 64-bit Python int, and the legal squares come from shifting them in
the 8 directions, a whole board at a time, one square a step: a move of the tree search
(legal moves, the move, the end) takes about a tenth of the time numpy shifts of the
board took.
"""

from __future__ import annotations

import numpy as np

__all__ = ["PASS", "RULES", "SIZE", "OthelloRules"]

SIZE = 8
PASS = SIZE * SIZE
_DIRECTIONS = ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1))

# Bitboards: a Python int of 64 bits, bit 8r + c for square (r, c): the action's number.
_ALL = (1 << 64) - 1
_COLUMN_A = sum(1 << (8 * r) for r in range(SIZE))
_STEPS = tuple(
    # A step in direction (dr, dc) moves bit i to bit i + 8 dr + dc; a step to the right
    # must not land in column a (it came round from column h), nor one to the left in h.
    (8 * dr + dc, _ALL & ~(_COLUMN_A if dc == 1 else _COLUMN_A << 7 if dc == -1 else 0))
    for dr, dc in _DIRECTIONS
)


def _step(bits: int, shift: int, keep: int) -> int:
    """`bits` moved one square in the direction of (`shift`, `keep`) (`_STEPS`)."""
    return ((bits << shift) if shift > 0 else (bits >> -shift)) & keep


def _bits(cells: np.ndarray) -> tuple[int, int]:
    """The mover's and the opponent's discs of a board as bitboards."""
    flat = cells.reshape(-1)
    mine = np.packbits(flat == 1, bitorder="little").tobytes()
    theirs = np.packbits(flat == -1, bitorder="little").tobytes()
    return int.from_bytes(mine, "little"), int.from_bytes(theirs, "little")


def _cells(bits: int) -> np.ndarray:
    """Bool (8, 8) of a bitboard."""
    raw = np.frombuffer(bits.to_bytes(8, "little"), np.uint8)
    return np.unpackbits(raw, bitorder="little").reshape(SIZE, SIZE).astype(bool)


def _moves(mine: int, theirs: int) -> int:
    """The empty squares where the mover's disc would flip some (a fill a direction)."""
    empty = _ALL & ~(mine | theirs)
    moves = 0
    for shift, keep in _STEPS:
        # Runs of the opponent's discs that start next to one of the mover's...
        run = _step(mine, shift, keep) & theirs
        for _ in range(SIZE - 3):
            run |= _step(run, shift, keep) & theirs
        # ...and end next to an empty square: a disc there flips the run.
        moves |= _step(run, shift, keep) & empty
    return moves


def _flipped(mine: int, theirs: int, square: int) -> int:
    """The opponent's discs a disc of the mover's on `square` flips, as a bitboard."""
    flipped = 0
    for shift, keep in _STEPS:
        run, at = 0, _step(1 << square, shift, keep)
        while at & theirs:
            run |= at
            at = _step(at, shift, keep)
        if at & mine:
            flipped |= run
    return flipped


class OthelloRules:
    """Othello (8x8, OpenSpiel's `othello`) on boards seen by the player to move."""

    size = SIZE
    num_actions = PASS + 1
    pass_action = PASS

    def compiled(self, pruned=None, pass_to_end: bool = False):
        """These rules compiled for the tree search (`boardq_games.fast_tree`).

        Othello's pass is legal only where no disc can be placed, so searching it only
        where it is forced (`pass_to_end`) leaves nothing out; None with a pruning.
        """
        if pruned is not None:
            return None
        from boardq_games.fast_rules import OTHELLO
        from boardq_games.fast_tree import compiled_form

        return compiled_form(OTHELLO, SIZE, (SIZE, SIZE), np.int8, (SIZE, SIZE, 2), PASS + 1)

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
        return _cells(_moves(*_bits(self.checked(board))))

    def legal_mask(self, board: np.ndarray) -> np.ndarray:
        """Bool (65,) by action: the placements, else a pass if the opponent can move."""
        mine, theirs = _bits(self.checked(board))
        moves = _moves(mine, theirs)
        mask = np.zeros(self.num_actions, bool)
        mask[:PASS] = _cells(moves).reshape(-1)
        mask[PASS] = not moves and bool(_moves(theirs, mine))
        return mask

    def flips(self, board: np.ndarray, action: int) -> list[tuple[int, int]]:
        """The opponent's discs a disc on square `action` would flip."""
        flipped = _flipped(*_bits(self.checked(board)), int(action))
        return [divmod(square, SIZE) for square in range(PASS) if flipped >> square & 1]

    def apply(self, board: np.ndarray, action: int) -> np.ndarray:
        """Plays `action` for the mover; returns the board seen by the next mover.

        Raises:
            ValueError: the action is not legal here.
        """
        cells = self.checked(board)
        action = int(action)
        mine, theirs = _bits(cells)
        moves = _moves(mine, theirs)
        if action == PASS and not moves and _moves(theirs, mine):
            return -cells
        if not 0 <= action < PASS or not moves >> action & 1:
            raise ValueError(f"action {action} is not legal here")
        flipped = _flipped(mine, theirs, action) | 1 << action
        return _cells(theirs & ~flipped).astype(np.int8) - _cells(mine | flipped)

    def over(self, board: np.ndarray) -> bool:
        """Whether neither side can place a disc."""
        mine, theirs = _bits(self.checked(board))
        return not _moves(mine, theirs) and not _moves(theirs, mine)

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
