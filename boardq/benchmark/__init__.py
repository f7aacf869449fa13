"""The benchmark: the throughput of every stage of training, and GPU utilization.

Stages, each measured with the code that trains (built by `boardq.dqn.builder.Builder`):

1. random play: PettingZoo's own loop, and the game's vectorized rules;
2. self-play collection, learner off: vectorized rules against PettingZoo stepping;
3. actor processes on Ray, 1..P of them, learner off;
4. the learner on an element already on the device (ceiling), fed by the real input
   pipeline, and fed by a tf.data pipeline that repeats one element (floor);
5. the lookahead search at play, the time a move at depths 1-3, and the tree search's
   leaves a second beside the network's forward pass at its batch size (games with rules);
6. full training (the Trainer at the preset's replay ratio);
7. the naive implementation of the design card, as the baseline;
8. GPU (NVML) and CPU utilization, sampled in the background over every stage.

`boardq.commands.bench` is the command; `run_benchmark` the entry point for code.
"""

from boardq.benchmark.runner import TARGETS, BenchSettings, Durations, run_benchmark

__all__ = ["TARGETS", "BenchSettings", "Durations", "run_benchmark"]
