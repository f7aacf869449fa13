"""Stages 1-5: the game alone, then boardq's own parts, each measured on its own.

Every stage runs the code that trains (Actor, ReplayRing, RateLimiter, ReplayFeed,
make_dataset, Learner, Trainer), not a copy of it; only the source of the data
changes so that each stage measures one thing.
"""

from __future__ import annotations

import functools
import queue
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import tensorflow as tf
from games.base import Game

from boardq.actor import Actor, put_until_stopped, unwrap_guards
from boardq.benchmark.result import StageResult, series_from_probe
from boardq.benchmark.sampling import CounterProbe
from boardq.benchmark.stats import (
    Window,
    abba_schedule,
    counter_delta,
    duty_cycle,
    first_time,
    max_in_windows,
    mean_in_windows,
    pooled_rate,
    rate_series,
    ratio,
    steady_window,
    time_shares,
    trim_for,
)
from boardq.config import TrainConfig
from boardq.coordination import CoordStop, start_workers
from boardq.dataset import ReplayFeed, make_dataset, prefetched
from boardq.learner import Learner, publish_due
from boardq.replay import RateLimiter, ReplayRing

__all__ = [
    "Chunk",
    "TimedLearnerLoop",
    "collection",
    "device_group",
    "learner_ceiling_and_fed",
    "random_play",
    "run_workers_for",
    "snapshot_act_fn",
    "training",
]

Chunk = dict[str, np.ndarray]


def run_workers_for(coord: tf.train.Coordinator, targets, seconds: float) -> tuple[float, float]:
    """Runs workers under the coordinator for `seconds`; returns the (start, end) times."""
    start = time.monotonic()
    threads = start_workers(coord, targets)
    coord.wait_for_stop(seconds)
    end = time.monotonic()
    coord.request_stop()
    coord.join(threads, stop_grace_period_secs=30)  # re-raises a worker's error
    return start, end


# -- stage 1 ------------------------------------------------------------------------------
def _random_games(env, rng: np.random.Generator, deadline: float, counts: dict[str, int]) -> None:
    """PettingZoo's own loop with uniformly random legal moves until `deadline`."""
    while time.monotonic() < deadline:
        env.reset(seed=int(rng.integers(2**31)))
        for _ in env.agent_iter():
            observation, _, termination, truncation, _ = env.last()
            if termination or truncation:
                action = None
            else:
                legal = np.flatnonzero(observation["action_mask"])
                action = int(legal[rng.integers(len(legal))])
                counts["moves"] += 1
            env.step(action)
            counts["steps"] += 1


def random_play(game: Game, seconds: float, seed: int, hz: float) -> StageResult:
    """Stage 1: random play in one thread, through `pettingzoo.make`'s environment.

    Counts moves (each one a transition in training) and environment steps (which
    add the end-of-game `step(None)` of each player). The second half of the stage
    plays the bare game under PettingZoo's guard wrappers, the way the actors step it.
    """
    rng = np.random.default_rng(seed)
    wrapped = {"moves": 0, "steps": 0}
    bare = {"moves": 0, "steps": 0}
    probe = CounterProbe(
        {
            "moves": lambda: wrapped["moves"],
            "steps": lambda: wrapped["steps"],
            "bare_moves": lambda: bare["moves"],
        },
        hz,
    )
    half = seconds / 2
    env = game.make_env()
    with probe:
        start = time.monotonic()
        _random_games(env, rng, start + half, wrapped)
        middle = time.monotonic()
        _random_games(unwrap_guards(game.make_env()), rng, middle + half, bare)
        end = time.monotonic()
    first = steady_window(start, middle, trim_for(half, min_sec=0.2))
    second = steady_window(middle, end, trim_for(half, min_sec=0.2))
    t, moves = probe.series("moves")
    figures = {
        "moves_per_sec": pooled_rate(t, moves, [first]),
        "env_steps_per_sec": pooled_rate(t, probe.values["steps"], [first]),
        "bare_moves_per_sec": pooled_rate(t, probe.values["bare_moves"], [second]),
        "threads": 1,
    }
    return StageResult(
        "random_play",
        "PettingZoo random play, one thread",
        "moves/s",
        figures["moves_per_sec"],
        figures,
        start,
        end,
        [first, second],
        {
            "moves/s": _segment_series(probe.times, probe.values["moves"], [first], start),
            "bare game moves/s": _segment_series(
                probe.times, probe.values["bare_moves"], [second], start
            ),
        },
    )


# -- stage 2 ------------------------------------------------------------------------------
def snapshot_act_fn(learner: Learner) -> Callable[[np.ndarray], tuple[np.ndarray, int]]:
    """The actors' read-only forward pass over the newest snapshot (as the trainer's)."""
    box, q_function = learner.snapshots, learner.q_function

    def act(obs: np.ndarray) -> tuple[np.ndarray, int]:
        snap = box.get()
        return q_function(obs, snap.weights).numpy(), snap.version

    return act


def collection(
    game: Game,
    config: TrainConfig,
    act_fn: Callable[[np.ndarray], tuple[np.ndarray, int]],
    seconds: float,
    hz: float,
    keep_transitions: int = 0,
) -> tuple[StageResult, list[Chunk]]:
    """Stage 2: self-play collection alone (no learner, no rate limiter).

    `config.actor_threads` Actors of `config.games_per_thread` games each write into
    the bounded queue; one thread empties it, keeping the first `keep_transitions`
    for the learner stages.

    Returns:
      The result and the kept chunks.
    """
    q: queue.Queue = queue.Queue(maxsize=config.queue_chunks)
    coord = tf.train.Coordinator()
    stop = CoordStop(coord)
    actors = [
        Actor(
            envs=[game.make_env() for _ in range(config.games_per_thread)],
            act_fn=act_fn,
            out_queue=q,
            epsilon_fn=lambda: config.epsilon_start,
            n_step=config.n_step,
            discount=config.discount,
            seed=config.seed * 1000 + 17 * (i + 1),
            name=f"actor-{i}",
        )
        for i in range(config.actor_threads)
    ]
    kept: list[Chunk] = []
    kept_count = [0]

    def drain() -> None:
        while not stop.is_set():
            try:
                chunk = q.get(timeout=0.1)
            except queue.Empty:
                continue
            if kept_count[0] < keep_transitions:
                kept.append(chunk)
                kept_count[0] += len(chunk["action"])

    stats = [a.stats for a in actors]
    probe = CounterProbe(
        {
            "transitions": lambda: sum(s.transitions for s in stats),
            "moves": lambda: sum(s.moves for s in stats),
            "forward_calls": lambda: sum(s.forward_calls for s in stats),
            "infer_sec": lambda: sum(s.infer_sec for s in stats),
            "step_sec": lambda: sum(s.step_sec for s in stats),
            "queue_sec": lambda: sum(s.queue_sec for s in stats),
            "queue_depth": q.qsize,
        },
        hz,
    )
    targets = [(a.name, functools.partial(a.run, stop)) for a in actors]
    targets.append(("drain", drain))
    with probe:
        start, end = run_workers_for(coord, targets, seconds)
    window = steady_window(start, end, trim_for(seconds))
    t = probe.times
    v = probe.values
    rate = pooled_rate(t, v["transitions"], [window])
    thread_sec = window.seconds * len(actors)
    parts = {}
    for name in ("infer_sec", "step_sec", "queue_sec"):
        delta = counter_delta(t, v[name], window)
        parts[name.removesuffix("_sec")] = delta[0] if delta else 0.0
    moves = counter_delta(t, v["moves"], window)
    calls = counter_delta(t, v["forward_calls"], window)
    figures = {
        "transitions_per_sec": rate,
        "moves_per_sec": pooled_rate(t, v["moves"], [window]),
        "forward_calls_per_sec": pooled_rate(t, v["forward_calls"], [window]),
        "mean_inference_batch": ratio(moves[0], calls[0]) if moves and calls else None,
        "threads": config.actor_threads,
        "games_per_thread": config.games_per_thread,
        "time_share": time_shares(parts, thread_sec),
        "queue_depth_mean": mean_in_windows(t, v["queue_depth"], [window]),
        "queue_capacity": config.queue_chunks,
    }
    result = StageResult(
        "collection",
        f"self-play collection, {config.actor_threads} x {config.games_per_thread} games",
        "transitions/s",
        rate,
        figures,
        start,
        end,
        [window],
        {"transitions/s": series_from_probe(probe, "transitions", start)},
    )
    return result, kept


# -- stages 3 and 4 -------------------------------------------------------------------------
class TimedLearnerLoop:
    """The trainer's learner loop, timed: `steps_per_call` train steps per compiled
    call, a weight snapshot every `publish_every` steps.

    Like `Trainer`, it counts the seconds the graph waited for batches (measured
    inside the call) as waiting for data and the rest of the call as busy. It has
    several sources, each a function `(steps) -> metrics` (`Learner.train` on an
    iterator, or `Learner.train_on` an element on the device), and runs the one named by `mode`,
    which another thread may switch at any time; the counters are kept per source.
    """

    def __init__(
        self,
        learner: Learner,
        sources: dict[str, Callable[[int], dict[str, tf.Tensor]]],
        steps_per_call: int,
        publish_every: int,
    ):
        self._learner = learner
        self._sources = dict(sources)
        self._steps_per_call = steps_per_call
        self._publish_every = publish_every
        self.mode = next(iter(self._sources))
        self.steps = 0
        self.busy_sec = dict.fromkeys(self._sources, 0.0)
        self.wait_sec = dict.fromkeys(self._sources, 0.0)

    def run(self, stop) -> None:
        learner = self._learner
        k = self._steps_per_call
        while not stop.is_set():
            mode = self.mode
            t0 = time.perf_counter()
            try:
                metrics = self._sources[mode](k)
            except tf.errors.OutOfRangeError:
                return
            elapsed = time.perf_counter() - t0
            wait = float(metrics["data_wait_sec"])
            self.steps += k
            if publish_due(self.steps - k, self.steps, self._publish_every):
                learner.publish()
            self.wait_sec[mode] += wait
            self.busy_sec[mode] += elapsed - wait


def device_group(
    ring: ReplayRing, batches: int, batch_size: int, seed: int
) -> dict[str, tf.Tensor]:
    """`batches` sampled batches stacked [K, B, ...] (one learner element), copied to
    the default device (the GPU when there is one)."""
    sample = ring.sample(batches * batch_size, np.random.default_rng(seed))
    return {
        key: tf.identity(tf.constant(value.reshape(batches, batch_size, *value.shape[1:])))
        for key, value in sample.items()
    }


def _fill_ring(ring: ReplayRing, chunks: Sequence[Chunk], at_least: int) -> None:
    """Adds chunks (cycling through them) until the ring holds `at_least` transitions."""
    if not chunks:
        raise ValueError("the learner stages need collected transitions")
    i = 0
    while ring.size < min(at_least, ring.capacity):
        ring.add(chunks[i % len(chunks)])
        i += 1


def learner_ceiling_and_fed(
    game: Game,
    config: TrainConfig,
    learner: Learner,
    chunks: Sequence[Chunk],
    ceiling_sec: float,
    fed_sec: float,
    hz: float,
    rounds: int = 2,
) -> tuple[StageResult, StageResult]:
    """Stages 3 and 4: the learner on batches already on the device, and fed by the pipeline.

    One learner thread runs the trainer's loop and switches between sources of
    batches in interleaved segments (`abba_schedule`), so that every figure sees the
    same load on the machine. Each segment's start is trimmed (pipeline start-up, or
    the prefetch buffer that filled while another source ran).

    Every source runs the trainer's compiled call of `steps_per_call` steps, one
    element of that many batches per call. The ceiling's element sits on the device
    already (`Learner.train_on`). The fed learner takes its elements inside the call
    from the real pipeline
    (`Learner.train`): bounded queue -> ReplayFeed (replay ring, rate limiter at the
    preset's replay ratio, symmetry augmentation) -> make_dataset (from_generator,
    prefetch). Its source is a feeder thread that re-queues chunks already
    collected, so the actors' cost is not part of the figure.

    A third source, the iterator floor, is a tf.data pipeline that only repeats the
    device element, with the same prefetch as the real one: what taking an element from
    any tf.data iterator costs the learner. The fed learner can at best reach it.
    """
    ring = ReplayRing(config.replay_capacity, game.obs_shape, game.num_actions)
    # Full, as in a long run: sampling a large ring costs more than a small one.
    _fill_ring(ring, chunks, at_least=ring.capacity)
    group = device_group(ring, config.steps_per_call, config.batch_size, config.seed)

    q: queue.Queue = queue.Queue(maxsize=config.queue_chunks)
    limiter = RateLimiter(config.replay_ratio, 0, config.replay_tolerance())
    coord = tf.train.Coordinator()
    stop = CoordStop(coord)
    symmetries = game.symmetries if config.augment_symmetries else ()
    feed = ReplayFeed(
        q,
        ring,
        limiter,
        config.batch_size,
        stop,
        config.seed,
        symmetries,
        batches_per_element=config.steps_per_call,
    )
    floor = prefetched(tf.data.Dataset.from_tensors(group).repeat())
    pipeline = {"fed": iter(make_dataset(feed, learner.spec)), "floor": iter(floor)}

    def feeder() -> None:
        i = 0
        while not stop.is_set():
            chunk = chunks[i % len(chunks)]
            if limiter.await_insert(len(chunk["action"]), stop, timeout=0.1):
                put_until_stopped(q, chunk, stop)
                i += 1

    loop = TimedLearnerLoop(
        learner,
        {
            "ceiling": lambda k: learner.train_on(group, k),
            "fed": lambda k: learner.train(pipeline["fed"], k),
            "floor": lambda k: learner.train(pipeline["floor"], k),
        },
        config.steps_per_call,
        config.publish_every_steps,
    )
    probe = CounterProbe(
        {
            # Steps counted in Python: reading the step variable from this thread
            # would run a TensorFlow op beside every train step and slow it down.
            # Where execution is async (GPU) the count leads the device by the
            # few steps in flight, which the windows' seconds make negligible.
            "updates": lambda: loop.steps,
            "ceiling_busy": lambda: loop.busy_sec["ceiling"],
            "fed_busy": lambda: loop.busy_sec["fed"],
            "fed_wait": lambda: loop.wait_sec["fed"],
            "queue_depth": q.qsize,
            "inserted": lambda: limiter.inserted,
            "sampled": lambda: limiter.sampled,
        },
        hz,
    )
    for _ in range(3):  # the first calls after tracing are slower
        learner.train_on(group)
    schedule = abba_schedule(("ceiling", "fed", "floor"), rounds)
    segment_sec = {
        "ceiling": ceiling_sec / rounds,
        "fed": fed_sec / rounds,
        "floor": fed_sec / rounds / 2,
    }
    segments: list[tuple[str, float, float]] = []
    with probe:
        start = time.monotonic()
        threads = start_workers(
            coord, [("learner", functools.partial(loop.run, stop)), ("feeder", feeder)]
        )
        try:
            # Unmeasured: the pipelines start and their prefetch buffers fill.
            for mode, sec in (("fed", 0.5), ("floor", 0.2)):
                loop.mode = mode
                coord.wait_for_stop(sec)
            for mode in schedule:
                loop.mode = mode
                t0 = time.monotonic()
                if coord.wait_for_stop(segment_sec[mode]):
                    break
                segments.append((mode, t0, time.monotonic()))
        finally:
            coord.request_stop()
            end = time.monotonic()
            coord.join(threads, stop_grace_period_secs=30)
    # Deleting a tf.data iterator can block for a second or more (waiting, not
    # working): it happens in the background so the next stage need not wait.
    threading.Thread(target=pipeline.clear, name="bench-cleanup", daemon=True).start()

    windows: dict[str, list[Window]] = {"ceiling": [], "fed": [], "floor": []}
    for mode, t0, t1 in segments:
        seg = t1 - t0
        windows[mode].append(steady_window(t0, t1, trim_for(seg, 0.2, min_sec=0.15)))
    t, v = probe.times, probe.values
    c_rate = pooled_rate(t, v["updates"], windows["ceiling"])
    f_rate = pooled_rate(t, v["updates"], windows["fed"])
    floor_rate = pooled_rate(t, v["updates"], windows["floor"])
    inserted = pooled_rate(t, v["inserted"], windows["fed"])
    sampled = pooled_rate(t, v["sampled"], windows["fed"])
    per_segment = {
        mode: [pooled_rate(t, v["updates"], [w]) for w in windows[mode]] for mode in windows
    }
    ceiling = StageResult(
        "learner_ceiling",
        "learner alone, batches already on the device",
        "updates/s",
        c_rate,
        {
            "updates_per_sec": c_rate,
            "updates_per_sec_by_segment": per_segment["ceiling"],
            "samples_per_sec": c_rate * config.batch_size if c_rate else None,
            "learner_duty": pooled_rate(t, v["ceiling_busy"], windows["ceiling"]),
            "batch_size": config.batch_size,
            "jit_compile": config.jit_compile,
        },
        start,
        end,
        windows["ceiling"],
        {"updates/s": _segment_series(t, v["updates"], windows["ceiling"], start)},
    )
    fed = StageResult(
        "fed_learner",
        "learner fed by queue, replay, from_generator, prefetch",
        "updates/s",
        f_rate,
        {
            "updates_per_sec": f_rate,
            "updates_per_sec_by_segment": per_segment["fed"],
            "share_of_ceiling": ratio(f_rate, c_rate),
            "iterator_floor_updates_per_sec": floor_rate,
            "floor_share_of_ceiling": ratio(floor_rate, c_rate),
            "share_of_floor": ratio(f_rate, floor_rate),
            "samples_per_sec": f_rate * config.batch_size if f_rate else None,
            "learner_duty": pooled_rate(t, v["fed_busy"], windows["fed"]),
            "data_wait_share": pooled_rate(t, v["fed_wait"], windows["fed"]),
            "queue_depth_mean": mean_in_windows(t, v["queue_depth"], windows["fed"]),
            "queue_capacity": config.queue_chunks,
            "replay_ratio_held": ratio(sampled, inserted),
            "replay_ratio": config.replay_ratio,
            "batch_size": config.batch_size,
            "augment_symmetries": config.augment_symmetries,
        },
        start,
        end,
        windows["fed"],
        {
            "updates/s": _segment_series(t, v["updates"], windows["fed"], start),
            "iterator floor updates/s": _segment_series(t, v["updates"], windows["floor"], start),
        },
    )
    return ceiling, fed


def _segment_series(
    times: Sequence[float], counts: Sequence[float], windows: Sequence[Window], start: float
) -> tuple[list[float | None], list[float | None]]:
    """Rate over time inside each window, windows separated by a gap (None)."""
    xs: list[float | None] = []
    ys: list[float | None] = []
    for w in windows:
        inside = [i for i, t in enumerate(times) if w.contains(t)]
        mids, rates = rate_series([times[i] for i in inside], [counts[i] for i in inside], 0.25)
        if xs:
            xs.append(None)
            ys.append(None)
        xs += [m - start for m in mids]
        ys += rates
    return xs, ys


# -- stage 5 --------------------------------------------------------------------------------
class _MetricsRecorder:
    """Stands in for the progress display: keeps every metrics dict the trainer logs."""

    def __init__(self):
        self.rows: list[dict[str, Any]] = []

    def message(self, text: str) -> None:
        del text

    def update(self, metrics: dict[str, Any]) -> None:
        self.rows.append(dict(metrics))


def training(
    game: Game, config: TrainConfig, seconds: float, hz: float, out_dir: str | None = None
) -> StageResult:
    """Stage 5: the real Trainer for `seconds`, evaluation off, in a temporary directory.

    Figures come from the trainer's own metrics (`Trainer.metrics`), logged every
    1/hz seconds; the steady window starts once training has begun (after the
    replay warm-up) and the trim that follows.
    """
    from boardq.trainer import Trainer

    with tempfile.TemporaryDirectory(prefix="boardq-bench-", dir=out_dir) as tmp:
        cfg = config.replace(
            budget_minutes=seconds / 60.0,
            budget_steps=0,
            eval_games=0,
            out_dir=tmp,
            log_every_sec=max(0.25, 1.0 / hz),
            checkpoint_every_sec=max(config.checkpoint_every_sec, 10 * seconds + 60),
        )
        recorder = _MetricsRecorder()
        trainer = Trainer(cfg, game)
        trainer.run(recorder)
    rows = recorder.rows
    t = [r["time"] for r in rows]

    def col(key: str) -> list[float]:
        return [float(r.get(key, 0.0)) for r in rows]

    began = first_time(t, col("updates"), 0)
    if began is None or len(rows) < 3 or t[-1] - began < 1.0:
        now = time.monotonic()
        return StageResult(
            "training",
            "full training (too short to measure: give it more time)",
            "transitions/s",
            None,
            {"note": "training had not run for a second when the stage ended"},
            t[0] if t else now,
            t[-1] if t else now,
            [],
        )
    end = t[-1]
    window = steady_window(began, end, trim_for(end - began))
    transitions, updates = col("transitions"), col("updates")
    busy = counter_delta(t, col("learner_busy_sec"), window)
    wait = counter_delta(t, col("learner_wait_sec"), window)
    dtrans = counter_delta(t, transitions, window)
    dupd = counter_delta(t, updates, window)
    actor_parts = {}
    for name in ("infer", "step", "queue"):
        d = counter_delta(t, col(f"actor_{name}_sec"), window)
        actor_parts[name] = d[0] if d else 0.0
    start = t[0]
    figures = {
        "transitions_per_sec": pooled_rate(t, transitions, [window]),
        "updates_per_sec": pooled_rate(t, updates, [window]),
        "learner_duty": duty_cycle(busy[0], busy[1]) if busy and busy[1] > 0 else None,
        "data_wait_share": duty_cycle(wait[0], wait[1]) if wait and wait[1] > 0 else None,
        "queue_depth_mean": mean_in_windows(t, col("queue_depth"), [window]),
        "queue_depth_max": max_in_windows(t, col("queue_depth"), [window]),
        "queue_capacity": cfg.queue_chunks,
        "policy_lag_mean": mean_in_windows(t, col("policy_lag"), [window]),
        "replay_ratio": cfg.replay_ratio,
        "replay_ratio_held": (
            ratio(dupd[0] * cfg.batch_size, dtrans[0]) if dupd and dtrans else None
        ),
        "actor_time_share": time_shares(actor_parts, window.seconds * cfg.actor_threads),
        "warmup_sec": began - start,
        "threads": cfg.actor_threads,
        "games_per_thread": cfg.games_per_thread,
        "batch_size": cfg.batch_size,
    }
    series = {}
    for name, values in (("transitions/s", transitions), ("updates/s", updates)):
        mids, rates = rate_series(t, values, 0.25)
        series[name] = ([m - start for m in mids], rates)
    return StageResult(
        "training",
        f"full training at replay ratio {cfg.replay_ratio:g}",
        "transitions/s",
        figures["transitions_per_sec"],
        figures,
        start,
        end,
        [window],
        series,
    )
