"""Typed training settings.

Every setting is a field of a frozen dataclass with its help text, group and value
check in the field's metadata (`boardq.settings`); the command line is generated from
these fields (`boardq.commands.args`), the run directory stores them as JSON, and each
game ships a preset.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from typing import Any

from boardq.evaluation_settings import EvaluationSettings
from boardq.execution import ExecutionSettings
from boardq.settings import (
    AT_LEAST_1,
    GROUPS,
    NOT_NEGATIVE,
    POSITIVE,
    RATE,
    UNIT,
    ConfigError,
    NetworkConfig,
    default_actor_threads,
    setting,
    typed_value,
)
from boardq.target_settings import RETURNS, TargetSettings

__all__ = [
    "GROUPS",
    "RETURNS",
    "ConfigError",
    "NetworkConfig",
    "TrainConfig",
    "default_actor_threads",
]


@dataclass(frozen=True)
class TrainConfig(ExecutionSettings, EvaluationSettings, TargetSettings):
    """Everything one training run needs; stored as config.json in its run directory.

    Fields are grouped (`GROUPS`): the algorithm's settings decide what is learned;
    replay and pipeline settings how samples reach the learner (the replay ratio is
    held on any machine); performance settings (`ExecutionSettings`, which this class
    extends) only how the work is spread over threads, processes and devices; run
    settings how long, where and how it is logged; evaluation settings
    (`EvaluationSettings`, extended too) how the run rates its snapshots as it trains.
    The algorithm's settings of what the targets are live in `TargetSettings`.
    """

    game: str = setting("tictactoe", group="run", help="game to train", cli=False)
    # -- algorithm ---------------------------------------------------------------------
    learning_rate: float = setting(
        5e-4, group="algorithm", check=POSITIVE, help="Adam learning rate"
    )
    lr_final: float = setting(
        1.0,
        group="algorithm",
        check=UNIT,
        help="learning rate at the end of the budget as a share of learning_rate, reached "
        "along a half cosine over the budget (1: constant)",
    )
    opening_plies: int = setting(
        0,
        group="algorithm",
        check=NOT_NEGATIVE,
        help="self-play games open with k uniformly random legal moves, k drawn for "
        "each game from 0 to this (0: every move the policy's; "
        "docs/results/othello.md#random-openings)",
    )
    reward_lead: float = setting(
        0.0,
        group="algorithm",
        check=UNIT,
        help="share of a finished game's reward that is the mover's final lead by the "
        "game's count (Go: the area margin over the board's points; Othello: the discs) "
        "instead of the result: (1 - w) * result + w * lead (0: the result alone; go "
        "and othello; docs/results/go.md#go-paying-the-final-lead)",
    )
    prune_moves: bool = setting(
        False,
        group="algorithm",
        help="leave the game's moves never worth playing out of the legal ones, in "
        "training and in the run's agents at play (go: filling one's own true eye; "
        "docs/results/go.md#go-liberty-planes-and-eyes-kept)",
    )
    tau: float = setting(
        0.01, group="algorithm", check=RATE, help="soft target update rate per train step (0..1]"
    )
    hard_update_every_steps: int = setting(
        0,
        group="algorithm",
        check=NOT_NEGATIVE,
        help="copy the online network to the target every K train steps (0: soft updates)",
    )
    huber_delta: float = setting(
        1.0, group="algorithm", check=POSITIVE, help="Huber loss threshold"
    )
    max_grad_norm: float = setting(
        10.0, group="algorithm", check=POSITIVE, help="global gradient norm clip"
    )
    epsilon_start: float = setting(
        1.0, group="algorithm", check=UNIT, help="exploration rate at the start"
    )
    epsilon_end: float = setting(
        0.1, group="algorithm", check=UNIT, help="exploration rate after the decay"
    )
    epsilon_decay_transitions: int = setting(
        200_000,
        group="algorithm",
        check=NOT_NEGATIVE,
        help="transitions collected over which epsilon decays linearly",
    )
    search_visits: int = setting(
        0,
        group="algorithm",
        check=NOT_NEGATIVE,
        help="one game of each actor plays its moves by a tree search of N visits over "
        "the acting network, and the values the search finds for its root's moves "
        "become targets (0: off; games with rules; "
        "docs/results/training.md#search-in-self-play)",
    )
    pool_share: float = setting(
        0.0,
        group="algorithm",
        check=UNIT,
        help="share of each actor's games played against a past snapshot from the "
        "opponent pool instead of the newest (0: pure self-play)",
    )
    pool_size: int = setting(
        8, group="algorithm", check=AT_LEAST_1, help="past snapshots the opponent pool keeps"
    )
    pool_every_steps: int = setting(
        20_000,
        group="algorithm",
        check=AT_LEAST_1,
        help="train steps between snapshots added to the pool",
    )
    # -- replay and input pipeline -----------------------------------------------------
    replay_capacity: int = setting(
        200_000, group="replay", check=AT_LEAST_1, help="transitions kept in the replay memory"
    )
    warmup_transitions: int = setting(
        5_000,
        group="replay",
        check=NOT_NEGATIVE,
        help="transitions collected before training starts",
    )
    replay_ratio: float = setting(
        8.0,
        group="replay",
        check=POSITIVE,
        help="samples trained per transition collected; held on any machine",
    )
    batch_size: int = setting(
        256, group="replay", check=AT_LEAST_1, help="transitions per train step"
    )
    augment_symmetries: bool = setting(
        True, group="replay", help="train on the board's symmetric images too"
    )
    queue_chunks: int = setting(
        64, group="replay", check=AT_LEAST_1, help="bound of the actors-to-replay queue, in chunks"
    )
    # -- run -------------------------------------------------------------------------------
    budget_steps: int = setting(
        0,
        group="run",
        check=NOT_NEGATIVE,
        help="stop after this many train steps (0: no step limit)",
    )
    budget_minutes: float = setting(
        0.0,
        group="run",
        check=NOT_NEGATIVE,
        help="stop after this many minutes of training (0: no limit)",
    )
    seed: int = setting(0, group="run", help="random seed")
    out_dir: str = setting("runs", group="run", help="directory that holds run directories")
    checkpoint_every_sec: float = setting(
        120.0, group="run", check=POSITIVE, help="seconds between checkpoints"
    )
    save_replay: bool = setting(
        True,
        group="run",
        no_flag=True,
        help="save the replay memory with every checkpoint, so that a resumed run goes on "
        "with it (--no-save-replay: small checkpoints, and a resume collects a fresh "
        "warm-up)",
    )
    keep_agent_every_sec: float = setting(
        120.0,
        group="run",
        check=NOT_NEGATIVE,
        help="seconds between agents kept in RUN_DIR/agents (strength over time; 0: none)",
    )
    log_every_sec: float = setting(
        5.0, group="run", check=POSITIVE, help="seconds between progress lines and logged metrics"
    )
    network: NetworkConfig = field(default_factory=NetworkConfig)

    def validate(self) -> TrainConfig:
        """Checks every value; raises ConfigError naming the first bad setting."""
        for f in dataclasses.fields(self):
            check = f.metadata.get("check")
            value = getattr(self, f.name)
            if check is not None and not check[0](value):
                raise ConfigError(f"{f.name} {check[1]}, got {value}")
        if self.warmup_transitions > self.replay_capacity:
            raise ConfigError(
                f"warmup_transitions ({self.warmup_transitions}) exceeds "
                f"replay_capacity ({self.replay_capacity})"
            )
        if self.batch_size % self.batch_splits:
            raise ConfigError(
                f"batch_splits ({self.batch_splits}) must divide batch_size ({self.batch_size})"
            )
        if self.batch_size > self.replay_capacity:
            raise ConfigError(
                f"batch_size ({self.batch_size}) exceeds replay_capacity ({self.replay_capacity})"
            )
        if self.budget_steps == 0 and self.budget_minutes == 0:
            raise ConfigError("set a budget: budget_steps or budget_minutes must be > 0")
        if self.network.policy_head and self.policy_alpha + self.policy_beta <= 0:
            raise ConfigError("policy_head needs policy_alpha + policy_beta > 0")
        if self.pool_share and self.actor_processes:
            raise ConfigError(
                "pool_share needs actor threads: set actor_processes to 0, or pool_share to 0"
            )
        if self.eval_average_agents and not self.keep_agent_every_sec:
            raise ConfigError(
                "eval_average_agents averages kept agents: set keep_agent_every_sec > 0"
            )
        for units in (*self.network.hidden_units, *self.network.conv_filters):
            if units < 1:
                raise ConfigError(f"network layer sizes must be >= 1, got {units}")
        return self

    def replace(self, **changes: Any) -> TrainConfig:
        """A copy with some fields changed (network fields by their own names)."""
        net_names = {f.name for f in dataclasses.fields(NetworkConfig)}
        net_changes = {k: changes.pop(k) for k in list(changes) if k in net_names}
        if net_changes:
            changes["network"] = dataclasses.replace(self.network, **net_changes)
        return dataclasses.replace(self, **changes)

    def updated(self, data: dict[str, Any], source: str = "settings") -> TrainConfig:
        """A copy with the values of a settings dict such as config.json holds, in part or whole.

        Each value must have its setting's type (an int where a float is asked is
        taken); network layer sizes are lists of ints.

        Raises:
          ConfigError: an unknown setting, or a value of the wrong type (the message
            names `source`, the setting and the value).
        """
        data = dict(data)
        network = data.pop("network", None) or {}
        if not isinstance(network, dict):
            raise ConfigError(f"{source}: network must be a table of settings, got {network!r}")
        current = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        layers = {f.name: getattr(self.network, f.name) for f in dataclasses.fields(NetworkConfig)}
        unknown = sorted(
            set(data) - set(current) | {f"network.{k}" for k in set(network) - set(layers)}
        )
        if unknown:
            raise ConfigError(f"{source}: unknown settings: {', '.join(unknown)}")
        changes = {k: typed_value(v, current[k], f"{source}: {k}") for k, v in data.items()}
        changes |= {
            k: typed_value(v, layers[k], f"{source}: network.{k}") for k, v in network.items()
        }
        return self.replace(**changes)

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
