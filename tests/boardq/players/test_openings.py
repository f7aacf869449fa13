"""Seeded random openings (the same from both seats), Go's handicap, and resignation, in
plain matches."""

from __future__ import annotations

import numpy as np
import pytest

from boardq.catalog import get_game
from boardq.gtp.client import find_program
from boardq.players.evaluation import (
    Handicap,
    Openings,
    RandomPlayer,
    Resigned,
    evaluate,
    play_game,
)
from boardq.records.count import LeadCount
from boardq_games.go import HANDICAP

TTT = get_game("tictactoe")
GO = get_game("go")
PASS = 81


class Moves:
    """Keeps every game's moves."""

    def __init__(self):
        self.games = []

    def new_game(self):
        self.games.append([])

    def moved(self, action, result):
        self.games[-1].append(action)


class FirstLegal:
    def act(self, observation):
        return int(observation["action_mask"].nonzero()[0][0])


def test_each_game_and_its_swapped_twin_open_alike_and_differ_from_the_others():
    moves = Moves()
    evaluate(
        FirstLegal(), FirstLegal(), TTT.make_env, 3, seed=7, observers=[moves], openings=Openings(2)
    )
    openings = [tuple(game[:2]) for game in moves.games]
    assert openings[:3] == openings[3:]  # game i from the first seat, game i from the second
    assert len(set(openings[:3])) > 1  # deterministic players, yet the games differ
    # Without openings the two deterministic players repeat one game.
    moves = Moves()
    evaluate(FirstLegal(), FirstLegal(), TTT.make_env, 3, seed=7, observers=[moves])
    assert len({tuple(game) for game in moves.games}) == 1


def test_openings_avoid_the_pass_while_there_is_another_move():
    mover = Openings(6, avoid=81).player(0)
    mask = np.zeros(82, np.int8)
    mask[[3, 40, 81]] = 1
    assert {mover.act({"action_mask": mask}) for _ in range(50)} == {3, 40}
    only_pass = np.zeros(82, np.int8)
    only_pass[81] = 1
    assert mover.act({"action_mask": only_pass}) == 81


class Resigner:
    def __init__(self):
        self.told = []

    def act(self, observation):
        raise Resigned("enough")

    def new_game(self):
        pass

    def moved(self, action, result):
        pass

    def resigned(self, result):
        self.told.append(result)


def test_the_player_who_resigns_loses_and_observers_are_told():
    watcher = Resigner()
    assert play_game(TTT.make_env, (RandomPlayer(0), Resigner()), 0, [watcher]) == 1
    assert play_game(TTT.make_env, (Resigner(), RandomPlayer(0)), 0, [watcher]) == -1
    assert watcher.told == [1, -1]


class Passer:
    """Passes every move and keeps the boards (its own stones, the opponent's) it saw."""

    def __init__(self):
        self.seen = []

    def act(self, observation):
        planes = observation["observation"]
        self.seen.append((int(planes[..., 0].sum()), int(planes[..., 1].sum())))
        return PASS


@pytest.mark.parametrize("stones", [2, 5, 9])
def test_black_starts_with_its_stones_and_white_plays_even(stones):
    points = GO.setup.handicap_points(stones)
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
        points = GO.setup.handicap_points(stones)
        assert len(set(points)) == stones and all(0 <= p < 81 for p in points)
    assert GO.setup.handicap_points(5)[2] == 40  # the centre, E5
    with pytest.raises(ValueError, match="Go places 2-9 handicap stones, not 10"):
        GO.setup.handicap_points(10, "Go")
    with pytest.raises(ValueError, match="Othello has no handicap stones"):
        get_game("othello").setup.handicap_points(2, "Othello")


@pytest.mark.skipif(find_program("gnugo") is None, reason="GNU Go is not installed")
@pytest.mark.parametrize("stones", range(2, 10))
def test_the_points_are_gnu_gos_fixed_handicap(stones):
    from boardq.gtp.client import GtpEngine

    with GtpEngine("gnugo --mode gtp") as engine:
        engine.send("boardsize 9")
        engine.send("clear_board")
        answer = engine.send(f"fixed_handicap {stones}")
    assert sorted(answer.split()) == sorted(HANDICAP[stones])
    assert np.array_equal(
        sorted(GO.setup.handicap_points(stones)),
        sorted(GO.gtp.action(v) for v in answer.split()),
    )
