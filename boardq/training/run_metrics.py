"""Every figure of a training run in one flat dict, as the trainer logs it.

Counters over the whole run (resumes included), the replay and its limiter, the
learner's busy and waiting time, the actors' figures (`collection.metrics`), the last
checkpoint, the last train call's losses and the ladder's last figures; with the
previous dict, rates over the time between the two.
"""

from __future__ import annotations

import time
from typing import Any

__all__ = ["run_metrics"]


def run_metrics(trainer: Any, last: dict[str, Any] | None = None) -> dict[str, Any]:
    """The run's figures now; rates (`*_per_sec`, duty, data wait) since `last`."""
    t = trainer
    now = time.monotonic()
    loop = t.loop
    train = {k: float(v) for k, v in loop.metrics.items()}
    busy, wait = sum(loop.busy_sec.values()), sum(loop.wait_sec.values())
    steps = loop.steps
    delivered = t.collection.transitions()
    m: dict[str, Any] = {
        "time": now,
        "elapsed_sec": t.elapsed(),
        "train_steps": steps,
        "transitions": t.collected(),
        "games": t.state.base_games + t.collection.games(),
        "replay_size": t.ring.size,
        # Transitions still to collect before training starts (0 after a resume
        # whose replay holds the warm-up).
        "warmup_left": max(0, t.limiter.warmup - t.limiter.inserted),
        "queue_depth": t.queue.qsize(),
        "epsilon": t.epsilon(),
        "learning_rate": float(t.learner.optimizer.learning_rate.numpy()),
        # Samples trained per transition delivered after the warm-up (this process).
        "replay_ratio_measured": t.limiter.sampled / max(1, delivered - t.limiter.warmup),
        # Moves the limiter admitted that have not arrived (in flight, or lost).
        "admitted_not_delivered": t.limiter.inserted - delivered,
        "policy_lag": steps - t.collection.mean_version(),
        "learner_busy_sec": busy,
        "learner_wait_sec": wait,
        **t.collection.metrics(),
        **t.state.last_save,  # the last checkpoint's seconds and size
        **train,
        **t.eval_metrics,
    }
    if last is not None:
        dt = max(1e-9, now - last["time"])
        m["transitions_per_sec"] = (m["transitions"] - last["transitions"]) / dt
        m["train_steps_per_sec"] = (steps - last["train_steps"]) / dt
        m["learner_duty"] = (busy - last["learner_busy_sec"]) / dt
        m["data_wait_share"] = (wait - last["learner_wait_sec"]) / dt
    return m
