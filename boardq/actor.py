"""Agent threads: each plays several self-play games with one batched forward pass.

An Actor never writes weights and never imports the learner: it gets a read-only
`act_fn(obs_batch) -> (q_values, version)` over the newest published snapshot.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from pettingzoo.utils.wrappers import (
    AssertOutOfBoundsWrapper,
    OrderEnforcingWrapper,
    TerminateIllegalWrapper,
)

from boardq.policies import epsilon_greedy
from boardq.transitions import NStepBuilder, Transition, stack_transitions

__all__ = ["Actor", "ActorStats", "put_until_stopped", "unwrap_guards"]

ActFn = Callable[[np.ndarray], tuple[np.ndarray, int]]


@dataclass
class ActorStats:
    """Counters one actor updates and the trainer reads (whole-number writes only)."""

    transitions: int = 0
    games: int = 0
    moves: int = 0
    forward_calls: int = 0
    version: int = 0
    step_sec: float = 0.0
    infer_sec: float = 0.0
    queue_sec: float = 0.0
    results: list[int] = field(default_factory=lambda: [0, 0, 0])  # first wins, draws, second


# Wrappers that only guard against illegal or out-of-order calls. The actor's moves
# are always legal (masked) and always follow a reset, so stepping the game under
# them gives the same games; each layer costs a Python call per attribute access.
_GUARD_WRAPPERS = (OrderEnforcingWrapper, AssertOutOfBoundsWrapper, TerminateIllegalWrapper)


def unwrap_guards(env):
    """The game under PettingZoo's guard wrappers (exact types only; others are kept)."""
    while type(env) in _GUARD_WRAPPERS:
        env = env.env
    return env


def put_until_stopped(q: queue.Queue, item, stop: threading.Event, timeout: float = 0.1) -> bool:
    """Puts into a bounded queue, waiting in slices so a stop is seen within `timeout`."""
    while not stop.is_set():
        try:
            q.put(item, timeout=timeout)
            return True
        except queue.Full:
            continue
    return False


class Actor:
    """Plays `len(envs)` PettingZoo AEC games in lock-step, one forward pass per step.

    Every game always has a player to move (a finished game is reset at once), so
    the inference batch has a fixed size. Completed transitions go to `out_queue` as
    one chunk of column arrays per step.

    Args:
      envs: fresh AEC environments of one game.
      act_fn: read-only batched Q-values for int8 planes, with the snapshot version.
      out_queue: bounded queue to the replay memory.
      epsilon_fn: exploration rate as a function of transitions collected so far.
      n_step, discount: see `boardq.transitions`.
      seed: this actor's seed (each actor gets its own).
      admit: `admit(n, stop)` blocks until n more transitions may be collected (the
        replay-ratio limiter); returns False to give up (stop or timeout).
    """

    def __init__(
        self,
        envs,
        act_fn: ActFn,
        out_queue: queue.Queue,
        epsilon_fn: Callable[[], float],
        n_step: int,
        discount: float,
        seed: int,
        admit: Callable[[int, threading.Event], bool] | None = None,
        name: str = "actor",
    ):
        self.envs = list(envs)
        self.name = name
        self._act_fn = act_fn
        self._queue = out_queue
        self._epsilon_fn = epsilon_fn
        self._admit = admit
        self._rng = np.random.default_rng(seed)
        self.stats = ActorStats()
        env0 = self.envs[0]
        agent0 = env0.possible_agents[0]
        obs_space = env0.observation_space(agent0)["observation"]
        self.obs_shape = obs_space.shape
        self.num_actions = env0.action_space(agent0).n
        self._builders = [
            NStepBuilder(n_step, discount, self.obs_shape, self.num_actions) for _ in self.envs
        ]
        m = len(self.envs)
        self._obs = np.zeros((m, *self.obs_shape), np.int8)
        self._mask = np.zeros((m, self.num_actions), bool)
        for env in self.envs:
            env.reset(seed=int(self._rng.integers(2**31)))
        # Stepped directly: see `unwrap_guards`.
        self._games = [unwrap_guards(env) for env in self.envs]
        for i in range(m):
            self._observe(i)

    def _observe(self, i: int) -> None:
        game = self._games[i]
        self._set_current(i, game.observe(game.agent_selection))

    def _set_current(self, i: int, observation: dict) -> None:
        self._obs[i] = observation["observation"]
        self._mask[i] = observation["action_mask"]

    def step(self) -> list[Transition]:
        """One move in every game; returns the transitions that closed."""
        t0 = time.perf_counter()
        q, version = self._act_fn(self._obs)
        t1 = time.perf_counter()
        actions = epsilon_greedy(q, self._mask, self._epsilon_fn(), self._rng).tolist()
        closed: list[Transition] = []
        obs_batch = self._obs
        for i, game in enumerate(self._games):
            mover = game.agent_selection
            action = actions[i]
            obs = obs_batch[i].copy()
            game.step(action)
            reward = game.rewards[mover]
            if game.terminations[mover] or game.truncations[mover]:
                closed += self._builders[i].add(obs, action, reward, None, None, True)
                self._record_result(game, mover, reward)
                game.reset()
                self._observe(i)
            else:
                # The next player's view is both the transition's next state and
                # this game's input to the next forward pass.
                nxt = game.observe(game.agent_selection)
                closed += self._builders[i].add(
                    obs, action, reward, nxt["observation"], nxt["action_mask"], False
                )
                self._set_current(i, nxt)
        t2 = time.perf_counter()
        s = self.stats
        s.version = version
        s.forward_calls += 1
        s.moves += len(self._games)
        s.infer_sec += t1 - t0
        s.step_sec += t2 - t1
        return closed

    def _record_result(self, env, mover, reward: float) -> None:
        self.stats.games += 1
        first = env.possible_agents[0]
        if reward == 0:
            self.stats.results[1] += 1
        elif (reward > 0) == (mover == first):
            self.stats.results[0] += 1
        else:
            self.stats.results[2] += 1

    def run(self, stop: threading.Event) -> None:
        """Plays until `stop` is set. Exceptions propagate to the caller's coordinator."""
        m = len(self.envs)
        while not stop.is_set():
            if self._admit is not None and not self._admit(m, stop):
                continue
            closed = self.step()
            if not closed:
                continue
            chunk = stack_transitions(closed)
            t0 = time.perf_counter()
            if not put_until_stopped(self._queue, chunk, stop):
                return
            self.stats.queue_sec += time.perf_counter() - t0
            self.stats.transitions += len(closed)
