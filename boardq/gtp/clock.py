"""The game's clock over GTP: `time_settings`, `kgs-time_settings`, `time_left`.

GUIs send `time_settings MAIN BYO_YOMI_TIME BYO_YOMI_STONES` (GTP v2, 4.4: Canadian
overtime; 0 stones with a period means no limit), servers (gtp2ogs, KGS)
`kgs-time_settings none | absolute MAIN | byoyomi MAIN PERIOD PERIODS | canadian MAIN
PERIOD STONES`, and `time_left COLOUR SECONDS STONES` before each move (stones 0: in
main time; else the stones, or for byo-yomi the periods, left in overtime).

`Clock` keeps each colour's time: what `time_left` says, and between those what the
agent spent on its own moves. `budget` is the time the agent may take for its next
move: main time spread over the moves a game still has (half the plies the game
estimates it has left, `Game.plies_left`: its empty points; at least 10, as Go can
outlast its empty points), plus half an overtime period's share for each move; a reserve is always
kept, so the agent never overruns a period or the main time under the settings it was
given. None: no clock is set.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from boardq.gtp.protocol import GtpSyntaxError, parse_colour, parse_number

__all__ = ["Clock", "TimeControl", "Timer", "budget", "parse_kgs_settings", "parse_settings"]

MAX_SECONDS = 10_000_000.0
"""The longest time a command may name (about 115 days)."""
MAX_STONES = 100_000
RESERVE_SECONDS = 0.25
"""Always kept back from what the clock allows: the answer's way to the server."""
RESERVE_SHARE = 0.05
"""And this share of it."""
OVERTIME_SHARE = 0.5
"""The share of an overtime period (for byo-yomi) or of a stone's share of it (Canadian)
a move takes."""
MIN_MOVES_LEFT = 10


@dataclass(frozen=True)
class TimeControl:
    """A game's time settings.

    Attributes:
        system: "none", "absolute", "byoyomi" (Japanese: `periods` periods of `period`
            seconds, one used up by each move that overruns it) or "canadian" (`stones`
            moves in each period of `period` seconds).
        main: the main time, seconds.
        period: an overtime period, seconds.
        stones: Canadian: the moves of a period.
        periods: byo-yomi: the periods.
    """

    system: str = "none"
    main: float = 0.0
    period: float = 0.0
    stones: int = 0
    periods: int = 0


@dataclass(frozen=True)
class Timer:
    """One colour's time left.

    Attributes:
        main: main time left, seconds.
        period: time left in the current overtime period (overtime: main is 0).
        stones: Canadian: moves left in the period; byo-yomi: periods left.
        overtime: whether main time is spent.
    """

    main: float
    period: float = 0.0
    stones: int = 0
    overtime: bool = False


def start(control: TimeControl) -> Timer:
    """A colour's time at the start of a game."""
    stones = control.periods if control.system == "byoyomi" else control.stones
    return Timer(control.main, control.period, stones, overtime=control.main <= 0)


def budget(control: TimeControl, timer: Timer, plies_left: int) -> float | None:
    """The seconds the next move may take; None without a limit.

    Args:
        control: the time settings.
        timer: the mover's time left.
        plies_left: the moves of both colours the game has left, about
            (`Game.plies_left`: the board's empty points); half of them are the mover's.
    """
    if control.system == "none":
        return None
    moves_left = max(MIN_MOVES_LEFT, plies_left // 2)
    share = timer.main / moves_left if not timer.overtime else 0.0
    if control.system == "byoyomi" and control.period > 0:
        share += OVERTIME_SHARE * control.period
        allowed = timer.main + control.period  # a move within one period loses none
    elif control.system == "canadian" and control.stones > 0:
        stones = max(1, timer.stones) if timer.overtime else control.stones
        period = timer.period if timer.overtime else control.period
        share += OVERTIME_SHARE * period / stones
        allowed = timer.main + period
    else:
        allowed = timer.main
    keep = RESERVE_SECONDS + RESERVE_SHARE * allowed
    return max(0.0, min(share, allowed - keep))


def spend(control: TimeControl, timer: Timer, seconds: float) -> Timer:
    """The timer after a move of `seconds` (the engine's own count between `time_left`s)."""
    if control.system in ("none", "absolute") or seconds <= timer.main:
        return replace(timer, main=max(0.0, timer.main - seconds))
    over = seconds - timer.main
    if control.system == "byoyomi":
        lost = math.floor(over / control.period) if control.period > 0 else 0
        return Timer(0.0, control.period, max(0, timer.stones - lost), overtime=True)
    period = timer.period if timer.overtime else control.period
    stones = (timer.stones if timer.overtime else control.stones) - 1
    if stones <= 0:  # the period's moves are made: a new period
        return Timer(0.0, control.period, control.stones, overtime=True)
    return Timer(0.0, max(0.0, period - over), stones, overtime=True)


def told(control: TimeControl, seconds: float, stones: int) -> Timer:
    """The timer `time_left COLOUR SECONDS STONES` says."""
    if stones == 0 and control.system != "none":
        return Timer(seconds, control.period, start(control).stones, overtime=False)
    return Timer(0.0, seconds, stones, overtime=True)


def _seconds(text: str, what: str) -> float:
    return float(parse_number(text, float, 0, MAX_SECONDS, what))


def _stones(text: str, what: str) -> int:
    return int(parse_number(text, int, 0, MAX_STONES, what))


def parse_settings(args: list[str]) -> TimeControl:
    """`time_settings MAIN BYO_YOMI_TIME BYO_YOMI_STONES` (GTP's Canadian overtime)."""
    if len(args) != 3:
        raise GtpSyntaxError("time_settings takes main time, byo-yomi time and stones")
    main = _seconds(args[0], "main time")
    period = _seconds(args[1], "byo-yomi time")
    stones = _stones(args[2], "byo-yomi stones")
    if period > 0 and stones == 0:
        return TimeControl()  # GTP: no time limit
    if period == 0:
        return TimeControl("absolute", main) if main > 0 else TimeControl()
    return TimeControl("canadian", main, period, stones=stones)


def parse_kgs_settings(args: list[str]) -> TimeControl:
    """`kgs-time_settings none | absolute MAIN | byoyomi MAIN PERIOD N | canadian MAIN PERIOD N`."""
    shapes = {"none": 0, "absolute": 1, "byoyomi": 3, "canadian": 3}
    system = args[0].lower() if args else ""
    if system not in shapes or len(args) != 1 + shapes[system]:
        raise GtpSyntaxError(
            "kgs-time_settings takes none, absolute MAIN, byoyomi MAIN PERIOD PERIODS "
            "or canadian MAIN PERIOD STONES"
        )
    if system == "none":
        return TimeControl()
    main = _seconds(args[1], "main time")
    if system == "absolute":
        return TimeControl("absolute", main)
    period = _seconds(args[2], "period")
    count = _stones(args[3], "periods" if system == "byoyomi" else "stones")
    if count == 0 or period == 0:
        return TimeControl("absolute", main)
    if system == "byoyomi":
        return TimeControl("byoyomi", main, period, periods=count)
    return TimeControl("canadian", main, period, stones=count)


class Clock:
    """Both colours' time under the settings the controller gave; answers the commands."""

    def __init__(self) -> None:
        self.control = TimeControl()
        self.timers = [start(self.control), start(self.control)]

    def handlers(self) -> dict:
        """The GTP commands it answers, by name."""
        return {
            "time_settings": lambda args: self.set(parse_settings(args)),
            "kgs-time_settings": lambda args: self.set(parse_kgs_settings(args)),
            "time_left": self._time_left,
        }

    def set(self, control: TimeControl) -> str:
        """New settings; both colours start afresh."""
        self.control = control
        self.timers = [start(control), start(control)]
        return ""

    def _time_left(self, args: list[str]) -> str:
        if len(args) != 3:
            raise GtpSyntaxError("time_left takes a color, seconds and stones")
        seat = parse_colour(args[0])
        seconds = _seconds(args[1], "time left")
        stones = _stones(args[2], "stones")
        self.timers[seat] = told(self.control, seconds, stones)
        return ""

    def budget(self, seat: int, plies_left: int) -> float | None:
        """The seconds `seat`'s next move may take (`budget`); None without a limit."""
        return budget(self.control, self.timers[seat], plies_left)

    def spent(self, seat: int, seconds: float) -> None:
        """Counts a move of `seat` that took `seconds`."""
        self.timers[seat] = spend(self.control, self.timers[seat], seconds)
