"""The benchmark's learner stages: the learner alone, then fed by the real pipeline, and the floor.

Built with the `Builder`, as training builds them; the chunks are transitions the
collection stage already gathered, so the actors' cost is not in these figures.
"""

from __future__ import annotations

import functools
import threading

import numpy as np
import tensorflow as tf

from boardq.benchmark.measure import Measured, StageResult, Variant, ratio, run_segments
from boardq.benchmark.stages import Chunk
from boardq.config import TrainConfig
from boardq.dqn.builder import Builder
from boardq.dqn.coordination import CoordStop, put_until_stopped, start_workers
from boardq.dqn.dataset import prefetched
from boardq.dqn.learner import Learner
from boardq.game import Game

__all__ = ["learner_stages"]


def learner_stages(
    game: Game, config: TrainConfig, learner: Learner, chunks: list[Chunk], seconds: float,
    rounds: int,
) -> tuple[StageResult, StageResult]:  # fmt: skip
    """The learner alone (ceiling), then fed by the real pipeline.

    Every source runs the trainer's loop: one compiled call of `steps_per_call` steps
    per element, on a learner thread. The ceiling comes first and alone: its loop takes
    one element already on the device, and no thread of another stage exists yet (the
    collection stage's threads have ended; the pipeline below is not built), so it is
    what the learner does by itself, as a `LearnerLoop` of its own would. Then the fed
    learner takes its elements from the pipeline the Builder makes (bounded queue,
    replay ring, rate limiter at the preset's replay ratio, augmentation,
    from_generator, prefetch), fed by a thread that re-queues chunks already collected,
    so the actors' cost is not in the figure; its segments are interleaved with the
    *iterator floor*, a tf.data pipeline that only repeats the device element with the
    same prefetch.
    """
    builder = Builder(config, game)
    ring, limiter = builder.make_replay(warmup=0)
    element = _fill_and_sample(ring, chunks, config)
    alone = _alone(builder, learner, element, seconds, rounds)

    q, coord = builder.make_queue(), tf.train.Coordinator()
    stop = CoordStop(coord)
    pipelines = {
        "fed": builder.make_dataset_iterator(builder.make_feed(q, ring, limiter, stop), learner),
        "floor": iter(prefetched(tf.data.Dataset.from_tensors(element).repeat())),
    }
    sources = {name: functools.partial(learner.train, it) for name, it in pipelines.items()}
    loop = builder.make_learner_loop(learner, sources)

    def variant(mode: str) -> Variant:
        counters = {
            "steps": lambda: loop.steps,
            "busy": lambda: loop.busy_sec[mode],
            "wait": lambda: loop.wait_sec[mode],
            "inserted": lambda: limiter.inserted,
            "sampled": lambda: limiter.sampled,
        }
        return Variant(counters, start=lambda: setattr(loop, "mode", mode))

    threads = start_workers(coord, [("feeder", lambda: _requeue(chunks, limiter, q, stop))])
    try:
        # Each source's first call traces it (and the fed pipeline starts its generator
        # and prefetch): seconds on a busy machine, so here, on the main thread, before
        # any segment is timed.
        for source in sources.values():
            source()
        threads += start_workers(coord, [("learner", functools.partial(loop.run, stop))])
        m = run_segments({s: variant(s) for s in sources}, seconds, rounds, 0.3, stop)
    finally:
        coord.request_stop()
        coord.join(threads, stop_grace_period_secs=30)
        # Deleting an iterator can wait a second: not on the benchmark's time.
        threading.Thread(target=pipelines.clear, daemon=True).start()
    return _learner_results(config, {"ceiling": alone, **m}, learner.precision.name)


def _alone(builder: Builder, learner: Learner, element, seconds: float, rounds: int) -> Measured:
    """The ceiling: the learner's loop on one device element, the only thread at work.

    `rounds` segments back to back, as many as each interleaved variant gets.
    """
    source = functools.partial(learner.train_on, element)
    loop = builder.make_learner_loop(learner, {"ceiling": source})
    loop.call()  # traces `train_on` here, on the main thread
    coord = tf.train.Coordinator()
    stop = CoordStop(coord)
    counters = {
        "steps": lambda: loop.steps,
        "busy": lambda: loop.busy_sec["ceiling"],
        "wait": lambda: loop.wait_sec["ceiling"],
    }
    threads = start_workers(coord, [("learner", functools.partial(loop.run, stop))])
    try:
        m = run_segments({"ceiling": Variant(counters)}, seconds, rounds, 0.3, stop)
    finally:
        coord.request_stop()
        coord.join(threads, stop_grace_period_secs=30)
    return m["ceiling"]


def _requeue(chunks: list[Chunk], limiter, q, stop) -> None:
    """Puts the chunks into the queue over and over, as the rate limiter admits them."""
    for i in range(10**12):
        chunk = chunks[i % len(chunks)]
        while not limiter.await_insert(len(chunk["action"]), stop, timeout=0.1):
            if stop.is_set():
                return
        put_until_stopped(q, chunk, stop)


def _fill_and_sample(ring, chunks: list[Chunk], config: TrainConfig) -> dict[str, tf.Tensor]:
    """One learner element of K batches from the ring, on the default device.

    The ring is filled first: a full ring samples slower, as in a long run.
    """
    if not chunks:
        raise ValueError("the learner stages need collected transitions")
    while ring.added < ring.capacity:
        for chunk in chunks:
            ring.add(chunk)
    k, b = config.steps_per_call, config.batch_size
    sample = ring.sample(k * b, np.random.default_rng(config.seed))
    return {n: tf.constant(v.reshape(k, b, *v.shape[1:])) for n, v in sample.items()}


def _learner_results(config: TrainConfig, m, precision: str) -> tuple[StageResult, StageResult]:
    ceiling, fed, floor = m["ceiling"], m["fed"], m["floor"]
    c_rate, f_rate, floor_rate = ceiling.rate(), fed.rate(), floor.rate()
    b = config.batch_size
    c_fig = {
        "samples_per_sec": c_rate * b if c_rate else None,
        "learner_duty": ceiling.rate("busy"),
        "by_segment": ceiling.segment_rates(),
        "batch_size": b,
        "jit_compile": config.jit_compile,
        "batch_splits": config.batch_splits,
        "precision": precision,
    }
    f_fig = {
        "share_of_ceiling": ratio(f_rate, c_rate),
        "iterator_floor": floor_rate,
        "floor_share_of_ceiling": ratio(floor_rate, c_rate),
        "samples_per_sec": f_rate * b if f_rate else None,
        "learner_duty": fed.rate("busy"),
        "data_wait_share": fed.rate("wait"),
        "replay_ratio_held": ratio(fed.deltas["sampled"], fed.deltas["inserted"]),
        "by_segment": fed.segment_rates(),
    }
    unit = "train steps/s"
    return (
        StageResult(key="learner_ceiling", title="learner alone, element on the device",
                    unit=unit, rate=c_rate, figures=c_fig, windows=ceiling.windows),
        StageResult(key="fed_learner",
                    title="learner fed by queue, replay, from_generator, prefetch",
                    unit=unit, rate=f_rate, figures=f_fig, windows=fed.windows),
    )  # fmt: skip
