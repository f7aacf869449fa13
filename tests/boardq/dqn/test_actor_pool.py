"""The actor's games against past snapshots (`PoolOpponent`): which seat the past
snapshot moves for, how results count for the newest, and how a pool draw is kept.
"""

from __future__ import annotations

import numpy as np

from boardq.dqn.actor import Actor
from boardq_games import get_game


class FakePool:
    """A pool with one past snapshot (its weights are a name the act function reads)."""

    def __init__(self, kept):
        self.kept = kept

    def sample(self, rng):
        return self.kept


def test_pool_games_let_the_past_snapshot_move_for_its_seat():
    from boardq.dqn.actor import PoolOpponent
    from boardq.dqn.snapshot import Snapshot

    game = get_game("tictactoe")

    def newest(obs):  # the lowest legal move (illegal ones are masked out later)
        return np.tile(-np.arange(9.0), (len(obs), 1)), 5

    def past(obs, snapshot):  # the highest legal move
        assert snapshot.weights == ("past",)
        return np.tile(np.arange(9.0), (len(obs), 1))

    pool = FakePool(Snapshot(3, ("past",)))
    opponent = PoolOpponent(past, pool, share=0.5, seed=0)
    actor = Actor(game.vector(4), newest, None, lambda: 0.0, 1, 0.9, seed=0, pool=opponent)
    # Games 0 and 1 play the pool: the past snapshot moves first in game 0 and second
    # in game 1; games 2 and 3 are self-play.
    first = actor.step()
    assert first["action"].tolist() == [8, 0, 0, 0]
    second = actor.step()
    assert second["action"].tolist() == [0, 8, 1, 1]
    # An empty pool leaves every move to the newest snapshot.
    empty = Actor(game.vector(4), newest, None, lambda: 0.0, 1, 0.9, seed=0,
                  pool=PoolOpponent(past, FakePool(None), 0.5, seed=0))  # fmt: skip
    assert empty.step()["action"].tolist() == [0, 0, 0, 0]


def test_pool_results_count_for_the_newest_snapshot_and_seats_alternate():
    from boardq.dqn.actor import PoolOpponent
    from boardq.dqn.snapshot import Snapshot

    game = get_game("connect_four")

    def newest(obs):  # always column 0
        return np.tile(-np.arange(7.0), (len(obs), 1)), 0

    def past(obs, weights):  # always column 6
        return np.tile(np.arange(7.0), (len(obs), 1))

    opponent = PoolOpponent(past, FakePool(Snapshot(1, ())), share=1.0, seed=0)
    actor = Actor(game.vector(2), newest, None, lambda: 0.0, 1, 0.9, seed=0, pool=opponent)
    for _ in range(7):  # whoever moves first completes four in a column on move 7
        actor.step()
    # Game 0: the past snapshot moved first and won; game 1: the newest moved first.
    assert actor.stats.pool_results == [1, 0, 1]
    for _ in range(7):  # seats swapped: now the newest wins game 0, loses game 1
        actor.step()
    assert actor.stats.pool_results == [2, 0, 2]


def prefer(*order):
    """Q-values that rank tic-tac-toe's cells in this order (the first legal one is played)."""
    q = np.zeros(9)
    q[list(order)] = -np.arange(9.0)
    return q


def test_pool_results_count_draws_and_the_newest_winning_from_either_seat():
    from boardq.dqn.actor import PoolOpponent
    from boardq.dqn.snapshot import Snapshot

    game = get_game("tictactoe")

    def play(newest_q, past_q, steps):
        newest = lambda obs: (np.tile(newest_q, (len(obs), 1)), 0)  # noqa: E731
        past = lambda obs, snapshot: np.tile(past_q, (len(obs), 1))  # noqa: E731
        opponent = PoolOpponent(past, FakePool(Snapshot(1, ())), share=1.0, seed=0)
        actor = Actor(game.vector(2), newest, None, lambda: 0.0, 1, 0.9, seed=0, pool=opponent)
        for _ in range(steps):
            actor.step()
        return actor.stats

    # Both sides take the first free cell of 0 4 8 1 7 6 2 5 3: a draw on move 9.
    drawn = play(prefer(0, 4, 8, 1, 7, 6, 2, 5, 3), prefer(0, 4, 8, 1, 7, 6, 2, 5, 3), 9)
    assert drawn.results == [0, 2, 0]
    assert drawn.pool_results == [0, 2, 0]
    # The newest aims at the diagonal 4 2 6, the past snapshot at 0 1 5. Game 0 (the past
    # snapshot first): 0 4 1 2 5 6, the newest wins as the second player on move 6.
    # Game 1 (the newest first): 4 0 2 1 6, it wins as the first player on move 5.
    won = play(prefer(4, 2, 6, 0, 1, 3, 5, 7, 8), prefer(0, 1, 5, 3, 7, 8, 2, 4, 6), 6)
    assert won.results == [1, 0, 1]
    assert won.pool_results == [2, 0, 0]


def test_the_pool_opponent_keeps_its_draw_for_redraw_steps_moves_and_draws_by_its_seed():
    from boardq.dqn.actor import PoolOpponent
    from boardq.dqn.snapshot import Snapshot, SnapshotPool

    pool = SnapshotPool(size=8, every_steps=1)
    for version in range(1, 9):
        pool.offer(Snapshot(version, ()))

    def version_of(obs, snapshot):
        return np.full((len(obs), 1), snapshot.version)

    opponent = PoolOpponent(version_of, pool, share=0.5, seed=7, redraw_steps=3)
    played = [int(opponent(np.zeros((1, 9)))[0, 0]) for _ in range(12)]
    # A draw every third move, from a generator seeded with the opponent's seed.
    rng = np.random.default_rng(7)
    draws = [pool.sample(rng).version for _ in range(4)]
    assert played == [v for v in draws for _ in range(3)]
    assert len(set(draws)) > 1
