"""The settings the larger board games start from (each game's preset changes a few).

An MLP (on a 2-core CPU a convolutional net trains ~10x fewer steps per second), one-step
Double DQN, a discount that keeps a win 100 moves ahead worth a third of a win now,
exploration decaying over 1.5 M moves, a 20-minute budget, an agent kept every five
minutes and the evaluation ladder every three.
"""

from __future__ import annotations

from boardq.config import NetworkConfig, TrainConfig

__all__ = ["BOARD_GAME"]

BOARD_GAME = TrainConfig(
    game="",
    games_per_thread=64,
    replay_capacity=500_000,
    warmup_transitions=20_000,
    replay_ratio=8.0,
    batch_size=256,
    learning_rate=5e-4,
    discount=0.99,
    tau=0.005,
    epsilon_start=1.0,
    epsilon_end=0.05,
    epsilon_decay_transitions=1_500_000,
    budget_minutes=20.0,
    # 32 train steps per compiled call: the learner's ceiling was 1.12-1.18x that of 8
    # steps on a 2-core EPYC, measured side by side (docs/results/performance.md, "The
    # learner against the chip"); snapshots for the actors follow once per call.
    steps_per_call=32,
    eval_every_sec=180.0,
    eval_ladder="random",
    keep_agent_every_sec=300.0,
    network=NetworkConfig(hidden_units=(512, 256)),
)
