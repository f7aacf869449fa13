"""Othello for people: squares named a1-h8 (column letter, then row 1-8 from the top), and pass."""

from __future__ import annotations

from boardq_games.grid import Grid, GridText
from boardq_games.othello.rules import PASS, SIZE

__all__ = ["TEXT"]

TEXT = GridText(
    Grid(rows=SIZE, cols=SIZE, letters="abcdefgh", pass_action=PASS),
    move_help=(
        "Type a move as a square such as d3: the column letter a-h, then the row number\n"
        "1-8 (1 is the top row). Your disc must flip at least one of the opponent's\n"
        "discs; when none can, type pass (it is then your only move)."
    ),
    example="d3",
)
"""The board as OpenSpiel draws it: black (X, moves first) and white (O)."""
