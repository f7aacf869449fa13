"""How settings are declared: their groups, value checks, and the network's settings.

Every setting is a dataclass field made by `setting`, with its help text, its group
(`GROUPS`, the order `--help` shows them in) and the check its value must pass in the
field's metadata. `boardq.config.TrainConfig` holds the run's settings, `NetworkConfig`
the Q-network's shape.
"""

from __future__ import annotations

import dataclasses
import math
import os
from dataclasses import dataclass, field
from typing import Any

from boardq.bounded import MAX_WHOLE_DIGITS
from boardq.errors import BoardqError

__all__ = [
    "typed_value",
    "AT_LEAST_1",
    "GROUPS",
    "NOT_NEGATIVE",
    "POSITIVE",
    "RATE",
    "UNIT",
    "ConfigError",
    "NetworkConfig",
    "default_actor_threads",
    "setting",
]


class ConfigError(BoardqError, ValueError):
    """A setting has a value that cannot work; the message names the setting."""


def default_actor_threads() -> int:
    """One actor thread per core, less one core for the learner (at least one)."""
    return max(1, (os.cpu_count() or 2) - 1)


# The settings' groups, in the order `--help` shows them.
GROUPS = {
    "algorithm": "algorithm",
    "replay": "replay and input pipeline",
    "performance": "performance (how the work is spread; learning does not change)",
    "run": "run",
    "evaluation": "evaluation during training",
    "network": "network",
}


# What a setting's value must be: (test, what the error says).
AT_LEAST_1 = (lambda v: v >= 1, "must be at least 1")
NOT_NEGATIVE = (lambda v: v >= 0, "must be >= 0")
POSITIVE = (lambda v: v > 0, "must be > 0")
UNIT = (lambda v: 0 <= v <= 1, "must be in [0, 1]")
RATE = (lambda v: 0 < v <= 1, "must be in (0, 1]")


def setting(default: Any = dataclasses.MISSING, *, group: str, help: str, check=None, **extra: Any):
    """A field with its help text, `GROUPS` key and value check in its metadata."""
    meta = {"help": help, "group": group, "check": check, **extra}
    if callable(default) and not isinstance(default, type):
        return field(default_factory=default, metadata=meta)
    return field(default=default, metadata=meta)


@dataclass(frozen=True)
class NetworkConfig:
    """Shape of the Q-network. The same network plays both seats."""

    conv_filters: tuple[int, ...] = setting(
        (), group="network", help="filters of each 3x3 convolution layer (none: a plain MLP)"
    )
    hidden_units: tuple[int, ...] = setting(
        (256, 256), group="network", help="units of each dense hidden layer"
    )
    dueling: bool = setting(False, group="network", help="dueling value/advantage head")
    policy_head: bool = setting(
        False,
        group="network",
        help="a policy head beside the Q head, trained towards the regularized policy "
        "pi' (policy_alpha, policy_beta); self-play then samples its moves from pi' "
        "instead of epsilon-greedy (KLENT; boardq.dqn.policy_head)",
    )


_MAX_DIGITS = MAX_WHOLE_DIGITS


def _is_whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and abs(value) < 10**_MAX_DIGITS


def typed_value(value: Any, like: Any, what: str) -> Any:
    """`value` as the type of the setting's current value `like`; ConfigError if it is not."""
    if isinstance(like, bool):
        ok, kind = isinstance(value, bool), "true or false"
    elif isinstance(like, int):
        ok, kind = _is_whole(value), f"a whole number of at most {_MAX_DIGITS} digits"
    elif isinstance(like, float):
        ok = _is_whole(value) or (isinstance(value, float) and math.isfinite(value))
        kind, value = "a finite number", float(value) if ok else value
    elif isinstance(like, tuple):
        ok = isinstance(value, list | tuple) and all(_is_whole(v) for v in value)
        kind = f"a list of whole numbers of at most {_MAX_DIGITS} digits"
        value = tuple(value) if ok else value
    else:
        ok, kind = isinstance(value, str), "text"
    if not ok:
        raise ConfigError(f"{what} must be {kind}, got {value!r}")
    return value
