"""The performance settings: how a run's work is spread over threads, processes and devices.

They change how fast a run goes, not what it learns (the replay ratio is held on any
machine); `TrainConfig` extends this class, so they are fields of the one flat record
that the command line, config.json and the presets share.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from boardq.settings import AT_LEAST_1, NOT_NEGATIVE, default_actor_threads, setting

__all__ = ["ACTOR_INFERENCE", "PRECISIONS", "ExecutionSettings"]

PRECISIONS = ("auto", "float32", "bfloat16", "float16")
"""The values of the `precision` setting (`boardq.dqn.precision`)."""

ACTOR_INFERENCE = ("auto", "numpy", "tensorflow")
"""The values of the `actor_inference` setting (`boardq.dqn.numpy_net`), and of an agent's
`inference` at play (`boardq.players.forward`)."""


@dataclass(frozen=True)
class ExecutionSettings:
    """The settings of the "performance" group (`boardq.settings.GROUPS`)."""

    actor_threads: int = setting(
        default_actor_threads,
        group="performance",
        check=AT_LEAST_1,
        help="actor threads playing self-play games, in each actor process (default: cores - 1)",
    )
    games_per_thread: int = setting(
        64,
        group="performance",
        check=AT_LEAST_1,
        help="games each actor thread plays at once, moved by one batched forward pass",
    )
    vectorized: bool = setting(
        True,
        group="performance",
        help="step games with the game's vectorized numpy rules where it has them "
        "(false: through PettingZoo)",
    )
    actor_processes: int = setting(
        0,
        group="performance",
        check=NOT_NEGATIVE,
        help="actor processes on Ray, each with its own threads and snapshot copy "
        "(0: actor threads in this process)",
    )
    ray_address: str = setting(
        "",
        group="performance",
        help="Ray cluster to run actor processes on (empty: start a local Ray instance)",
    )
    steps_per_call: int = setting(
        8,
        group="performance",
        check=AT_LEAST_1,
        help="train steps per compiled call, on one element of that many batches taken "
        "inside the call (like Keras's steps_per_execution)",
    )
    publish_every_steps: int = setting(
        8,
        group="performance",
        check=AT_LEAST_1,
        help="train steps between weight snapshots for the actors (published after the "
        "call that reaches them)",
    )
    jit_compile: bool = setting(False, group="performance", help="compile the train step with XLA")
    batch_splits: int = setting(
        1,
        group="performance",
        check=AT_LEAST_1,
        help="cut each train batch into this many equal parts whose forward and backward "
        "passes run side by side on TensorFlow's threads, their gradients averaged into "
        "one update (the same update as one part, up to rounding)",
    )
    precision: str = setting(
        "auto",
        group="performance",
        check=(lambda v: v in PRECISIONS, f"must be one of {', '.join(PRECISIONS)}"),
        choices=PRECISIONS,
        help="the learner's arithmetic: float32; bfloat16 or float16 mixed (float32 "
        "weights and loss, 16-bit matmuls; float16 with loss scaling, for GPUs); auto: "
        "what this chip runs fastest (tensor cores on a GPU; on a CPU with AVX512_BF16 "
        "or AMX, bfloat16 where a probe of the learner's products finds it 1.5x faster). "
        "Agent files are float32",
    )
    actor_inference: str = setting(
        "auto",
        group="performance",
        check=(lambda v: v in ACTOR_INFERENCE, f"must be one of {', '.join(ACTOR_INFERENCE)}"),
        choices=ACTOR_INFERENCE,
        help="how the actors compute Q-values: numpy, in each actor's own thread and off "
        "TensorFlow's threads, which the learner's train step then has to itself; "
        "tensorflow, the compiled forward pass on the learner's device; auto: numpy where "
        "the learner runs on the CPU, tensorflow on a GPU",
    )
    intra_op_threads: int = setting(
        0,
        group="performance",
        check=NOT_NEGATIVE,
        help="TensorFlow compute threads per op (0: the cores not given to actor threads, "
        "at least 1); set before TensorFlow's first op",
    )

    def resolved_intra_op_threads(self) -> int:
        """The compute threads to use: the setting, or the cores actor threads leave.

        Actor processes share the machine's cores with the learner process; with them,
        the learner keeps one compute thread unless told otherwise.
        """
        if self.intra_op_threads:
            return self.intra_op_threads
        if self.actor_processes:
            return 1
        return max(1, (os.cpu_count() or 2) - self.actor_threads)
