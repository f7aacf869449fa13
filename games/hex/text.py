"""Hex for people: cells named a1-g7 (column letter, then row 1-7 from the top), as OpenSpiel does.

The board is a rhombus: each row is drawn half a cell right of the one above, so a
cell's six neighbours are the two beside it, two above and two below.
"""

from __future__ import annotations

from games.grid import Grid, GridText
from games.hex.env import SIZE

__all__ = ["TEXT"]

TEXT = GridText(
    Grid(rows=SIZE, cols=SIZE, letters="abcdefg", shift=True),
    move_help=(
        "Type a move as a cell such as d4: the column letter a-g, then the row number 1-7\n"
        "(1 is the top row). The first player (X) joins the top and bottom edges, the\n"
        "second (O) the left and right edges; the first chain across wins."
    ),
    example="d4",
)
"""OpenSpiel's x (moves first) and o."""
