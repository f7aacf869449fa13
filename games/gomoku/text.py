"""Gomoku for people: points named a1-i9 (column letter, then row 1-9 from the bottom)."""

from __future__ import annotations

from boardq_games.gomoku.rules import RULES, SIZE
from boardq_games.grid import Grid, GridText
from boardq_games.lines import winning_cells

__all__ = ["TEXT"]

TEXT = GridText(
    Grid(rows=SIZE, cols=SIZE, letters="abcdefghi", bottom_up=True),
    move_help=(
        "Type a move as a point such as e5: the column letter a-i, then the row number\n"
        "1-9 (1 is the bottom row), as on a Go board. Five or more stones in a row, in\n"
        "any direction, win."
    ),
    example="e5",
    winning=lambda board: winning_cells(board, RULES.line_length),
)
"""Black (X, moves first) and white (O); row 1 at the bottom, as Gomoku boards are read."""
