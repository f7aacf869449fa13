"""Go for people: points named as on a Go board (GTP), A1-J9 without I, rows from the bottom."""

from __future__ import annotations

from boardq_games.grid import Grid, GridText

__all__ = ["SIZE", "TEXT"]

SIZE = 9

TEXT = GridText(
    Grid(
        rows=SIZE,
        cols=SIZE,
        letters="ABCDEFGHJ",
        bottom_up=True,
        pass_action=SIZE * SIZE,
        empty="+",
        ascii_empty="+",
    ),
    move_help=(
        "Type a move as a point such as D4: the column letter A-J (there is no I), then\n"
        "the row number 1-9 (1 is the bottom row); or pass. Two passes in a row end the\n"
        "game; the board is scored by area with 7.5 points of komi for white."
    ),
    example="D4",
)
"""Black (X, moves first) and white (O)."""
