"""Replay ring, the replay-ratio limiter, and symmetry augmentation."""

from __future__ import annotations

import threading

import numpy as np
import pettingzoo
import pytest

from boardq.replay import RateLimiter, ReplayRing, augment
from games import get_game


def chunk(start, n, obs_shape=(3, 3, 2), num_actions=9):
    a = np.arange(start, start + n)
    return {
        "obs": np.zeros((n, *obs_shape), np.int8) + (a % 2)[:, None, None, None].astype(np.int8),
        "action": (a % num_actions).astype(np.int16),
        "reward": a.astype(np.float32),
        "discount": np.full(n, -0.9, np.float32),
        "next_obs": np.zeros((n, *obs_shape), np.int8),
        "next_mask": np.ones((n, num_actions), bool),
    }


def test_ring_wraps_and_keeps_the_newest():
    ring = ReplayRing(5, (3, 3, 2), 9)
    ring.add(chunk(0, 3))
    ring.add(chunk(3, 4))
    assert ring.size == 5 and ring.added == 7
    batch = ring.sample(500, np.random.default_rng(0))
    assert set(batch["reward"].tolist()) == {2.0, 3.0, 4.0, 5.0, 6.0}


def test_ring_chunk_larger_than_capacity():
    ring = ReplayRing(4, (3, 3, 2), 9)
    ring.add(chunk(0, 10))
    assert sorted(ring.sample(400, np.random.default_rng(1))["reward"].tolist())[0] == 6.0


def test_ring_is_compact():
    ring = ReplayRing(1_000_000, (6, 7, 2), 7)
    assert ring.nbytes < 400 * 2**20  # a million Connect Four transitions
    assert ring.sample if ring.size == 0 else True
    with pytest.raises(ValueError):
        ring.sample(1, np.random.default_rng(0))


def test_rate_limiter_holds_the_ratio():
    lim = RateLimiter(ratio=4.0, warmup=10, tolerance=8.0)
    stop = threading.Event()
    assert not lim.try_sample(1)  # before the warm-up nothing is sampled
    assert lim.await_insert(10, stop, 0.01)
    assert lim.await_insert(2, stop, 0.01)  # diff = 8 <= tolerance
    assert not lim.await_insert(1, stop, 0.01)  # diff would be 12 > 8
    assert lim.try_sample(16)  # diff = -8
    assert not lim.try_sample(1)  # would be -9 < -8
    assert lim.await_insert(1, stop, 0.01)
    assert lim.inserted == 13 and lim.sampled == 16


def test_rate_limiter_wait_returns_on_stop():
    lim = RateLimiter(ratio=1.0, warmup=0, tolerance=1.0)
    stop = threading.Event()
    lim.await_insert(1, stop, 0.01)
    stop.set()
    assert lim.await_insert(100, stop, 5.0) is False


def test_rate_limiter_wakes_a_waiting_insert_when_samples_arrive():
    lim = RateLimiter(ratio=1.0, warmup=0, tolerance=2.0)
    stop = threading.Event()
    assert lim.await_insert(2, stop, 0.01)
    result = []
    t = threading.Thread(target=lambda: result.append(lim.await_insert(2, stop, 5.0)))
    t.start()
    assert lim.try_sample(2)
    t.join(5)
    assert result == [True]


@pytest.mark.parametrize("name", ["tictactoe", "connect_four"])
def test_symmetries_map_real_positions_to_real_positions(name):
    """The image of a real position's planes has the image of its legal moves."""
    game = get_game(name)
    env = pettingzoo.make("aec", game.env_id)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for a in [4, 0, 5] if name == "tictactoe" else [3, 3, 2, 6]:
        env.step(a)
    o = env.observe(env.agent_selection)
    assert len(game.symmetries) == (8 if name == "tictactoe" else 2)
    for sym in game.symmetries:
        planes = sym.planes(o["observation"][None])[0]
        mask = game.board.legal_mask(game.board.board_from_planes(planes))
        np.testing.assert_array_equal(mask[sym.action_map], o["action_mask"].astype(bool))
        # Playing the mapped move in the image equals mapping the played position.
        a = int(rng.choice(np.flatnonzero(o["action_mask"])))
        after = game.board.apply(game.board.board_from_planes(o["observation"]), a)
        after_image = game.board.apply(game.board.board_from_planes(planes), sym.action_map[a])
        np.testing.assert_array_equal(
            game.board.board_from_planes(sym.planes(game.board.planes_from_board(after)[None])[0]),
            after_image,
        )


def test_augment_maps_actions_and_masks_together():
    game = get_game("tictactoe")
    batch = chunk(0, 64)
    batch["next_mask"][:] = False
    batch["next_mask"][:, 1] = True  # only move 1 is legal next
    batch["next_obs"][:, 1 // 3, 1 % 3, 0] = 1  # and a piece marks square 1
    out = augment(
        {k: v.copy() for k, v in batch.items()}, game.symmetries, np.random.default_rng(3)
    )
    for i in range(64):
        (legal,) = np.flatnonzero(out["next_mask"][i])
        (marked,) = np.flatnonzero(out["next_obs"][i, :, :, 0].ravel())
        assert legal == marked  # the legal move follows the marked square
