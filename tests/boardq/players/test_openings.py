"""Seeded random openings (the same from both seats) and resignation, in plain matches."""

from __future__ import annotations

from boardq.catalog import get_game
from boardq.players.evaluation import Openings, RandomPlayer, Resigned, evaluate, play_game

TTT = get_game("tictactoe")


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
    import numpy as np

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
