"""`Match`: a match keeps the result of every game that ended, whatever stops it."""

from __future__ import annotations

import pettingzoo
import pytest

from boardq.errors import BoardqError
from boardq.players.evaluation import Match, RandomPlayer, evaluate


def make_tictactoe():
    return pettingzoo.make("aec", "classic/tictactoe-v3")


class FailsOnce(RandomPlayer):
    """A random player that raises `error` once, on its `at`-th move (counted from 1)."""

    def __init__(self, at: int, error: BaseException, seed: int = 0):
        super().__init__(seed)
        self.at, self.error, self.moves = at, error, 0

    def act(self, observation):
        self.moves += 1
        if self.moves == self.at:
            raise self.error
        return super().act(observation)


@pytest.mark.parametrize("error", [BoardqError("engine gone"), KeyboardInterrupt()])
def test_a_match_that_stops_keeps_the_games_that_ended(error):
    # Tic-tac-toe: the second player moves 2 to 4 times a game, so the opponent's 8th
    # move falls in the second, third or fourth of the 5 games where it moves second.
    opponent = FailsOnce(8, error)
    match = Match(RandomPlayer(1), opponent, make_tictactoe, games_per_seat=5)
    with pytest.raises(type(error)):
        match.play()
    assert 1 <= match.played <= 3 and match.second == []
    m = match.metrics()
    assert m["games"] == m["first/games"] == match.played
    assert m["first/win"] + m["first/draw"] + m["first/loss"] == pytest.approx(1.0)
    assert not any(key.startswith("second/") for key in m)
    # Played on, it starts at the game that failed and ends with the whole match.
    assert match.play() is True
    assert (len(match.first), len(match.second)) == (5, 5)
    assert match.metrics()["games"] == 10.0 and match.metrics()["second/games"] == 5.0


def test_a_match_without_a_game_has_no_scores():
    match = Match(FailsOnce(1, BoardqError("gone")), RandomPlayer(), make_tictactoe, 3)
    with pytest.raises(BoardqError, match="gone"):
        match.play()
    assert match.played == 0 and match.metrics() == {}


def test_evaluate_is_a_whole_match():
    whole = evaluate(RandomPlayer(1), RandomPlayer(2), make_tictactoe, 20, seed=7)
    match = Match(RandomPlayer(1), RandomPlayer(2), make_tictactoe, 20, seed=7)
    assert match.play() is True
    assert match.metrics() == whole  # the same seeds, the same games
    assert whole["games"] == 40.0 and whole["first/games"] == whole["second/games"] == 20.0


def test_a_match_refuses_no_games():
    with pytest.raises(ValueError, match="games_per_seat must be positive"):
        Match(RandomPlayer(), RandomPlayer(), make_tictactoe, 0)
