"""Random openings: which moves of a batch of games are replaced by random legal ones."""

from __future__ import annotations

import numpy as np
import pytest

from boardq.dqn.actor import Actor
from boardq.dqn.openings import NoOpenings, RandomOpenings, make_openings
from boardq_games import get_game


def play_plies(openings, games, plies, actions_n=9, seed=0):
    """The moves of `games` games over `plies` plies, all started together.

    The policy always chooses move 0, which the mask makes illegal, so a move other
    than 0 is one the opening put in, and every one of those must be legal.
    """
    rng = np.random.default_rng(seed)
    mask = np.ones((games, actions_n), bool)
    mask[:, 0] = False
    mask[::2, 1] = False  # rows with fewer legal moves: still only legal ones are drawn
    made = np.zeros((plies, games), np.int64)
    for p in range(plies):
        moves = openings.moves(np.zeros(games, np.int64), mask, np.full(games, p), rng)
        assert mask[np.arange(games), moves][moves != 0].all()
        made[p] = moves
    return made


def test_each_game_opens_with_random_moves_then_the_policy_plays():
    made = play_plies(RandomOpenings(4, 2000), games=2000, plies=8)
    random = made != 0
    lengths = random.sum(axis=0)
    # The random moves are the game's first k, then none: no policy move before a random one.
    assert np.array_equal(random, np.arange(8)[:, None] < lengths[None, :])
    # k is uniform over 0..4: 400 games each expected; 5 standard deviations is about 90.
    counts = np.bincount(lengths, minlength=6)
    assert counts[5] == 0 and (abs(counts[:5] - 400) < 90).all(), counts


def test_a_game_that_restarts_draws_a_new_opening():
    openings = RandomOpenings(3, 1)
    rng = np.random.default_rng(1)
    mask = np.ones((1, 9), bool)
    mask[0, 0] = False
    lengths = []
    for _ in range(200):  # 200 games of 5 plies each, one after the other
        k = 0
        for p in range(5):
            k += int(openings.moves(np.zeros(1, np.int64), mask, np.array([p]), rng)[0] != 0)
        lengths.append(k)
    assert set(lengths) == {0, 1, 2, 3}


def test_no_openings_leave_the_moves_and_draw_nothing():
    rng = np.random.default_rng(5)
    state = rng.bit_generator.state
    actions = np.array([3, 1, 4])
    got = make_openings(0, 3).moves(actions, np.ones((3, 9), bool), np.zeros(3, np.int64), rng)
    assert got is actions and rng.bit_generator.state == state
    assert isinstance(make_openings(0, 3), NoOpenings)
    assert isinstance(make_openings(2, 3), RandomOpenings)
    with pytest.raises(ValueError, match="opening_plies"):
        make_openings(-1, 3)


def test_an_actor_opens_its_games_at_random_and_plays_greedily_after():
    """Tic-tac-toe with a network whose greedy move is always the lowest legal one."""
    game = get_game("tictactoe")

    def lowest(obs):
        return np.tile(-np.arange(9.0), (len(obs), 1)), 0

    def first_moves(openings):
        actor = Actor(game.vector(64), lowest, None, lambda: 0.0, 1, 0.9, seed=0,
                      openings=openings)  # fmt: skip
        return actor.step()["action"]

    assert first_moves(None).tolist() == [0] * 64  # greedy, no exploration
    opened = first_moves(RandomOpenings(2, 64))
    # About two thirds of the games open with a random move (k of 1 or 2), a ninth of
    # those by chance on cell 0: far from all and far from none of 64.
    assert 20 < np.count_nonzero(opened) < 60
    assert np.count_nonzero(opened == 0) > 5


def test_random_openings_refuse_an_opening_of_no_moves():
    with pytest.raises(ValueError, match=r"^max_plies must be >= 1$"):
        RandomOpenings(0, 3)
