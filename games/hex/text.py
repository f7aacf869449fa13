"""Hex for people: cells named a1-g7 (column letter, then row 1-7 from the top), as OpenSpiel does.

The board is a rhombus: each row is drawn half a cell right of the one above, so a
cell's six neighbours are the two beside it, two above and two below.
"""

from __future__ import annotations

import numpy as np

from boardq_games.grid import Grid, GridText
from boardq_games.hex.env import SIZE

__all__ = ["TEXT", "winning_chain"]

# A cell's six neighbours when each row is drawn half a cell right of the one above.
_NEIGHBOURS = ((0, -1), (0, 1), (-1, 0), (-1, 1), (1, -1), (1, 0))


def winning_chain(board: np.ndarray) -> np.ndarray:
    """The cells of each group that joins its player's two edges (bool, the board's shape).

    The first player (+1) joins the top and bottom rows, the second (-1) the left and
    right columns; a group is marked whole, side branches too.
    """
    cells = np.asarray(board)
    rows, cols = cells.shape
    marked = np.zeros(cells.shape, bool)
    seen = np.zeros(cells.shape, bool)
    for r in range(rows):
        for c in range(cols):
            if cells[r, c] == 0 or seen[r, c]:
                continue
            group, todo = [], [(r, c)]
            seen[r, c] = True
            while todo:
                i, j = todo.pop()
                group.append((i, j))
                for di, dj in _NEIGHBOURS:
                    a, b = i + di, j + dj
                    if 0 <= a < rows and 0 <= b < cols and not seen[a, b]:
                        if cells[a, b] == cells[r, c]:
                            seen[a, b] = True
                            todo.append((a, b))
            along = 0 if cells[r, c] > 0 else 1  # rows joined by +1, columns by -1
            ends = {cell[along] for cell in group}
            if 0 in ends and (rows if along == 0 else cols) - 1 in ends:
                for cell in group:
                    marked[cell] = True
    return marked


TEXT = GridText(
    Grid(rows=SIZE, cols=SIZE, letters="abcdefg", shift=True),
    move_help=(
        "Type a move as a cell such as d4: the column letter a-g, then the row number 1-7\n"
        "(1 is the top row). The first player (X) joins the top and bottom edges, the\n"
        "second (O) the left and right edges; the first chain across wins."
    ),
    example="d4",
    winning=winning_chain,
)
"""OpenSpiel's x (moves first) and o."""
