"""Analysis for the Go GUIs: what the agent thinks of each move, as `info` lines.

Lizzie and LizzieYzy send `lz-analyze [COLOUR] [INTERVAL]` (Leela Zero's command),
Sabaki `analyze COLOUR INTERVAL` or `kata-analyze COLOUR INTERVAL` (KataGo's), and both
`lz-genmove_analyze` / `genmove_analyze` to play while they watch. The answer is `=`,
then every INTERVAL centiseconds one line of entries, best move first:

    info move D4 visits 836 winrate 4656 prior 839 lcb 4311 order 0 pv D4 Q16

(`lz-analyze` and `analyze`: win rate and prior as integers, ten-thousandths;
`kata-analyze`: floats 0..1), until the next command ends it with an empty line.
`genmove_analyze` ends with `play VERTEX` and the empty line instead.

The figures come from the agent: a player with `analyse(observation, seconds)` (the
tree search) gives its root's moves, visits and lines; otherwise `NetworkAnalysis`
gives the network's: its best moves' values as their win rates, a softmax of the values
as their priors, one visit each, and the line where both sides play the network's best
move. Win rates are the mover's: (value + 1) / 2 of a value in [-1, 1].

As Leela Zero and KataGo do, a line lists the moves the search has visited (`shown`):
a move it has not has only the network's value, no win rate of the search's; a move
proven won, drawn or lost is listed, visited or not, with its exact value. The network
alone has visited nothing: it lists its best moves as one visit each, since its value
of a move is one look at the position after it, as a visit of the tree search is, and
a GUI given no move would show nothing. `lcb` is a lower confidence bound of the win
rate p of `visits` n: p - 2 sqrt(p (1 - p) / n), at least 0 (`lower_bound`), where
sqrt(p (1 - p)) is the largest spread a mean p of values in 0..1 can have; a proven
move's is its win rate, exact.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from boardq.gtp.protocol import GtpSyntaxError, parse_colour, parse_number
from boardq.play.resign import win_rate
from boardq.search.tree_player import MoveStats

__all__ = [
    "ANALYSE_COMMANDS",
    "AnalyseRequest",
    "NetworkAnalysis",
    "info_line",
    "lower_bound",
    "parse_request",
    "shown",
    "win_rate",
]

PRIOR_TEMPERATURE = 0.1
"""The network's priors: a softmax of its values over this temperature."""
LCB_STDEVS = 2.0
"""`lcb` is this many standard errors below the win rate."""
PV_LENGTH = 8
"""The network's line: its best move for each side, this many moves at most."""
DEFAULT_MOVES = 10
"""The moves the network's analysis lists, best first, where the GUI asks no number."""
DEFAULT_INTERVAL = 1.0
MAX_CENTISECONDS = 360_000


@dataclass(frozen=True)
class Style:
    """How a command writes its lines.

    Attributes:
        floats: win rates and priors as floats 0..1 (KataGo), else ten-thousandths.
        genmove: the command plays a move at the end (`play VERTEX`).
    """

    floats: bool = False
    genmove: bool = False


ANALYSE_COMMANDS = {
    "lz-analyze": Style(),
    "analyze": Style(),
    "kata-analyze": Style(floats=True),
    "lz-genmove_analyze": Style(genmove=True),
    "genmove_analyze": Style(genmove=True),
    "kata-genmove_analyze": Style(floats=True, genmove=True),
}
"""The streaming commands, by name."""

_IGNORED_KEYS = {
    "minmoves",
    "ownership",
    "ownershipstdev",
    "pvvisits",
    "pvedgevisits",
    "movesownership",
    "rootinfo",
}
"""KataGo's keys boardq accepts and has nothing to show for (ownership...)."""


@dataclass(frozen=True)
class AnalyseRequest:
    """An analysis command's arguments.

    Attributes:
        style: how its lines are written.
        seat: the colour it names (None: the colour to move).
        interval: seconds between lines.
        max_moves: the most moves a line lists (None: the analysis's own number).
    """

    style: Style
    seat: int | None
    interval: float
    max_moves: int | None = None


def parse_request(name: str, args: list[str]) -> AnalyseRequest:
    """The request of `NAME [COLOUR] [INTERVAL] [KEY VALUE]...` (Leela Zero's and KataGo's).

    Raises:
        GtpSyntaxError: a bad argument, or one boardq cannot honour (avoid, allow).
    """
    style = ANALYSE_COMMANDS[name]
    rest = list(args)
    seat = None
    if rest and rest[0].lower() in ("b", "w", "black", "white"):
        seat = parse_colour(rest.pop(0))
    elif style.genmove:
        raise GtpSyntaxError(f"{name} takes a color")
    interval, max_moves = DEFAULT_INTERVAL, None
    if rest and rest[0][:1].isdigit():
        interval = _centiseconds(rest.pop(0))
    while rest:
        key = rest.pop(0).lower()
        if not rest:
            raise GtpSyntaxError(f"{key} takes a value")
        value = rest.pop(0)
        if key == "interval":
            interval = _centiseconds(value)
        elif key == "maxmoves":
            max_moves = int(parse_number(value, int, 1, 10_000, "maxmoves"))
        elif key not in _IGNORED_KEYS:
            raise GtpSyntaxError(f"{key} is not supported")
    return AnalyseRequest(style, seat, interval, max_moves)


def _centiseconds(text: str) -> float:
    """Seconds of an interval in centiseconds; 0 is as often as the analysis can."""
    centiseconds = parse_number(text, int, 0, MAX_CENTISECONDS, "interval")
    return max(0.05, centiseconds / 100)


def shown(moves: list) -> list:
    """The moves a line lists: those visited, and those proven (exact without a visit)."""
    return [m for m in moves if m.visits > 0 or getattr(m, "proven", False)]


def lower_bound(rate: float, visits: int, proven: bool = False) -> float:
    """The `lcb` of a win rate of `visits`: `LCB_STDEVS` standard errors below it.

    The standard error is sqrt(rate (1 - rate) / visits), the largest a mean `rate` of
    `visits` values in 0..1 can have; a proven move's bound is its rate (exact).
    """
    if proven:
        return rate
    if visits < 1:
        return 0.0
    return max(0.0, rate - LCB_STDEVS * math.sqrt(rate * (1 - rate) / visits))


def info_line(moves: list, vertex: Callable[[int], str], floats: bool) -> str:
    """One line of `info` entries, best first, `move ... pv ...` each, of the moves `shown`."""

    def number(share: float) -> str:
        return f"{share:.4f}" if floats else str(int(round(share * 10_000)))

    entries = []
    for order, m in enumerate(shown(moves)):
        rate = win_rate(m.value)
        lcb = lower_bound(rate, int(m.visits), getattr(m, "proven", False))
        pv = " ".join(vertex(a) for a in m.pv) or vertex(m.action)
        entries.append(
            f"info move {vertex(m.action)} visits {int(m.visits)} winrate {number(rate)} "
            f"prior {number(float(m.prior))} lcb {number(lcb)} order {order} pv {pv}"
        )
    return " ".join(entries)


class NetworkAnalysis:
    """The network's view of a position, as the tree search's root would give it.

    Args:
        q_batch: the agent's values of a batch of planes, [B, ...] -> [B, A].
        rules: the game's rules, for the lines (None: each line is its move alone).
    """

    def __init__(self, q_batch: Callable[[np.ndarray], np.ndarray], rules: Any) -> None:
        self.q_batch = q_batch
        self.rules = rules
        self._last: tuple[bytes, list[MoveStats]] | None = None

    def __call__(
        self, observation: Mapping[str, np.ndarray], seconds: float = 0.0
    ) -> list[MoveStats]:
        """The best legal moves, best first (`seconds` is not needed: the network is quick).

        The last position's answer is kept: a stream asks for it every slice.
        """
        planes = np.asarray(observation["observation"], np.int8)
        legal = np.asarray(observation["action_mask"], bool)
        key = planes.tobytes() + legal.tobytes()
        if self._last is None or self._last[0] != key:
            self._last = (key, self._moves(planes, legal))
        return list(self._last[1])

    def _moves(self, planes: np.ndarray, legal: np.ndarray) -> list[MoveStats]:
        if not legal.any():
            return []
        q = np.asarray(self.q_batch(planes[None])[0], np.float64)
        actions = np.flatnonzero(legal)
        values = q[actions]
        priors = np.exp((values - values.max()) / PRIOR_TEMPERATURE)
        priors /= priors.sum()
        order = np.argsort(-values, kind="stable")[:DEFAULT_MOVES]
        return [
            MoveStats(
                int(actions[i]),
                1,
                float(np.clip(values[i], -1, 1)),
                float(priors[i]),
                self.line(planes, legal, int(actions[i])),
            )
            for i in order
        ]

    def line(self, planes: np.ndarray, legal: np.ndarray, first: int) -> tuple[int, ...]:
        """`first`, then the network's best move for each side in turn."""
        rules = self.rules
        if rules is None:
            return (first,)
        board = rules.board_from_planes(planes, legal)
        line = [first]
        for _ in range(PV_LENGTH - 1):
            board = rules.apply(board, line[-1])
            if rules.winner(board) or rules.is_full(board):
                break
            mask = np.asarray(rules.legal_mask(board), bool)
            if not mask.any():
                break
            q = np.asarray(self.q_batch(rules.planes_from_board(board)[None])[0], np.float64)
            line.append(int(np.flatnonzero(mask)[np.argmax(q[mask])]))
        return tuple(line)
