"""The collection's figures: moves in flight to actor processes, and the local actors' metrics."""

from __future__ import annotations

import pytest

from boardq.config import TrainConfig
from boardq.dqn.actor import Actor
from boardq.dqn.collection import LocalCollection, moves_in_flight, steps_per_request
from boardq_games import get_game


def test_moves_in_flight_are_every_request_of_every_process():
    # 3 threads x 8 games = 24 games; 512 / 24 = 21.3 moves per game in a request.
    cfg = TrainConfig(actor_processes=2, actor_threads=3, games_per_thread=8)
    assert steps_per_request(cfg) == 21
    # 2 processes x 2 requests x 21 moves x 24 games.
    assert moves_in_flight(cfg) == 2 * 2 * 21 * 24 == 2016


def local_collection(stats):
    """A collection of tic-tac-toe actors whose counters are set to `stats`."""
    game = get_game("tictactoe")
    actors = []
    for s in stats:
        actor = Actor(game.vector(2), None, None, lambda: 0.0, 1, 0.9, seed=0)
        for key, value in s.items():
            setattr(actor.stats, key, value)
        actors.append(actor)
    return LocalCollection(actors)


def test_metrics_sum_the_actors_times_and_score_the_pool_games():
    collection = local_collection(
        [
            dict(infer_sec=1.0, step_sec=2.0, queue_sec=0.25, pool_results=[2, 1, 0]),
            dict(infer_sec=3.0, step_sec=4.0, queue_sec=0.5, pool_results=[0, 1, 1]),
        ]
    )
    m = collection.metrics()
    # 2 won, 2 drawn, 1 lost: (2 + 0.5 * 2) / 5.
    assert m == {
        "actor_infer_sec": 4.0,
        "actor_step_sec": 6.0,
        "actor_queue_sec": 0.75,
        "pool/games": 5,
        "pool/score": pytest.approx(0.6),
    }


def test_metrics_without_pool_games_have_no_pool_figures():
    m = local_collection([dict(queue_sec=0.5), dict(queue_sec=0.25)]).metrics()
    assert set(m) == {"actor_infer_sec", "actor_step_sec", "actor_queue_sec"}
    assert m["actor_queue_sec"] == 0.75
