"""The engine's clock: settings read, time spread, never overrun, as servers drive it.

The budgets are computed by hand from `gtp_clock`'s rule: main time over the moves
left (half the empty points, at least 10), plus half an overtime period's share, less
a reserve of 0.25 s and 5% of what the clock allows.
"""

from __future__ import annotations

import numpy as np
import pytest

from boardq.catalog import get_game
from boardq.gtp.clock import (
    TimeControl,
    Timer,
    budget,
    parse_kgs_settings,
    parse_settings,
    spend,
    told,
)
from boardq.gtp.engine import AgentEngine
from boardq.gtp.protocol import GtpSyntaxError

BYOYOMI = TimeControl("byoyomi", 300, 30, periods=5)
CANADIAN = TimeControl("canadian", 0, 60, stones=10)


@pytest.mark.parametrize(
    "args, control",
    [
        (["300", "30", "5"], TimeControl("canadian", 300, 30, stones=5)),
        (["600", "0", "0"], TimeControl("absolute", 600)),
        (["0", "1", "0"], TimeControl()),  # GTP: stones 0 with a period is no limit
        (["0", "0", "0"], TimeControl()),
    ],
)
def test_time_settings_are_gtps_canadian_overtime(args, control):
    assert parse_settings(args) == control


@pytest.mark.parametrize(
    "args, control",
    [
        (["none"], TimeControl()),
        (["absolute", "600"], TimeControl("absolute", 600)),
        (["byoyomi", "300", "30", "5"], BYOYOMI),
        (["canadian", "0", "60", "10"], CANADIAN),
        (["BYOYOMI", "10", "0", "0"], TimeControl("absolute", 10)),
    ],
)
def test_kgs_time_settings_name_the_system(args, control):
    assert parse_kgs_settings(args) == control


@pytest.mark.parametrize(
    "args",
    [[], ["byoyomi", "1"], ["fischer", "1", "2"], ["absolute", "9" * 5000], ["absolute", "-1"]],
)
def test_bad_kgs_settings_are_refused(args):
    with pytest.raises(GtpSyntaxError):
        parse_kgs_settings(args)


def test_budgets_by_hand():
    absolute = TimeControl("absolute", 60)
    assert budget(absolute, Timer(60), 81) == pytest.approx(60 / 40)  # 81 // 2 moves left
    assert budget(absolute, Timer(60), 6) == pytest.approx(60 / 10)  # at least 10
    assert budget(absolute, Timer(1.0), 81) == pytest.approx(1 / 40)
    assert budget(absolute, Timer(0.2), 81) == 0.0  # under the reserve: no time to think
    overtime = Timer(0, 30, 5, overtime=True)
    assert budget(BYOYOMI, overtime, 81) == pytest.approx(15)  # half a period
    assert budget(BYOYOMI, Timer(300, 30, 5), 81) == pytest.approx(300 / 40 + 15)
    assert budget(CANADIAN, overtime, 81) == pytest.approx(0.5 * 30 / 5)
    assert budget(TimeControl(), Timer(0), 81) is None
    # A period so short the reserve takes most of it: what is left, not half.
    assert budget(BYOYOMI.__class__("byoyomi", 0, 0.3, periods=1), Timer(0, 0.3, 1, True), 81) == (
        pytest.approx(0.3 - 0.25 - 0.015)
    )


def test_spending_and_time_left():
    assert spend(BYOYOMI, Timer(5, 30, 5), 12) == Timer(0, 30, 5, overtime=True)  # within
    assert spend(BYOYOMI, Timer(0, 30, 5, True), 65) == Timer(0, 30, 3, overtime=True)
    assert spend(CANADIAN, Timer(0, 30, 5, True), 4) == Timer(0, 26, 4, overtime=True)
    assert spend(CANADIAN, Timer(0, 30, 1, True), 4) == Timer(0, 60, 10, overtime=True)
    assert told(BYOYOMI, 20, 0) == Timer(20, 30, 5, overtime=False)
    assert told(BYOYOMI, 25, 3) == Timer(0, 25, 3, overtime=True)


class Server:
    """A gtp2ogs-like server's clock: it charges each move all the time it was allowed."""

    def __init__(self, control: TimeControl):
        self.control = control
        self.main = [control.main, control.main]
        self.period = [control.period, control.period]
        self.periods = [control.periods, control.periods]

    def time_left(self, seat: int) -> str:
        colour = "bw"[seat]
        if self.main[seat] > 0:
            return f"time_left {colour} {self.main[seat]:.3f} 0"
        return f"time_left {colour} {self.period[seat]:.3f} {self.periods[seat]}"

    def charge(self, seat: int, seconds: float) -> None:
        over = seconds - self.main[seat]
        self.main[seat] = max(0.0, -over)
        if over > 0:
            assert over <= self.control.period, "the move lost a byo-yomi period"


def test_a_whole_game_under_gtp2ogs_time_commands_gets_no_error_and_never_overruns():
    given = []

    def act(observation, seconds):
        given.append(seconds)
        legal = np.flatnonzero(observation["action_mask"])
        if len(given) > 60:  # then both pass: the game ends
            return int(legal[-1])
        return int(legal[(7 * len(given)) % len(legal)])

    engine = AgentEngine(get_game("go"), act)
    control = TimeControl("byoyomi", 5, 2, periods=3)
    server = Server(control)
    answers = [engine.answer(line) for line in ("komi 6.5", "kgs-time_settings byoyomi 5 2 3")]
    plies = 0
    while not engine.match.over:
        seat = engine.match.to_move
        answers.append(engine.answer(server.time_left(seat)))
        answers.append(engine.answer(f"genmove {'bw'[seat]}"))
        server.charge(seat, given[-1])
        plies += 1
    assert all(a.startswith("=") for a in answers), [a for a in answers if a[0] == "?"]
    assert plies > 60 and all(s is not None and s >= 0 for s in given)
    assert max(given) <= control.period  # even in main time a move never spends more


def test_the_commands_decide_searches_within_the_seconds_the_clock_gives():
    """`boardq gtp`'s decide with the real bundled agent: the network alone ignores the
    clock; the alpha-beta of --search and the tree search search within the seconds;
    each gives its move's value from the search that chose it."""
    from boardq.commands.agents import load_agent
    from boardq.commands.gtp import timed_act

    game = get_game("go")
    agent = load_agent(game.bundled_agent, game)
    observation = AgentEngine(game, lambda obs: 0).match.observation()
    legal = np.flatnonzero(observation["action_mask"])
    for player in (agent, agent.searcher(2), agent.searcher(move_time=0.3)):
        decide = timed_act(agent, player)
        for seconds in (None, 0.01, 0.2):
            action, value = decide(observation, seconds)
            assert action in legal and -1 <= value <= 1
    q = agent.q_values(observation)
    best = int(np.nanargmax(q))
    assert timed_act(agent, agent.searcher(2))(observation, 0.01) == (best, q[best])
    # 0.2 s is searched by the alpha-beta of 2**-2.5 s (kept): its move and its value.
    kept = agent.alpha_beta(move_time=2**-2.5)
    assert timed_act(agent, agent.searcher(2))(observation, 0.2) == kept.decide(observation)


def budget_after(game_name: str, plies: int, settings: str = "kgs-time_settings absolute 60"):
    """The seconds the engine gives its next move in `game_name` after `plies` first moves."""
    given = []

    def act(observation, seconds):
        given.append(seconds)
        return int(np.flatnonzero(observation["action_mask"])[0])

    engine = AgentEngine(get_game(game_name), act)
    assert engine.answer(settings) == "=\n\n"
    for _ in range(plies):
        engine.match.play(int(np.flatnonzero(engine.match.legal())[0]))
    seat = engine.match.to_move
    assert engine.answer(f"genmove {'bw'[seat]}").startswith("= ")
    return given[-1]


@pytest.mark.parametrize(
    "game, plies, moves_left",
    [
        ("connect_four", 0, 21),  # 42 cells: 21 moves each
        ("connect_four", 12, 15),  # 30 cells left
        ("othello", 0, 30),  # 60 empty squares
        ("othello", 10, 25),
        ("go", 0, 40),  # 81 points // 2, as before
    ],
)
def test_main_time_is_spread_over_the_moves_the_game_really_has_left(game, plies, moves_left):
    """The budget counts the board's empty points, not the legal moves (Connect Four's 7
    columns, Othello's few flips were at the floor of 10: main time spent early)."""
    assert budget_after(game, plies) == pytest.approx(60 / moves_left)
