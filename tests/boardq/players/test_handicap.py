"""Go's handicap in a match: the evaluated player's stones first as black, even games as white."""

from __future__ import annotations

import numpy as np
import pytest

from boardq.gtp import GtpDialect
from boardq.players.evaluation import Handicap, evaluate
from boardq.players.gtp_client import find_program
from boardq.players.records.count import LeadCount
from games import get_game

GO = get_game("go")
PASS = 81


class Passer:
    """Passes every move and keeps the boards (its own stones, the opponent's) it saw."""

    def __init__(self):
        self.seen = []

    def act(self, observation):
        planes = observation["observation"]
        self.seen.append((int(planes[..., 0].sum()), int(planes[..., 1].sum())))
        return PASS


class Moves:
    def __init__(self):
        self.games = []

    def new_game(self):
        self.games.append([])

    def moved(self, action, result):
        self.games[-1].append(action)


@pytest.mark.parametrize("stones", [2, 5, 9])
def test_black_starts_with_its_stones_and_white_plays_even(stones):
    points = GO.gtp.handicap_actions(stones)
    agent, opponent, moves, count = Passer(), Passer(), Moves(), LeadCount(GO)
    evaluate(
        count.seat(agent),
        opponent,
        GO.make_env,
        1,
        observers=[moves, count],
        openings=Handicap(points, PASS),
    )
    black_game, white_game = moves.games
    # Stones and passes alternate, then the opponent (white) moves first: it passes,
    # the agent passes back and the game ends.
    assert black_game[: 2 * stones - 1 : 2] == list(points)
    assert black_game[1 : 2 * stones - 1 : 2] == [PASS] * (stones - 1)
    assert black_game[2 * stones - 1 :] == [PASS, PASS]
    assert opponent.seen[0] == (0, stones)  # white to move sees black's stones
    assert agent.seen[0] == (stones, 0)
    assert white_game == [PASS, PASS]  # as white, an even game
    # The agent's lead: as black its stones hold the board, as white the komi.
    summary = count.summary()
    assert summary["lead/first/mean"] == 81 - 7.5 and summary["lead/second/mean"] == 7.5


def test_the_fixed_points_are_go_points_and_unknown_sizes_are_refused():
    for stones in range(2, 10):
        points = GO.gtp.handicap_actions(stones)
        assert len(set(points)) == stones and all(0 <= p < 81 for p in points)
    assert GO.gtp.handicap_actions(5)[2] == 40  # the centre, E5
    with pytest.raises(ValueError, match="no fixed handicap of 10 stones"):
        GO.gtp.handicap_actions(10)
    dialect = GtpDialect(size=8, letters="abcdefgh", bottom_up=False, pass_action=None)
    with pytest.raises(ValueError, match="there are: none"):
        dialect.handicap_actions(2)


@pytest.mark.skipif(find_program("gnugo") is None, reason="GNU Go is not installed")
@pytest.mark.parametrize("stones", range(2, 10))
def test_the_points_are_gnu_gos_fixed_handicap(stones):
    from boardq.players.gtp_client import GtpEngine

    with GtpEngine("gnugo --mode gtp") as engine:
        engine.send("boardsize 9")
        engine.send("clear_board")
        answer = engine.send(f"fixed_handicap {stones}")
    assert sorted(answer.split()) == sorted(GO.gtp.handicap[stones])
    assert np.array_equal(
        sorted(GO.gtp.handicap_actions(stones)),
        sorted(GO.gtp.action(v) for v in answer.split()),
    )
