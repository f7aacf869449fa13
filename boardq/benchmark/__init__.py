"""The benchmark: throughput of every stage of training, and GPU utilization.

Stages, each measured on its own with the code that trains:

1. the game alone (PettingZoo random play, one thread);
2. self-play collection (Actor threads, batched inference);
3. the learner's ceiling (train steps on a batch already on the device);
4. the fed learner (queue, replay, from_generator, prefetch);
5. full training (the Trainer at the preset's replay ratio);
6. GPU utilization through NVML, sampled in the background over every stage;
7. the seeds' recipe as the baseline, in the same run.

`boardq.bench` is the command; `run_benchmark` the entry point for code.
"""

from __future__ import annotations

from boardq.benchmark.runner import TARGETS, BenchSettings, Durations, run_benchmark

__all__ = ["TARGETS", "BenchSettings", "Durations", "run_benchmark"]
