"""GoGui's "ruler" commands and analysis menu: any of boardq's games in GoGui.

GoGui (Game > Rules, or the program itself) asks a ruler for the game's state through
`gogui-rules_*` commands, as its documentation and its `GenericBoard` read them:

- `gogui-rules_game_id`: the game's name in lowercase letters ("connectfour").
- `gogui-rules_board_size`: the side of GoGui's square board (Connect Four's 6 rows
  of 7 stand on a board of 7, its top row always empty).
- `gogui-rules_board`: the board, its top row first, `X` black's (the first player's)
  pieces, `O` white's, `.` empty. GoGui names the rows from the bottom: its top row is
  the highest row number, so a game whose rows are counted from the top (Othello, Hex)
  is drawn upside down, each point where its name says.
- `gogui-rules_legal_moves`: the legal moves of the colour to move (`pass` where it
  may pass), upper case as GoGui names points; none once the game is over.
- `gogui-rules_side_to_move`: `black` or `white`.
- `gogui-rules_final_result`: `black`, `white`, `draw`, or `unknown` while playing.
- `gogui-analyze_commands`: GoGui's analysis menu: these, and the agent's values and
  win rates of the legal moves as boards (`boardq-values`: dboard, values in [-1, 1];
  `boardq-winrates`: sboard, percent).
- `hexgui-analyze_commands`: HexGui's menu (its types: pspairs, string): the agent's
  win rates as pairs of a cell in the game's own names and a percent
  (`boardq-winrate_pairs`), and the final result.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from boardq.gtp.protocol import COLOURS, PASS, GtpDialect

__all__ = ["ANALYZE_COMMANDS", "GoGuiRuler", "board_rows"]

ANALYZE_COMMANDS = (
    "dboard/Agent: values/boardq-values",
    "sboard/Agent: win rates %/boardq-winrates",
    "plist/Legal moves/gogui-rules_legal_moves",
    "string/Side to move/gogui-rules_side_to_move",
    "string/Final result/gogui-rules_final_result",
)
"""GoGui's analysis menu (type/label/command), one entry a line."""

HEXGUI_COMMANDS = (
    "pspairs/Agent: win rates %/boardq-winrate_pairs",
    "string/Final result/gogui-rules_final_result",
)
"""HexGui's analysis menu (type/label/command)."""

_MARKS = {1: "X", -1: "O", 0: "."}


def board_rows(dialect: GtpDialect, cell: Callable[[int, int], str], blank: str = ".") -> str:
    """GoGui's square board, its top row first.

    Args:
        dialect: the game's names (GoGui's row k from the top is the row numbered
            side - k).
        cell: the text of the point in a row (0 the top) and column of the game's board.
        blank: the text of GoGui's points beyond the game's board.
    """
    side = max(dialect.size, dialect.height)
    lines = []
    for number in range(side, 0, -1):
        if number > dialect.height:
            lines.append(" ".join(blank for _ in range(side)))
            continue
        row = dialect.height - number if dialect.bottom_up else number - 1
        cells = [cell(row, col) for col in range(dialect.size)]
        lines.append(" ".join(cells + [blank] * (side - dialect.size)))
    return "\n".join(lines)


class GoGuiRuler:
    """The ruler commands over an engine's game.

    Args:
        engine: the `AgentEngine` (its match, dialect, moves and `vertex_of`).
        values: the agent's value of each action for an observation (NaN illegal), or
            None where the engine has no agent values to show.
    """

    def __init__(self, engine: Any, values: Callable[[Mapping], np.ndarray] | None) -> None:
        self.engine = engine
        self.values = values

    def handlers(self) -> dict:
        """The GTP commands it answers, by name."""
        table = {
            "gogui-rules_game_id": lambda args: re.sub("[^a-z]", "", self.engine.game.name),
            "gogui-rules_board_size": lambda args: str(self._side()),
            "gogui-rules_board": self._board,
            "gogui-rules_legal_moves": self._legal_moves,
            "gogui-rules_side_to_move": lambda args: COLOURS[self.engine.match.to_move],
            "gogui-rules_final_result": self._final_result,
            "gogui-analyze_commands": lambda args: "\n".join(self._menu()),
        }
        if self.values is not None:
            table["boardq-values"] = lambda args: self._values_board(lambda v: f"{v:.3f}")
            table["boardq-winrates"] = lambda args: self._values_board(_percent, empty='""')
            table["boardq-winrate_pairs"] = self._winrate_pairs
            table["hexgui-analyze_commands"] = lambda args: "\n".join(HEXGUI_COMMANDS)
        return table

    def _menu(self) -> list[str]:
        return [line for line in ANALYZE_COMMANDS if self.values or "boardq-" not in line]

    def _side(self) -> int:
        dialect = self.engine.dialect
        return max(dialect.size, dialect.height)

    def _board(self, args: list[str]) -> str:
        board = np.asarray(self.engine.match.board())
        return "\n" + board_rows(self.engine.dialect, lambda r, c: _MARKS[int(board[r, c])])

    def _legal_moves(self, args: list[str]) -> str:
        legal = np.flatnonzero(self.engine.match.legal())
        names = [self.engine.vertex_of(int(a)) for a in legal]
        return " ".join(n if n == PASS else n.upper() for n in names)

    def _final_result(self, args: list[str]) -> str:
        result = self.engine.match.result()
        return {None: "unknown", 1: "black", -1: "white", 0: "draw"}[result]

    def _legal_values(self) -> np.ndarray:
        """The agent's value of each legal move now (NaN elsewhere, or all once over)."""
        engine = self.engine
        if engine.match.over:
            return np.full(engine.game.num_actions, np.nan)
        values = np.array(self.values(engine.match.observation()), np.float64)
        values[~engine.match.legal()] = np.nan
        return values

    def _winrate_pairs(self, args: list[str]) -> str:
        """`CELL PERCENT` pairs of the legal moves, in the game's own names."""
        values = self._legal_values()
        actions = np.flatnonzero(~np.isnan(values))
        return " ".join(f"{self.engine.vertex_of(int(a))} {_percent(values[a])}" for a in actions)

    def _values_board(self, text: Callable[[float], str], empty: str = "0") -> str:
        """The agent's values of the legal moves on GoGui's board (`empty` elsewhere)."""
        engine = self.engine
        values = self._legal_values()
        dialect = engine.dialect
        by_point: dict[tuple[int, int], float] = {}
        for action in np.flatnonzero(~np.isnan(values)):
            if int(action) == dialect.pass_action:
                continue
            vertex = engine.vertex_of(int(action))
            by_point[_point(dialect, vertex)] = float(values[action])

        def cell(row: int, col: int) -> str:
            value = by_point.get((row, col))
            return empty if value is None else text(value)

        return "\n" + board_rows(dialect, cell, empty)


def _percent(value: float) -> str:
    """A value in [-1, 1] as a win rate in percent."""
    return f"{50 * (np.clip(value, -1, 1) + 1):.0f}"


def _point(dialect: GtpDialect, vertex: str) -> tuple[int, int]:
    """The (row from the top, column) of a vertex."""
    col = dialect.letters.lower().index(vertex[0].lower())
    number = int(vertex[1:])
    return (dialect.height - number if dialect.bottom_up else number - 1), col
