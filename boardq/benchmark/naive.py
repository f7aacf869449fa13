"""The naive implementation of the design card, measured in the same run as the baseline.

What a first version of the card does: each actor thread plays one game and calls
`model.predict` for every move; transitions travel one at a time through
`from_generator` and `.batch()`; the train step runs eagerly (the learner's own loss,
`losses.td_loss`, under a GradientTape, no tf.function); actors read the live model.
Same networks, optimizer, loss, turn bookkeeping and settings as boardq, so the
difference in the figures is how the work is organised.
"""

from __future__ import annotations

import queue
import threading

import numpy as np
import tensorflow as tf

from boardq.benchmark.measure import StageResult, Variant, run_segments, settling
from boardq.benchmark.stages import Workers
from boardq.config import TrainConfig
from boardq.dqn.coordination import put_until_stopped
from boardq.dqn.losses import td_loss
from boardq.dqn.models import build_models, tensor_specs
from boardq.dqn.policies import epsilon_greedy
from boardq.dqn.schema import FIELDS
from boardq.dqn.transitions import NStepBuilder
from boardq.game import Game

__all__ = ["naive_collection", "naive_learning"]


class NaiveActor:
    """One game, one `model.predict` per move, each transition queued on its own."""

    def __init__(self, game: Game, model, config: TrainConfig, sink: queue.Queue, seed: int):
        self.env, self.model, self.sink = game.make_env(), model, sink
        self.epsilon = config.epsilon_start
        self.rng = np.random.default_rng(seed)
        self.builder = NStepBuilder(
            config.n_step, config.discount, game.obs_shape, game.num_actions
        )
        self.transitions = 0
        self.env.reset(seed=seed)

    def run(self, stop) -> None:
        env = self.env
        while not stop.is_set():
            mover = env.agent_selection
            obs = env.observe(mover)
            q = self.model.predict(obs["observation"][None].astype(np.int8), verbose=0)
            action = int(epsilon_greedy(q, obs["action_mask"][None], self.epsilon, self.rng)[0])
            env.step(action)
            done = env.terminations[mover] or env.truncations[mover]
            nxt = None if done else env.observe(env.agent_selection)
            closed = self.builder.add(
                obs["observation"], action, env.rewards[mover],
                None if done else nxt["observation"], None if done else nxt["action_mask"], done,
            )  # fmt: skip
            if done:
                env.reset()
            for t in closed:
                if not put_until_stopped(self.sink, {k: getattr(t, k) for k in FIELDS}, stop):
                    return
                self.transitions += 1


def naive_collection(game: Game, config: TrainConfig, seconds: float) -> StageResult:
    """`actor_threads` naive actors for one segment of `seconds`."""
    online, _, _ = build_models(config, game.obs_shape, game.num_actions)
    online.predict(np.zeros((1, *game.obs_shape), np.int8), verbose=0)  # built on main
    sink: queue.Queue = queue.Queue(maxsize=10_000)
    actors = [NaiveActor(game, online, config, sink, seed=i) for i in range(config.actor_threads)]

    def targets(stop):
        drain = ("drain", lambda: _drain(sink, stop))
        return [*((f"naive-{i}", lambda a=a: a.run(stop)) for i, a in enumerate(actors)), drain]

    workers = Workers(targets)
    counters = {"transitions": lambda: sum(a.transitions for a in actors)}
    m = run_segments(
        {"naive": Variant(counters, workers.start, workers.stop)}, seconds, 1, settling(seconds)
    )
    title = f"naive collection, {config.actor_threads} thread(s) x 1 game, predict per move"
    return StageResult(
        key="naive_collection", title=title, unit="transitions/s", rate=m["naive"].rate(),
        figures={}, windows=m["naive"].windows,
    )  # fmt: skip


def _drain(q: queue.Queue, stop) -> None:
    while not stop.is_set():
        try:
            q.get(timeout=0.1)
        except queue.Empty:
            continue


def naive_learning(game: Game, config: TrainConfig, chunks, seconds: float) -> StageResult:
    """Single transitions through `from_generator` and `.batch()`, an eager train step."""
    online, target, optimizer = build_models(config, game.obs_shape, game.num_actions)
    rows = [{k: c[k][i] for k in FIELDS} for c in chunks for i in range(len(c["action"]))]
    rng = np.random.default_rng(config.seed)
    lock = threading.Lock()

    def generate():
        while True:
            with lock:
                yield rows[rng.integers(len(rows))]

    spec = tensor_specs([], game.obs_shape, game.num_actions)
    batches = iter(
        tf.data.Dataset.from_generator(generate, output_signature=spec).batch(config.batch_size)
    )
    steps = [0]

    def step() -> None:
        batch = next(batches)
        with tf.GradientTape() as tape:
            loss, _, _ = td_loss(online, target, batch, config.huber_delta)
        grads = tape.gradient(loss, online.trainable_variables)
        optimizer.apply_gradients(zip(grads, online.trainable_variables, strict=True))
        for t, o in zip(target.weights, online.weights, strict=True):
            t.assign(config.tau * o + (1.0 - config.tau) * t)
        steps[0] += 1

    def train(stop) -> None:
        while not stop.is_set():
            step()

    # The first step starts the generator's pipeline and builds the optimizer's state:
    # one-time costs that, on busy cores, took longer than the segment's settling time
    # (no step was timed at all). Taken here, the segment times steps only.
    step()

    workers = Workers(lambda stop: [("naive-learner", lambda: train(stop))])
    m = run_segments(
        {"naive": Variant({"steps": lambda: steps[0]}, workers.start, workers.stop)},
        seconds,
        1,
        settling(seconds),
    )
    title = "naive learning: single transitions, from_generator, .batch(), eager step"
    return StageResult(
        key="naive_learning", title=title, unit="train steps/s", rate=m["naive"].rate(),
        figures={}, windows=m["naive"].windows,
    )  # fmt: skip
