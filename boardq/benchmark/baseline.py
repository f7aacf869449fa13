"""The seeds' recipe, measured in the same run as the baseline (stage 7).

This is deliberately the naive version of the design card: each agent thread plays
one game and calls `model.predict` for every move; transitions travel one at a time
through `from_generator` and `.batch()`; the train step runs eagerly (GradientTape,
no tf.function); agents read the live model the learner writes. It uses the same
network, loss, turn bookkeeping and settings as boardq, so the difference in the
figures is the difference in how the work is organised.
"""

from __future__ import annotations

import collections
import functools
import queue
import random
import threading
import time
from collections.abc import Iterator, Sequence
from typing import Any

import keras
import numpy as np
import tensorflow as tf
from games.base import Game

from boardq.actor import put_until_stopped
from boardq.benchmark.result import StageResult, series_from_probe
from boardq.benchmark.sampling import CounterProbe
from boardq.benchmark.stages import Chunk, run_workers_for
from boardq.benchmark.stats import (
    counter_delta,
    duty_cycle,
    pooled_rate,
    steady_window,
    trim_for,
)
from boardq.config import TrainConfig
from boardq.coordination import CoordStop
from boardq.learner import build_models
from boardq.losses import double_q_target, huber
from boardq.policies import epsilon_greedy
from boardq.transitions import FIELDS, NStepBuilder, Transition

__all__ = [
    "BaselineAgent",
    "BaselineLearner",
    "BaselineReplay",
    "baseline_collection",
    "baseline_learner",
    "baseline_training",
]


class BaselineLearner:
    """Keras online and target networks, Adam, and an eager train step."""

    def __init__(self, config: TrainConfig, obs_shape: Sequence[int], num_actions: int):
        self.config = config
        # The same networks and optimizer as the learner's: only the step differs.
        self.online, self.target, self.optimizer = build_models(config, obs_shape, num_actions)

    @property
    def updates(self) -> int:
        return int(self.optimizer.iterations.numpy())

    def train_step(self, batch: dict[str, Any]) -> tf.Tensor:
        """One eager update (op by op from Python) and the soft target update."""
        cfg = self.config
        action = tf.cast(batch["action"], tf.int32)
        with tf.GradientTape() as tape:
            q_tm1 = self.online(batch["obs"], training=True)
            q_taken = tf.gather(q_tm1, action, batch_dims=1)
            q_t_online = self.online(batch["next_obs"], training=False)
            q_t_target = self.target(batch["next_obs"], training=False)
            y = double_q_target(
                batch["reward"], batch["discount"], q_t_online, q_t_target, batch["next_mask"]
            )
            loss = tf.reduce_mean(huber(y - q_taken, cfg.huber_delta))
        variables = self.online.trainable_variables
        grads = tape.gradient(loss, variables)
        self.optimizer.apply_gradients(zip(grads, variables, strict=True))
        for t, o in zip(self.target.weights, self.online.weights, strict=True):
            t.assign(cfg.tau * o + (1.0 - cfg.tau) * t)
        return loss


class BaselineReplay:
    """A thread-safe list of single transitions with uniform sampling."""

    def __init__(self, capacity: int, seed: int):
        self._items: collections.deque[dict[str, np.ndarray]] = collections.deque(maxlen=capacity)
        self._lock = threading.Lock()
        self._rng = random.Random(seed)

    def __len__(self) -> int:
        return len(self._items)

    def add(self, item: dict[str, np.ndarray]) -> None:
        with self._lock:
            self._items.append(item)

    def sample_one(self) -> dict[str, np.ndarray]:
        with self._lock:
            return self._items[self._rng.randrange(len(self._items))]

    def sample_batch(self, n: int) -> dict[str, np.ndarray]:
        """n transitions stacked into column arrays."""
        items = [self.sample_one() for _ in range(n)]
        return {key: np.stack([item[key] for item in items]) for key in FIELDS}

    def add_chunks(self, chunks: Sequence[Chunk], limit: int) -> None:
        """Adds the transitions of collected chunks one by one, up to `limit`."""
        for chunk in chunks:
            for i in range(len(chunk["action"])):
                if len(self) >= limit:
                    return
                self.add({key: chunk[key][i] for key in FIELDS})


def _as_item(t: Transition) -> dict[str, np.ndarray]:
    return {
        "obs": np.asarray(t.obs, np.int8),
        "action": np.int16(t.action),
        "reward": np.float32(t.reward),
        "discount": np.float32(t.discount),
        "next_obs": np.asarray(t.next_obs, np.int8),
        "next_mask": np.asarray(t.next_mask, bool),
    }


class BaselineAgent:
    """One agent thread of the seeds: one game, `model.predict` for every move.

    Each closed transition goes into the replay (or a queue) on its own.
    """

    def __init__(self, game: Game, model: keras.Model, config: TrainConfig, sink, seed: int):
        self.env = game.make_env()
        self.model = model
        self.config = config
        self.sink = sink
        self.rng = np.random.default_rng(seed)
        self.builder = NStepBuilder(
            config.n_step, config.discount, game.obs_shape, game.num_actions
        )
        self.transitions = 0
        self.moves = 0
        self.env.reset(seed=seed)

    def run(self, stop) -> None:
        env, cfg = self.env, self.config
        while not stop.is_set():
            mover = env.agent_selection
            observation = env.observe(mover)
            q = self.model.predict(observation["observation"][None], verbose=0)
            action = int(
                epsilon_greedy(q, observation["action_mask"][None], cfg.epsilon_start, self.rng)[0]
            )
            env.step(action)
            self.moves += 1
            reward = env.rewards[mover]
            done = env.terminations[mover] or env.truncations[mover]
            if done:
                closed = self.builder.add(
                    observation["observation"], action, reward, None, None, True
                )
                env.reset()
            else:
                nxt = env.observe(env.agent_selection)
                closed = self.builder.add(
                    observation["observation"],
                    action,
                    reward,
                    nxt["observation"],
                    nxt["action_mask"],
                    False,
                )
            for t in closed:
                if isinstance(self.sink, queue.Queue):
                    if not put_until_stopped(self.sink, _as_item(t), stop):
                        return
                else:
                    self.sink.add(_as_item(t))
                self.transitions += 1


def _item_signature(game: Game) -> dict[str, tf.TensorSpec]:
    return {
        "obs": tf.TensorSpec(game.obs_shape, tf.int8),
        "action": tf.TensorSpec([], tf.int16),
        "reward": tf.TensorSpec([], tf.float32),
        "discount": tf.TensorSpec([], tf.float32),
        "next_obs": tf.TensorSpec(game.obs_shape, tf.int8),
        "next_mask": tf.TensorSpec([game.num_actions], tf.bool),
    }


def single_transition_dataset(
    game: Game, replay: BaselineReplay, batch_size: int, stop
) -> tf.data.Dataset:
    """One transition per generator call, then `.batch()` and prefetch."""

    def generate() -> Iterator[dict[str, np.ndarray]]:
        while not stop.is_set():
            yield replay.sample_one()

    ds = tf.data.Dataset.from_generator(generate, output_signature=_item_signature(game))
    return ds.batch(batch_size, drop_remainder=True).prefetch(tf.data.AUTOTUNE)


# -- measurements ---------------------------------------------------------------------------
def baseline_collection(
    game: Game, config: TrainConfig, learner: BaselineLearner, seconds: float, hz: float
) -> StageResult:
    """Seeds' collection: `config.actor_threads` agent threads, one game each."""
    q: queue.Queue = queue.Queue(maxsize=10_000)
    coord = tf.train.Coordinator()
    stop = CoordStop(coord)
    agents = [
        BaselineAgent(game, learner.online, config, q, seed=config.seed * 1000 + 17 * (i + 1))
        for i in range(config.actor_threads)
    ]

    def drain() -> None:
        while not stop.is_set():
            try:
                q.get(timeout=0.1)
            except queue.Empty:
                continue

    probe = CounterProbe({"transitions": lambda: sum(a.transitions for a in agents)}, hz)
    targets = [(f"agent-{i}", functools.partial(a.run, stop)) for i, a in enumerate(agents)]
    targets.append(("drain", drain))
    with probe:
        start, end = run_workers_for(coord, targets, seconds)
    window = steady_window(start, end, trim_for(seconds))
    rate = pooled_rate(probe.times, probe.values["transitions"], [window])
    figures = {
        "transitions_per_sec": rate,
        "mean_inference_batch": 1.0,
        "threads": config.actor_threads,
        "games_per_thread": 1,
    }
    return StageResult(
        "baseline_collection",
        f"seeds: {config.actor_threads} agent threads, model.predict per move",
        "transitions/s",
        rate,
        figures,
        start,
        end,
        [window],
        {"transitions/s": series_from_probe(probe, "transitions", start, min_dt=0.5)},
    )


class _EagerLoop:
    def __init__(self, learner: BaselineLearner, next_batch):
        self.learner = learner
        self.next_batch = next_batch
        self.busy_sec = 0.0
        self.wait_sec = 0.0

    def run(self, stop) -> None:
        while not stop.is_set():
            t0 = time.perf_counter()
            try:
                batch = self.next_batch()
            except (StopIteration, tf.errors.OutOfRangeError):
                return
            t1 = time.perf_counter()
            self.learner.train_step(batch)
            t2 = time.perf_counter()
            self.wait_sec += t1 - t0
            self.busy_sec += t2 - t1


def _learner_stage(
    key: str,
    title: str,
    learner: BaselineLearner,
    next_batch_factory,
    seconds: float,
    hz: float,
    extra_targets=(),
    extra_counters=None,
) -> tuple[StageResult, CounterProbe, Any]:
    coord = tf.train.Coordinator()
    stop = CoordStop(coord)
    loop = _EagerLoop(learner, next_batch_factory(stop))
    counters = {
        "updates": lambda: learner.updates,
        "busy_sec": lambda: loop.busy_sec,
        "wait_sec": lambda: loop.wait_sec,
    }
    counters.update(extra_counters or {})
    probe = CounterProbe(counters, hz)
    targets = [("learner", functools.partial(loop.run, stop))]
    targets += [(name, functools.partial(fn, stop)) for name, fn in extra_targets]
    with probe:
        start, end = run_workers_for(coord, targets, seconds)
    window = steady_window(start, end, trim_for(seconds))
    t, v = probe.times, probe.values
    rate = pooled_rate(t, v["updates"], [window])
    wait = counter_delta(t, v["wait_sec"], window)
    busy = counter_delta(t, v["busy_sec"], window)
    figures = {
        "updates_per_sec": rate,
        "learner_duty": duty_cycle(busy[0], busy[1]) if busy and busy[1] > 0 else None,
        "data_wait_share": duty_cycle(wait[0], wait[1]) if wait and wait[1] > 0 else None,
    }
    result = StageResult(
        key,
        title,
        "updates/s",
        rate,
        figures,
        start,
        end,
        [window],
        {"updates/s": series_from_probe(probe, "updates", start, min_dt=0.5)},
    )
    return result, probe, window


def baseline_learner(
    game: Game,
    config: TrainConfig,
    learner: BaselineLearner,
    chunks: Sequence[Chunk],
    ceiling_sec: float,
    fed_sec: float,
    hz: float,
) -> tuple[StageResult, StageResult]:
    """Seeds' learner: eager steps on a device batch, then fed one transition at a time."""
    replay = BaselineReplay(config.replay_capacity, config.seed)
    replay.add_chunks(chunks, limit=max(8 * config.batch_size, 20_000))
    sample = replay.sample_batch(config.batch_size)
    batch = {key: tf.identity(tf.constant(value)) for key, value in sample.items()}
    learner.train_step(batch)  # first call builds what Keras builds lazily

    ceiling, _, _ = _learner_stage(
        "baseline_learner_ceiling",
        "seeds: eager train step, batch on the device",
        learner,
        lambda stop: lambda: batch,
        ceiling_sec,
        hz,
    )

    def factory(stop):
        it = iter(single_transition_dataset(game, replay, config.batch_size, stop))
        return lambda: next(it)

    fed, _, _ = _learner_stage(
        "baseline_fed_learner",
        "seeds: single transitions, from_generator, .batch(), eager step",
        learner,
        factory,
        fed_sec,
        hz,
    )
    return ceiling, fed


def baseline_training(
    game: Game,
    config: TrainConfig,
    learner: BaselineLearner,
    chunks: Sequence[Chunk],
    seconds: float,
    hz: float,
) -> StageResult:
    """Seeds' training: agent threads and the eager learner at once, no rate limiter.

    The replay starts with a few batches of collected transitions so the learner
    need not wait for the slow agents to fill it.
    """
    replay = BaselineReplay(config.replay_capacity, config.seed + 1)
    replay.add_chunks(chunks, limit=4 * config.batch_size)
    agents = [
        BaselineAgent(game, learner.online, config, replay, seed=config.seed * 1000 + 17 * (i + 1))
        for i in range(config.actor_threads)
    ]

    def factory(stop):
        it = iter(single_transition_dataset(game, replay, config.batch_size, stop))
        return lambda: next(it)

    result, probe, window = _learner_stage(
        "baseline_training",
        "seeds: agents and eager learner together",
        learner,
        factory,
        seconds,
        hz,
        extra_targets=[(f"agent-{i}", a.run) for i, a in enumerate(agents)],
        extra_counters={"transitions": lambda: sum(a.transitions for a in agents)},
    )
    rate = pooled_rate(probe.times, probe.values["transitions"], [window])
    result.figures = {"transitions_per_sec": rate, **result.figures}
    result.rate = rate
    result.unit = "transitions/s"
    result.series["transitions/s"] = series_from_probe(
        probe, "transitions", result.start, min_dt=0.5
    )
    return result
