"""The one wiring: what the Builder makes, and the learner's loop."""

from __future__ import annotations

import threading

import numpy as np
from threadpoolctl import threadpool_info, threadpool_limits

from boardq.dqn.builder import Builder
from boardq.dqn.schema import FIELDS
from boardq.gamebatch import EnvGames
from boardq_games import get_game


def test_every_actor_thread_of_every_process_gets_its_own_seed():
    builder = Builder(get_game("tictactoe").preset.replace(seed=3), get_game("tictactoe"))
    seeds = {builder.actor_seed(t, p) for t in range(64) for p in range(64)}
    assert len(seeds) == 64 * 64
    other = Builder(get_game("tictactoe").preset.replace(seed=4), get_game("tictactoe"))
    assert not seeds & {other.actor_seed(t, p) for t in range(64) for p in range(64)}


def test_actors_play_their_own_games_with_the_chosen_stepping(tiny_config):
    game = get_game("tictactoe")
    builder = Builder(tiny_config.replace(vectorized=False), game)
    actors = builder.make_actors(lambda obs: (np.zeros((len(obs), 9)), 0), None, lambda: 1.0)
    assert [a.name for a in actors] == ["actor-0", "actor-1"]
    assert all(isinstance(a.games, EnvGames) for a in actors)
    envs = [id(e) for a in actors for e in a.games.envs]
    assert len(set(envs)) == len(envs) == 2 * tiny_config.games_per_thread
    remote = builder.make_actors(
        lambda obs: (np.zeros((len(obs), 9)), 0), None, lambda: 1.0, process=2
    )
    assert [a.name for a in remote] == ["actor-2-0", "actor-2-1"]


def test_the_opening_setting_reaches_every_actor(tiny_config):
    """With opening_plies, greedy actors (epsilon 0) still open some games elsewhere."""
    game = get_game("tictactoe")

    def first_moves(plies):
        builder = Builder(tiny_config.replace(opening_plies=plies, games_per_thread=32), game)
        lowest = lambda obs: (np.tile(-np.arange(9.0), (len(obs), 1)), 0)  # noqa: E731
        return [a.step()["action"] for a in builder.make_actors(lowest, None, lambda: 0.0)]

    assert all((moves == 0).all() for moves in first_moves(0))
    assert all((moves != 0).any() for moves in first_moves(4))


def test_the_feed_and_the_iterator_carry_the_schema(tiny_config):
    game = get_game("tictactoe")
    builder = Builder(tiny_config, game)
    learner = builder.make_learner()
    q = builder.make_queue()
    ring, limiter = builder.make_replay(warmup=0)
    stop = threading.Event()
    feed = builder.make_feed(q, ring, limiter, stop)
    rng = np.random.default_rng(0)
    chunk = {
        name: rng.integers(0, 2, (500, *spec.shape[2:])).astype(spec.dtype.as_numpy_dtype)
        for name, spec in learner.element_spec.items()
    }
    limiter.await_insert(500, stop, 0.1)
    q.put(chunk)
    iterator = builder.make_dataset_iterator(feed, learner)
    element = next(iterator)
    # Stop the generator before the iterator goes: deleting a from_generator iterator
    # waits for its generator, which waits for data until stopped.
    stop.set()
    del iterator
    assert tuple(element) == FIELDS
    for name, spec in learner.element_spec.items():
        assert element[name].shape == spec.shape and element[name].dtype == spec.dtype
    act = builder.make_policy(learner.q_function, learner.snapshots)
    q_values, version = act(chunk["obs"][:5])
    assert q_values.shape == (5, 9) and version == 0
    with threadpool_limits(2, user_api="blas"):
        act_numpy = builder.make_policy(learner.q_function, learner.snapshots, "numpy")
        # numpy inference caps numpy's BLAS at one thread (it would spin on the learner's cores)
        assert {
            pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"
        } == {1}
    q_numpy, _ = act_numpy(chunk["obs"][:5])
    np.testing.assert_allclose(q_numpy, q_values, rtol=1e-5, atol=1e-6)
    loop = builder.make_learner_loop(learner, {"x": learner.train}, start_step=50)
    assert loop.steps == 50 and loop.steps_left() == tiny_config.budget_steps - 50


def test_the_feed_augments_with_the_games_symmetries_when_asked(tiny_config):
    game = get_game("tictactoe")
    for augment, count in [(True, len(game.symmetries)), (False, 0)]:
        builder = Builder(tiny_config.replace(augment_symmetries=augment), game)
        ring, limiter = builder.make_replay(warmup=0)
        feed = builder.make_feed(builder.make_queue(), ring, limiter, threading.Event())
        assert len(feed.symmetries) == count
    assert len(game.symmetries) == 8


def test_the_replay_tolerance_is_the_moves_in_flight_times_the_ratio_and_a_few_elements(
    tiny_config,
):
    cfg = tiny_config.replace(
        replay_ratio=2.0, actor_threads=2, games_per_thread=8, steps_per_call=4, batch_size=64
    )
    # 2 samples for each of 2 * 8 moves in flight, and 4 + 4 batches of 64.
    assert Builder(cfg, get_game("tictactoe")).replay_tolerance() == 2.0 * 16 + 8 * 64


def test_the_actor_inference_setting_is_resolved_for_the_actors(tiny_config):
    game = get_game("tictactoe")
    for asked in ("numpy", "tensorflow"):
        inference, line = Builder(
            tiny_config.replace(actor_inference=asked), game
        ).actor_inference()
        assert inference == asked and asked in line


def test_the_collection_acts_with_the_learners_snapshots_into_the_queue(tiny_config):
    builder = Builder(tiny_config, get_game("tictactoe"))
    learner = builder.make_learner()
    q = builder.make_queue()
    collection = builder.make_collection(learner, q, lambda: 1.0, None)
    assert len(collection.actors) == tiny_config.actor_threads
    stop = threading.Event()
    thread = threading.Thread(target=collection.actors[0].run, args=(stop,))
    thread.start()
    try:
        chunk = q.get(timeout=30)
    finally:
        stop.set()
        thread.join()
    assert set(chunk) == set(FIELDS) and len(chunk["action"]) > 0
