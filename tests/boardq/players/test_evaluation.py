"""Matches in the PettingZoo envs: `play_game`, `evaluate`, observers and score intervals.

The reference opponents (random, perfect, win/block): test_opponents.py.
"""

import subprocess
import sys

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test

from boardq.players.evaluation import (
    RandomPlayer,
    evaluate,
    play_game,
    score_interval,
)
from boardq_games.connect_four.rules import RULES as connect_four
from boardq_games.tictactoe.rules import RULES as tictactoe


def make_tictactoe():
    return pettingzoo.make("aec", "classic/tictactoe-v3")


def make_connect_four():
    return pettingzoo.make("aec", "classic/connect_four-v3")


class FirstLegalPlayer:
    """Plays the lowest legal action and records the boards it was shown."""

    def __init__(self, module):
        self.module = module
        self.boards = []

    def act(self, observation):
        self.boards.append(self.module.board_from_planes(observation["observation"]))
        return int(np.flatnonzero(observation["action_mask"])[0])


class IllegalPlayer:
    """Always plays action 0, which is illegal once taken."""

    def act(self, observation):
        return 0


# --- the envs ---------------------------------------------------------------------------


@pytest.mark.filterwarnings("ignore:Observation numpy array is all zeros")
@pytest.mark.parametrize("make_env", [make_tictactoe, make_connect_four])
def test_pettingzoo_api(make_env):
    api_test(make_env(), num_cycles=200)


# --- play_game and evaluate -------------------------------------------------------------


@pytest.mark.parametrize(
    "module, make_env", [(tictactoe, make_tictactoe), (connect_four, make_connect_four)]
)
def test_play_game_seats_first_player_first(module, make_env):
    first, second = FirstLegalPlayer(module), FirstLegalPlayer(module)
    # Lowest-first play: tic-tac-toe X wins on the anti-diagonal (cells 2, 4, 6) with
    # its fourth move; Connect Four fills columns 0-2 alternately, then X completes
    # the bottom row.
    assert play_game(make_env, [first, second], seed=0) == 1
    assert not first.boards[0].any()
    assert second.boards[0].sum() == -1  # One opponent piece, nothing of its own.
    assert len(first.boards) == len(second.boards) + 1


@pytest.mark.parametrize("make_env", [make_tictactoe, make_connect_four])
def test_play_game_illegal_move_loses(make_env):
    # Both play action 0: the second player's repeat is illegal in tic-tac-toe; in
    # Connect Four the first player's fourth drop into the full column 0 is illegal.
    expected = 1 if make_env is make_tictactoe else -1
    assert play_game(make_env, [IllegalPlayer(), IllegalPlayer()], seed=0) == expected


def test_play_game_needs_two_players():
    with pytest.raises(ValueError):
        play_game(make_tictactoe, [RandomPlayer()], seed=0)


def test_evaluate_rates_sum_to_one_per_seat():
    metrics = evaluate(RandomPlayer(1), RandomPlayer(2), make_connect_four, games_per_seat=10)
    assert metrics["games"] == 20.0
    for seat in ("first", "second"):
        rates = [metrics[f"{seat}/{outcome}"] for outcome in ("win", "draw", "loss")]
        assert all(0.0 <= rate <= 1.0 for rate in rates)
        assert sum(rates) == pytest.approx(1.0)
        assert metrics[f"{seat}/games"] == 10.0
        # Points: win 1, draw 0.5, loss 0.
        expected = metrics[f"{seat}/win"] + 0.5 * metrics[f"{seat}/draw"]
        assert metrics[f"{seat}/score"] == pytest.approx(expected)
        low, high = metrics[f"{seat}/score_low"], metrics[f"{seat}/score_high"]
        assert low <= metrics[f"{seat}/score"] <= high
    assert all(isinstance(value, float) for value in metrics.values())
    both = (metrics["first/score"] + metrics["second/score"]) / 2
    assert metrics["score"] == pytest.approx(both)
    assert metrics["score_low"] <= metrics["score"] <= metrics["score_high"]


class ScriptedPlayer:
    """Plays the given actions in order, whatever the position."""

    def __init__(self, actions):
        self.actions = iter(actions)

    def act(self, observation):
        return next(self.actions)


class Recorder:
    """A MoveObserver that writes down what it is told."""

    def __init__(self):
        self.calls = []

    def new_game(self):
        self.calls.append("new")

    def moved(self, action, result):
        self.calls.append((action, result))


def test_play_game_tells_observers_every_move_and_the_result():
    recorder = Recorder()
    # X takes the top row (cells 0, 3, 6 down the columns) while O plays 1 and 4.
    players = [ScriptedPlayer([0, 3, 6]), ScriptedPlayer([1, 4])]
    assert play_game(make_tictactoe, players, seed=0, observers=[recorder]) == 1
    assert recorder.calls == ["new", (0, None), (1, None), (3, None), (4, None), (6, 1)]


def test_players_that_observe_are_told_too():
    class ObservingPlayer(Recorder, FirstLegalPlayer):
        def __init__(self):
            Recorder.__init__(self)
            FirstLegalPlayer.__init__(self, tictactoe)

    watcher = ObservingPlayer()
    play_game(make_tictactoe, [RandomPlayer(0), watcher], seed=0)
    assert watcher.calls[0] == "new" and watcher.calls[-1][1] is not None
    assert all(result is None for _, result in watcher.calls[1:-1])


@pytest.mark.parametrize(
    "points, games, low, high",
    [
        # p = 0.5, n = 100, z = 1.96: center 0.5, half-width
        # 1.96 * sqrt(0.25 / 100 + 1.96^2 / 40000) / (1 + 1.96^2 / 100) = 0.09617.
        (50.0, 100, 0.40383, 0.59617),
        # p = 1: center (1 + 0.019208) / 1.038415 = 0.98150 and half-width 0.01850.
        (100.0, 100, 0.96300, 1.0),
        (0.0, 100, 0.0, 0.03700),
        # One game drawn: p = 0.5, n = 1: center 0.5, half-width
        # 1.96 * sqrt(0.25 + 0.96037) / 4.84146 = 0.44538.
        (0.5, 1, 0.05462, 0.94538),
    ],
)
def test_score_interval_by_hand(points, games, low, high):
    assert score_interval(points, games) == pytest.approx((low, high), abs=1e-5)


def test_score_interval_holds_the_score_when_every_game_had_one_result():
    for games in (1, 3, 7, 100):
        assert score_interval(0.0, games)[0] == 0.0
        assert score_interval(float(games), games)[1] == 1.0


def test_score_interval_refuses_impossible_scores():
    for points, games in [(1.0, 0), (3.0, 2), (-1.0, 2)]:
        with pytest.raises(ValueError):
            score_interval(points, games)


def test_random_play_shows_the_first_move_advantage():
    # Random against random tic-tac-toe: the first player wins ~58%, the second ~29%.
    metrics = evaluate(RandomPlayer(1), RandomPlayer(2), make_tictactoe, games_per_seat=300)
    assert metrics["first/win"] > 0.5 > metrics["second/win"]
    assert metrics["first/loss"] < 0.4 < metrics["second/loss"]


def test_the_numpy_layers_do_not_import_tensorflow():
    """Rules, evaluation, turn bookkeeping, replay and actors run without TensorFlow."""
    modules = (
        "boardq.players.evaluation boardq.dqn.actor boardq.dqn.builder boardq.dqn.replay "
        "boardq.dqn.replay_file "
        "boardq.symmetry boardq.dqn.transitions boardq.dqn.policies boardq_games "
        "boardq.players.opponents boardq.search.alphabeta boardq.players.elo "
        "boardq.players.league boardq.players.specs boardq.players.factory "
        "boardq.players.agentfile boardq.players.openspiel_bot boardq.commands"
    ).split()
    code = f"import sys, {', '.join(modules)}; sys.exit('tensorflow' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


def test_evaluate_stops_between_games_when_asked():
    calls = []

    def should_stop():
        calls.append(1)
        return len(calls) > 3

    assert (
        evaluate(RandomPlayer(1), RandomPlayer(2), make_tictactoe, 50, should_stop=should_stop)
        == {}
    )
    assert len(calls) == 4  # three games played, then it stopped
