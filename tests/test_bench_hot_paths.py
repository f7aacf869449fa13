"""The sped-up hot paths behave exactly as the plain code they replace.

Actor.step steps the game under PettingZoo's guard wrappers and reuses the next
player's observation; ReplayFeed augments with one gather per column and hands
from_generator elements of several batches from one draw. Each is checked here
against a plain reference on the same random numbers.
"""

from __future__ import annotations

import queue
import threading

import numpy as np
import pettingzoo
import pytest
from pettingzoo.utils.wrappers import BaseWrapper

from boardq.actor import Actor, unwrap_guards
from boardq.dataset import PermutationAugment, ReplayFeed
from boardq.policies import epsilon_greedy
from boardq.replay import RateLimiter, ReplayRing, Symmetry, augment
from boardq.transitions import FIELDS, NStepBuilder
from games import get_game

GAMES = ["tictactoe", "connect_four"]


class ReferenceActor:
    """The actor's step written plainly against the wrapped environments."""

    def __init__(self, envs, act_fn, epsilon, n_step, discount, seed):
        self.envs, self.act_fn, self.epsilon = envs, act_fn, epsilon
        self.rng = np.random.default_rng(seed)
        agent = envs[0].possible_agents[0]
        shape = envs[0].observation_space(agent)["observation"].shape
        actions = envs[0].action_space(agent).n
        self.builders = [NStepBuilder(n_step, discount, shape, actions) for _ in envs]
        self.obs = np.zeros((len(envs), *shape), np.int8)
        self.mask = np.zeros((len(envs), actions), bool)
        for i, env in enumerate(envs):
            env.reset(seed=int(self.rng.integers(2**31)))
            self._observe(i)
        self.results = [0, 0, 0]

    def _observe(self, i):
        o = self.envs[i].observe(self.envs[i].agent_selection)
        self.obs[i], self.mask[i] = o["observation"], o["action_mask"]

    def step(self):
        q, _ = self.act_fn(self.obs)
        actions = epsilon_greedy(q, self.mask, self.epsilon, self.rng)
        out = []
        for i, env in enumerate(self.envs):
            mover = env.agent_selection
            obs = self.obs[i].copy()
            env.step(int(actions[i]))
            reward = env.rewards[mover]
            if env.terminations[mover] or env.truncations[mover]:
                out += self.builders[i].add(obs, actions[i], reward, None, None, True)
                if reward == 0:
                    self.results[1] += 1
                elif (reward > 0) == (mover == env.possible_agents[0]):
                    self.results[0] += 1
                else:
                    self.results[2] += 1
                env.reset()
            else:
                nxt = env.observe(env.agent_selection)
                out += self.builders[i].add(
                    obs, actions[i], reward, nxt["observation"], nxt["action_mask"], False
                )
            self._observe(i)
        return out


def random_q(num_actions, seed):
    rng = np.random.default_rng(seed)

    def act(obs):
        return rng.standard_normal((len(obs), num_actions)).astype(np.float32), 0

    return act


def test_unwrap_guards_peels_only_the_guard_wrappers():
    env = pettingzoo.make("aec", "classic/tictactoe-v3")
    raw = unwrap_guards(env)
    assert raw is env.unwrapped
    custom = BaseWrapper(env)  # any other wrapper may change the game: kept
    assert unwrap_guards(custom) is custom


@pytest.mark.parametrize("game_name", GAMES)
@pytest.mark.parametrize("n_step", [1, 3])
def test_actor_matches_the_plain_reference(game_name, n_step):
    game = get_game(game_name)
    m, steps, epsilon = 6, 150, 0.3
    actor = Actor(
        [game.make_env() for _ in range(m)],
        random_q(game.num_actions, 5),
        queue.Queue(),
        lambda: epsilon,
        n_step,
        0.9,
        seed=11,
    )
    ref = ReferenceActor(
        [game.make_env() for _ in range(m)],
        random_q(game.num_actions, 5),
        epsilon,
        n_step,
        0.9,
        seed=11,
    )
    count = 0
    for _ in range(steps):
        got, want = actor.step(), ref.step()
        assert len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            for name in FIELDS:
                a, b = np.asarray(getattr(g, name)), np.asarray(getattr(w, name))
                assert a.dtype == b.dtype and np.array_equal(a, b), name
        count += len(got)
    assert count > steps * m // 2
    assert actor.stats.results == ref.results
    assert actor.stats.games == sum(ref.results)
    assert actor.stats.moves == steps * m


def random_batch(game, n, seed):
    rng = np.random.default_rng(seed)
    return {
        "obs": rng.integers(0, 2, (n, *game.obs_shape)).astype(np.int8),
        "action": rng.integers(0, game.num_actions, n).astype(np.int16),
        "reward": rng.standard_normal(n).astype(np.float32),
        "discount": rng.random(n).astype(np.float32),
        "next_obs": rng.integers(0, 2, (n, *game.obs_shape)).astype(np.int8),
        "next_mask": rng.random((n, game.num_actions)) < 0.5,
    }


@pytest.mark.parametrize("game_name", GAMES)
def test_permutation_augment_equals_augment(game_name):
    game = get_game(game_name)
    fast = PermutationAugment(game.symmetries, game.obs_shape)
    for seed in range(5):
        rng_a, rng_b = np.random.default_rng(seed), np.random.default_rng(seed)
        want = augment(random_batch(game, 64, seed), game.symmetries, rng_a)
        got = fast(random_batch(game, 64, seed), rng_b)
        for key in FIELDS:
            assert got[key].dtype == want[key].dtype and got[key].shape == want[key].shape
            np.testing.assert_array_equal(got[key], want[key])
        assert rng_a.random() == rng_b.random()  # the same draws were made


def test_symmetry_that_changes_values_falls_back_to_augment():
    game = get_game("tictactoe")
    odd = [game.symmetries[0], Symmetry(lambda p: 1 - p, np.arange(9))]
    assert PermutationAugment.try_build(odd, game.obs_shape) is None
    feed = make_feed(game, batches=1, symmetries=odd)
    element = next(feed())
    assert element["obs"].shape == (1, 32, *game.obs_shape)
    rng = np.random.default_rng(3)
    want = augment(_ring_after_chunks(game).sample(32, rng), odd, rng)
    for key in FIELDS:
        np.testing.assert_array_equal(element[key][0], want[key])


def _ring_after_chunks(game):
    """The ring `make_feed`'s feed holds once it has drained its queue."""
    ring = ReplayRing(1000, game.obs_shape, game.num_actions)
    for i in range(4):
        ring.add(random_batch(game, 50, 100 + i))
    return ring


def make_feed(game, batches, symmetries=None, seed=3, per_element=1):
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
def test_an_element_is_k_batches_of_one_augmented_draw(name):
    game = get_game(name)
    feed = make_feed(game, batches=3, per_element=3)
    element = next(feed())
    ring = _ring_after_chunks(game)
    rng = np.random.default_rng(3)
    want = augment(ring.sample(96, rng), game.symmetries, rng)
    for key in FIELDS:
        assert element[key].shape == (3, 32, *want[key].shape[1:])
        np.testing.assert_array_equal(element[key].reshape(want[key].shape), want[key])
    assert feed.batches == 3
    assert feed.limiter.sampled == 96


def test_an_element_waits_for_all_its_batches():
    """7 batches allowed, 3 per element: two elements, then nothing until stopped."""
    game = get_game("tictactoe")
    feed = make_feed(game, batches=7, per_element=3)
    elements = feed()
    got = [next(elements), next(elements)]
    assert [e["action"].shape for e in got] == [(3, 32), (3, 32)]
    timer = threading.Timer(0.3, feed.stop.set)
    timer.start()
    with pytest.raises(StopIteration):  # no partial element of the 7th batch
        next(elements)
    timer.join()
    assert feed.batches == 6
    assert feed.limiter.sampled == 6 * 32


def test_make_dataset_yields_the_generators_elements():
    import tensorflow as tf

    from boardq.dataset import element_signature, make_dataset
    from boardq.learner import batch_signature

    game = get_game("tictactoe")
    spec = batch_signature(32, game.obs_shape, game.num_actions)
    plain = list(zip(range(2), make_feed(game, batches=4, per_element=2)(), strict=False))
    feed = make_feed(game, batches=4, per_element=2)
    ds = make_dataset(feed, spec)
    assert ds.element_spec == element_signature(spec, 2)
    it = iter(ds)
    got = [next(it) for _ in range(2)]
    feed.stop.set()
    del it
    for (_, want), have in zip(plain, got, strict=True):
        for key in FIELDS:
            assert isinstance(have[key], tf.Tensor)
            assert have[key].dtype == spec[key].dtype
            np.testing.assert_array_equal(have[key].numpy(), want[key])
