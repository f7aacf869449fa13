"""The input pipeline: the replay feed's elements and `make_dataset`."""

from __future__ import annotations

import queue
import threading

import numpy as np
import pytest

from boardq.dqn.dataset import ReplayFeed
from boardq.dqn.replay import RateLimiter, ReplayRing
from boardq.dqn.schema import FIELDS
from boardq.symmetry import Symmetry, augment
from boardq_games import get_game

GAMES = ["tictactoe", "connect_four"]


def test_symmetry_that_changes_values_falls_back_to_augment(random_batch):
    game = get_game("tictactoe")
    odd = [game.symmetries[0], Symmetry(lambda p: 1 - p, np.arange(9))]
    feed = make_feed(game, batches=1, random_batch=random_batch, symmetries=odd)
    element = next(feed())
    assert element["obs"].shape == (1, 32, *game.obs_shape)
    rng = np.random.default_rng(3)
    want = augment(_ring_after_chunks(game, random_batch).sample(32, rng), odd, rng)
    for key in FIELDS:
        np.testing.assert_array_equal(element[key][0], want[key])


def _ring_after_chunks(game, random_batch):
    """The ring `make_feed`'s feed holds once it has drained its queue."""
    ring = ReplayRing(1000, game.obs_shape, game.num_actions)
    for i in range(4):
        ring.add(random_batch(game, 50, 100 + i))
    return ring


def make_feed(game, batches, random_batch, symmetries=None, seed=3, per_element=1):
    """A feed whose queue holds 200 transitions and whose limiter allows `batches`."""
    ring = ReplayRing(1000, game.obs_shape, game.num_actions)
    q: queue.Queue = queue.Queue()
    for i in range(4):
        q.put(random_batch(game, 50, 100 + i))
    # Nothing is inserted, so exactly `batches` samples of 32 fit in the tolerance.
    limiter = RateLimiter(ratio=1.0, warmup=0, tolerance=32 * batches)
    stop = threading.Event()
    syms = game.symmetries if symmetries is None else symmetries
    return ReplayFeed(
        q, ring, limiter, 32, stop, seed, syms, poll_sec=0.01, batches_per_element=per_element
    )


@pytest.mark.parametrize("name", GAMES)
def test_an_element_is_k_batches_of_one_augmented_draw(name, random_batch):
    game = get_game(name)
    feed = make_feed(game, batches=3, random_batch=random_batch, per_element=3)
    element = next(feed())
    ring = _ring_after_chunks(game, random_batch)
    rng = np.random.default_rng(3)
    want = augment(ring.sample(96, rng), game.symmetries, rng)
    for key in FIELDS:
        assert element[key].shape == (3, 32, *want[key].shape[1:])
        np.testing.assert_array_equal(element[key].reshape(want[key].shape), want[key])
    assert feed.batches == 3
    assert feed.limiter.sampled == 96


def test_an_element_waits_for_all_its_batches(random_batch):
    """7 batches allowed, 3 per element: two elements, then nothing until stopped."""
    game = get_game("tictactoe")
    feed = make_feed(game, batches=7, random_batch=random_batch, per_element=3)
    elements = feed()
    got = [next(elements), next(elements)]
    assert [e["action"].shape for e in got] == [(3, 32), (3, 32)]
    assert feed.ended is False  # suspended at a yield, not ended
    timer = threading.Timer(0.3, feed.stop.set)
    timer.start()
    with pytest.raises(StopIteration):  # no partial element of the 7th batch
        next(elements)
    timer.join()
    assert feed.ended is True
    assert feed.batches == 6
    assert feed.limiter.sampled == 6 * 32


def test_make_dataset_yields_the_generators_elements(random_batch):
    import tensorflow as tf

    from boardq.dqn.dataset import make_dataset
    from boardq.dqn.models import tensor_specs

    game = get_game("tictactoe")
    spec = tensor_specs([2, 32], game.obs_shape, game.num_actions)
    plain = list(
        zip(
            range(2),
            make_feed(game, batches=4, random_batch=random_batch, per_element=2)(),
            strict=False,
        )
    )
    feed = make_feed(game, batches=4, random_batch=random_batch, per_element=2)
    ds = make_dataset(feed, spec)
    assert ds.element_spec == spec
    it = iter(ds)
    got = [next(it) for _ in range(2)]
    feed.stop.set()
    del it
    for (_, want), have in zip(plain, got, strict=True):
        for key in FIELDS:
            assert isinstance(have[key], tf.Tensor)
            assert have[key].dtype == spec[key].dtype
            np.testing.assert_array_equal(have[key].numpy(), want[key])


def test_the_feed_moves_queued_chunks_into_the_ring_before_sampling(random_batch):
    game = get_game("connect_four")
    feed = make_feed(game, batches=1, random_batch=random_batch)
    assert feed.drain() == 4
    assert feed.ring.size == 200 and feed.queue.qsize() == 0


class WatchedQueue(queue.Queue):
    """A queue that says when a consumer starts a blocking wait on it."""

    def __init__(self):
        super().__init__()
        self.waiting = threading.Event()

    def get(self, block=True, timeout=None):
        if block:
            self.waiting.set()
        return super().get(block, timeout)


@pytest.mark.timeout(60)  # a feed that never saw the chunk would wait here until then
def test_a_chunk_that_arrives_while_the_feed_waits_goes_into_the_ring(random_batch):
    game = get_game("tictactoe")
    ring = ReplayRing(1000, game.obs_shape, game.num_actions)
    q = WatchedQueue()
    limiter = RateLimiter(ratio=1.0, warmup=0, tolerance=32)
    feed = ReplayFeed(q, ring, limiter, 32, threading.Event(), seed=3, poll_sec=30.0)
    chunk = random_batch(game, 50, 100)

    def deliver():  # once the feed has found the queue empty and waits on it
        q.waiting.wait(30)
        q.put(chunk)

    threading.Thread(target=deliver, daemon=True).start()
    element = next(feed())
    assert ring.size == 50 and feed.batches == 1
    want = ReplayRing(1000, game.obs_shape, game.num_actions)
    want.add(chunk)
    rng = np.random.default_rng(3)
    for key, value in want.sample(32, rng).items():
        np.testing.assert_array_equal(element[key][0], value)
