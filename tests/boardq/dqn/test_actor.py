"""Actors: the batched self-play step against a plain per-game reference, and the run loop.

The reference steps each PettingZoo environment through its wrappers and builds
transitions with `NStepBuilder`, one game at a time; the actor steps a `GameBatch` and
builds them with `NStepBatch`. On the same random numbers both must close the same
transitions (in any order within a step) and count the same results.
"""

from __future__ import annotations

import queue
import threading
import time

import numpy as np
import pytest

from boardq.dqn.actor import Actor
from boardq.dqn.policies import epsilon_greedy
from boardq.dqn.schema import FIELDS
from boardq.dqn.transitions import NStepBuilder, stack_transitions
from boardq.gamebatch import EnvGames
from boardq_games import get_game

GAMES = ["tictactoe", "connect_four"]


def seeds_of(seed, m):
    """The reset seeds the reference draws (EnvGames takes them as given)."""
    rng = np.random.default_rng(seed)
    return [int(rng.integers(2**31)) for _ in range(m)]


def rows(chunk):
    """The transitions of a chunk as a sorted list of byte strings (order-free compare)."""
    n = len(chunk["action"])
    out = []
    for i in range(n):
        out.append(b"|".join(np.ascontiguousarray(chunk[k][i]).tobytes() for k in FIELDS))
    return sorted(out)


def random_q(num_actions, seed):
    rng = np.random.default_rng(seed)

    def act(obs):
        return rng.standard_normal((len(obs), num_actions)).astype(np.float32), 0

    return act


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
        for i, (env, reset_seed) in enumerate(zip(envs, seeds_of(seed, len(envs)), strict=True)):
            env.reset(seed=reset_seed)
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


@pytest.mark.parametrize("game_name", GAMES)
@pytest.mark.parametrize("n_step", [1, 3])
def test_actor_matches_the_plain_reference(game_name, n_step):
    game = get_game(game_name)
    m, steps, epsilon = 6, 150, 0.3
    actor = Actor(
        EnvGames([game.make_env() for _ in range(m)], seeds_of(11, m)),
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
        got, want = actor.step(), stack_transitions(ref.step())
        assert {k: v.dtype for k, v in got.items()} == {k: v.dtype for k, v in want.items()}
        assert rows(got) == rows(want)
        count += len(got["action"])
    assert count > steps * m // 2
    assert actor.stats.results == ref.results
    assert actor.stats.games == sum(ref.results)
    assert actor.stats.moves == steps * m


def test_run_puts_chunks_until_stopped_and_asks_admission():
    game = get_game("connect_four")
    out: queue.Queue = queue.Queue(maxsize=1000)
    stop = threading.Event()
    asked = []

    def admit(n, stop_signal):
        asked.append(n)
        if len(asked) == 21:
            stop_signal.set()
            return False
        return len(asked) % 2 == 0  # every other step is refused

    actor = Actor(
        EnvGames([game.make_env() for _ in range(4)], [0, 1, 2, 3]),
        random_q(game.num_actions, 0),
        out,
        lambda: 1.0,
        n_step=1,
        discount=0.9,
        seed=0,
        admit=admit,
    )
    actor.run(stop)
    assert asked == [4] * 21
    chunks = [out.get_nowait() for _ in range(out.qsize())]
    # 10 admitted steps of 4 games, one transition each (n_step 1).
    assert actor.stats.moves == 4 * 10
    assert sum(len(c["action"]) for c in chunks) == actor.stats.transitions == 40


def test_run_returns_when_stopped_while_the_queue_is_full():
    game = get_game("tictactoe")
    out: queue.Queue = queue.Queue(maxsize=1)
    stop = threading.Event()
    actor = Actor(
        EnvGames([game.make_env()], [0]),
        random_q(game.num_actions, 0),
        out,
        lambda: 1.0,
        n_step=1,
        discount=0.9,
        seed=0,
    )
    t = threading.Thread(target=actor.run, args=(stop,), daemon=True)
    t.start()
    # Stopped once the queue is full (not at a fixed time, which a busy machine can
    # reach before the first chunk), and a moment later, so the actor waits to put its next.
    deadline = time.monotonic() + 60  # the 60 s here and below only guard against a hang
    while not out.full():
        assert time.monotonic() < deadline, "the actor never filled the queue"
        time.sleep(0.01)
    time.sleep(0.3)
    stop.set()
    t.join(60)
    assert not t.is_alive()
    assert out.qsize() == 1


# (game, games side by side, steps, finished games at least): Go's games are long and
# its environment slow.
VECTORIZED = [*((name, 16, 400, 50) for name in [*GAMES, "gomoku", "hex"]), ("go", 8, 500, 20)]


@pytest.mark.parametrize("game_name, m, steps, finished", VECTORIZED)
def test_vectorized_games_give_the_actor_the_same_transitions(game_name, m, steps, finished):
    """The fast path (the game's numpy rules) against its environment, same random numbers."""
    game = get_game(game_name)

    def actor(games):
        return Actor(games, random_q(game.num_actions, 1), None, lambda: 0.5, 2, 0.9, seed=4)

    fast = actor(game.vector(m))
    slow = actor(EnvGames([game.make_env() for _ in range(m)], range(m)))
    for _ in range(steps):
        got, want = fast.step(), slow.step()
        assert rows(got) == rows(want)
    assert fast.stats.games == slow.stats.games > finished
    assert fast.stats.results == slow.stats.results


def test_step_counts_forward_calls_and_times_inference_and_the_rest_apart(monkeypatch):
    """On a clock that only the network (2 s a call) and the exploration rate (1 s) move."""
    import boardq.dqn.actor as actor_module

    class Clock:
        now = 0.0

        def perf_counter(self):
            return self.now

    clock = Clock()
    monkeypatch.setattr(actor_module, "time", clock)
    game = get_game("tictactoe")
    q_fn = random_q(game.num_actions, 0)

    def slow_q(obs):
        clock.now += 2.0
        return q_fn(obs)

    def epsilon():  # called after the forward pass: part of the rest of the step
        clock.now += 1.0
        return 0.5

    actor = Actor(game.vector(4), slow_q, None, epsilon, 1, 0.9, seed=0)
    for _ in range(3):
        actor.step()
    s = actor.stats
    assert (s.forward_calls, s.moves) == (3, 12)
    assert (s.infer_sec, s.step_sec) == (6.0, 3.0)


# A drawn game of connect four, column by column: the board fills on the second
# player's move 42 without four in a row.
DRAWN_CONNECT_FOUR = [2, 0, 5, 4, 6, 2, 0, 1, 3, 4, 2, 1, 6, 4, 3, 3, 3, 3, 1, 1, 0,
                      1, 5, 1, 5, 0, 2, 0, 0, 3, 4, 6, 6, 6, 4, 5, 6, 5, 2, 5, 4, 2]  # fmt: skip


def test_a_draw_on_the_second_players_move_counts_as_a_draw():
    game = get_game("connect_four")

    def scripted(obs):  # the listed column of each game's next move
        ply = obs.reshape(len(obs), -1).sum(axis=1)
        return np.eye(7)[np.take(DRAWN_CONNECT_FOUR, ply)], 0

    actor = Actor(game.vector(2), scripted, None, lambda: 0.0, 1, 0.9, seed=0)
    for _ in range(42):
        chunk = actor.step()
    # The last move, column 2, ends each game with nothing to either side.
    assert chunk["action"].tolist() == [2, 2]
    assert chunk["reward"].tolist() == chunk["discount"].tolist() == [0.0, 0.0]
    assert actor.stats.results == [0, 2, 0]
    assert actor.stats.games == 2
