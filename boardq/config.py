"""Typed training settings.

Every setting is a field of a frozen dataclass with its help text in the field's
metadata; the command line is generated from these fields in `boardq.cli`, the run
directory stores them as JSON, and each game ships a preset.
"""

from __future__ import annotations

import dataclasses
import json
import os
from dataclasses import dataclass, field
from typing import Any

from boardq.errors import BoardqError

__all__ = ["ConfigError", "NetworkConfig", "TrainConfig", "default_actor_threads"]


class ConfigError(BoardqError, ValueError):
    """A setting has a value that cannot work; the message names the setting."""


def _help(text: str, **extra: Any) -> dict[str, Any]:
    return {"help": text, **extra}


def default_actor_threads() -> int:
    """One agent thread per core, less one core for the learner (at least one)."""
    return max(1, (os.cpu_count() or 2) - 1)


@dataclass(frozen=True)
class NetworkConfig:
    """Shape of the Q-network. The same network plays both seats."""

    conv_filters: tuple[int, ...] = field(
        default=(), metadata=_help("filters of each 3x3 convolution layer (none: a plain MLP)")
    )
    hidden_units: tuple[int, ...] = field(
        default=(256, 256), metadata=_help("units of each dense hidden layer")
    )
    dueling: bool = field(default=False, metadata=_help("dueling value/advantage head"))


@dataclass(frozen=True)
class TrainConfig:
    """Everything one training run needs; stored as config.json in its run directory."""

    game: str = field(default="tictactoe", metadata=_help("game to train", cli=False))
    actor_threads: int = field(
        default_factory=default_actor_threads,
        metadata=_help("agent threads playing self-play games (default: cores - 1)"),
    )
    games_per_thread: int = field(
        default=64, metadata=_help("games each agent thread plays at once, one batched call")
    )
    replay_capacity: int = field(
        default=200_000, metadata=_help("transitions kept in the replay memory")
    )
    warmup_transitions: int = field(
        default=5_000, metadata=_help("transitions collected before training starts")
    )
    replay_ratio: float = field(
        default=8.0,
        metadata=_help("samples trained per transition collected; held on any machine"),
    )
    batch_size: int = field(default=256, metadata=_help("transitions per train step"))
    learning_rate: float = field(default=5e-4, metadata=_help("Adam learning rate"))
    discount: float = field(default=0.99, metadata=_help("discount per move (gamma)"))
    tau: float = field(
        default=0.01, metadata=_help("soft target update rate per train step (0..1]")
    )
    hard_update_every_steps: int = field(
        default=0,
        metadata=_help("copy the online network to the target every K steps (0: soft updates)"),
    )
    epsilon_start: float = field(default=1.0, metadata=_help("exploration rate at the start"))
    epsilon_end: float = field(default=0.1, metadata=_help("exploration rate after the decay"))
    epsilon_decay_transitions: int = field(
        default=200_000,
        metadata=_help("transitions collected over which epsilon decays linearly"),
    )
    n_step: int = field(default=1, metadata=_help("moves per return before bootstrapping"))
    huber_delta: float = field(default=1.0, metadata=_help("Huber loss threshold"))
    max_grad_norm: float = field(default=10.0, metadata=_help("global gradient norm clip"))
    augment_symmetries: bool = field(
        default=True, metadata=_help("train on the board's symmetric images too")
    )
    budget_steps: int = field(
        default=0, metadata=_help("stop after this many train steps (0: no step limit)")
    )
    budget_minutes: float = field(
        default=0.0, metadata=_help("stop after this many minutes of training (0: no limit)")
    )
    seed: int = field(default=0, metadata=_help("random seed"))
    out_dir: str = field(default="runs", metadata=_help("directory that holds run directories"))
    publish_every_steps: int = field(
        default=8,
        metadata=_help(
            "train steps between weight snapshots for the agents (published after the "
            "call that reaches them)"
        ),
    )
    steps_per_call: int = field(
        default=8,
        metadata=_help(
            "train steps per compiled call, on one element of that many batches taken "
            "inside the call (like Keras's steps_per_execution)"
        ),
    )
    queue_chunks: int = field(
        default=64, metadata=_help("bound of the agents-to-replay queue, in chunks")
    )
    checkpoint_every_sec: float = field(
        default=120.0, metadata=_help("seconds between checkpoints")
    )
    eval_every_sec: float = field(
        default=30.0, metadata=_help("seconds between evaluations against a random player")
    )
    eval_games: int = field(
        default=50, metadata=_help("games per seat in each evaluation (0: no evaluation)")
    )
    log_every_sec: float = field(
        default=5.0, metadata=_help("seconds between progress lines and TensorBoard scalars")
    )
    jit_compile: bool = field(default=False, metadata=_help("compile the train step with XLA"))
    intra_op_threads: int = field(
        default=0,
        metadata=_help(
            "TensorFlow compute threads per op (0: the cores not given to agent threads, "
            "at least 1); set before TensorFlow's first op"
        ),
    )
    network: NetworkConfig = field(default_factory=NetworkConfig)

    def validate(self) -> TrainConfig:
        """Checks every value; raises ConfigError naming the first bad setting."""
        positive = [
            "actor_threads",
            "games_per_thread",
            "replay_capacity",
            "batch_size",
            "n_step",
            "publish_every_steps",
            "steps_per_call",
            "queue_chunks",
        ]
        for name in positive:
            if getattr(self, name) < 1:
                raise ConfigError(f"{name} must be at least 1, got {getattr(self, name)}")
        checks = [
            ("warmup_transitions", self.warmup_transitions >= 0, "must be >= 0"),
            ("replay_ratio", self.replay_ratio > 0, "must be > 0"),
            ("learning_rate", self.learning_rate > 0, "must be > 0"),
            ("discount", 0 <= self.discount <= 1, "must be in [0, 1]"),
            ("tau", 0 < self.tau <= 1, "must be in (0, 1]"),
            ("hard_update_every_steps", self.hard_update_every_steps >= 0, "must be >= 0"),
            ("epsilon_start", 0 <= self.epsilon_start <= 1, "must be in [0, 1]"),
            ("epsilon_end", 0 <= self.epsilon_end <= 1, "must be in [0, 1]"),
            ("epsilon_decay_transitions", self.epsilon_decay_transitions >= 0, "must be >= 0"),
            ("huber_delta", self.huber_delta > 0, "must be > 0"),
            ("max_grad_norm", self.max_grad_norm > 0, "must be > 0"),
            ("budget_steps", self.budget_steps >= 0, "must be >= 0"),
            ("budget_minutes", self.budget_minutes >= 0, "must be >= 0"),
            ("checkpoint_every_sec", self.checkpoint_every_sec > 0, "must be > 0"),
            ("eval_every_sec", self.eval_every_sec > 0, "must be > 0"),
            ("eval_games", self.eval_games >= 0, "must be >= 0"),
            ("log_every_sec", self.log_every_sec > 0, "must be > 0"),
            ("intra_op_threads", self.intra_op_threads >= 0, "must be >= 0"),
        ]
        for name, ok, why in checks:
            if not ok:
                raise ConfigError(f"{name} {why}, got {getattr(self, name)}")
        if self.warmup_transitions > self.replay_capacity:
            raise ConfigError(
                f"warmup_transitions ({self.warmup_transitions}) exceeds "
                f"replay_capacity ({self.replay_capacity})"
            )
        if self.batch_size > self.replay_capacity:
            raise ConfigError(
                f"batch_size ({self.batch_size}) exceeds replay_capacity ({self.replay_capacity})"
            )
        if self.budget_steps == 0 and self.budget_minutes == 0:
            raise ConfigError("set a budget: budget_steps or budget_minutes must be > 0")
        for units in (*self.network.hidden_units, *self.network.conv_filters):
            if units < 1:
                raise ConfigError(f"network layer sizes must be >= 1, got {units}")
        return self

    def replay_tolerance(self) -> float:
        """How far, in samples, training may run ahead of or behind the replay ratio.

        Room for every agent thread's step (a chunk of about one transition per game,
        times the ratio) and for a few of the learner's elements (`steps_per_call`
        batches each) on either side, so neither side can wait for the other forever.
        """
        games = self.actor_threads * self.games_per_thread
        return self.replay_ratio * games + (self.steps_per_call + 4) * self.batch_size

    def resolved_intra_op_threads(self) -> int:
        """The compute threads to use: the setting, or the cores agent threads leave."""
        if self.intra_op_threads:
            return self.intra_op_threads
        return max(1, (os.cpu_count() or 2) - self.actor_threads)

    def replace(self, **changes: Any) -> TrainConfig:
        """A copy with some fields changed (network fields by their own names)."""
        net_names = {f.name for f in dataclasses.fields(NetworkConfig)}
        net_changes = {k: changes.pop(k) for k in list(changes) if k in net_names}
        if net_changes:
            changes["network"] = dataclasses.replace(self.network, **net_changes)
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready values."""
        return dataclasses.asdict(self)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, sort_keys=True)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TrainConfig:
        """Inverse of `to_dict`; unknown keys raise ConfigError."""
        data = dict(data)
        net = data.pop("network", {}) or {}
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = set(data) - known
        net_known = {f.name for f in dataclasses.fields(NetworkConfig)}
        unknown |= {f"network.{k}" for k in set(net) - net_known}
        if unknown:
            raise ConfigError(f"unknown settings: {', '.join(sorted(unknown))}")
        net = {k: tuple(v) if isinstance(v, list) else v for k, v in net.items()}
        return cls(**data, network=NetworkConfig(**net))
