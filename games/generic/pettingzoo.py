"""Any PettingZoo AEC environment that fits boardq: `pettingzoo:ENV_ID[(key=value,...)]`.

An environment fits when it has two agents, discrete actions, and a dict observation
with an array `observation` and an `action_mask` (PettingZoo's classic layout).
PettingZoo does not say whether a game hides information or has chance, so its card
games are refused by name (`UNFIT`). Observations are taken as channels-last (PettingZoo's
convention), cast to int8 (whole numbers only), shaped to [H, W, C] and given one more
plane holding the observer's seat (1 for the second agent).
"""

from __future__ import annotations

import functools
import re
from typing import Any

import numpy as np

from boardq.errors import UnknownGameError
from boardq.game import Game, GameFitError
from boardq_games.adapter import BoardEnv, guarded, integral_int8
from boardq_games.generic.preset import generic_preset
from boardq_games.generic.spec import GameSpec, format_spec
from boardq_games.generic.text import GenericText, numbers_board
from boardq_games.go.env import board_size_guard

__all__ = [
    "UNFIT",
    "PettingZooView",
    "format_value",
    "make_pettingzoo_env",
    "parse_value",
    "pettingzoo_game",
]

UNFIT = {
    "classic/hanabi": "hides information (the cards) and has chance",
    "classic/leduc_holdem": "hides information (the cards) and has chance",
    "classic/texas_holdem": "hides information (the cards) and has chance",
    "classic/texas_holdem_no_limit": "hides information (the cards) and has chance",
    "classic/rps": "has simultaneous moves",
}
"""PettingZoo environments whose structure fits but whose game does not, and why."""

_GUARDS = {"classic/go": board_size_guard}
"""Per environment: makes the hook run before each call (Go's board size is global)."""


def parse_value(text: str) -> Any:
    """A parameter's value: a whole number, a number, true/false, none, or the text."""
    lowered = text.strip().lower()
    words = {"true": True, "false": False, "none": None}
    if lowered in words:
        return words[lowered]
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text.strip()


def format_value(value: Any) -> str:
    """The text `parse_value` reads back as `value` (names of games use it)."""
    if isinstance(value, bool) or value is None:
        return str(value).lower()
    return repr(value) if isinstance(value, float) else str(value)


def _unversioned(env_id: str) -> str:
    return re.sub(r"-v\d+$", "", env_id)


class PettingZooView:
    """A PettingZoo observation as int8 planes [H, W, C + 1], the last one the seat.

    Args:
        env: the (unguarded) environment.
        shape: the shape of its observation arrays.
        name: how errors name the game.
    """

    def __init__(self, env: Any, shape: tuple[int, ...], name: str) -> None:
        self.seats = {agent: i for i, agent in enumerate(env.possible_agents)}
        self.shape, self.name = shape, name
        self.num_actions = int(env.action_space(env.possible_agents[0]).n)
        self.obs_shape = (*self._board(np.zeros(shape, np.int8)).shape[:2], self._channels + 1)

    @property
    def _channels(self) -> int:
        return self.shape[2] if len(self.shape) == 3 else 1

    def _board(self, values: np.ndarray) -> np.ndarray:
        shapes = {3: values.shape, 2: (*values.shape, 1), 1: (1, values.size, 1)}
        return values.reshape(shapes[values.ndim])

    def observe(self, env: Any, agent: str) -> tuple[np.ndarray, np.ndarray]:
        observation = env.observe(agent)
        planes = self._board(integral_int8(observation["observation"], self.name))
        seat = np.full((*planes.shape[:2], 1), self.seats[agent], np.int8)
        mask = np.asarray(observation["action_mask"], np.int8)
        return np.concatenate([planes, seat], axis=-1), mask


def _checked_space(env: Any, name: str) -> tuple[int, ...]:
    """The observation array's shape; GameFitError where the environment does not fit."""
    from gymnasium import spaces

    agents = list(env.possible_agents)
    if len(agents) != 2:
        raise GameFitError(f"{name} has {len(agents)} agents; boardq plays two-player games")
    for agent in agents:
        if not isinstance(env.action_space(agent), spaces.Discrete):
            raise GameFitError(f"{name}'s actions are not a discrete set; boardq needs them to be")
        space = env.observation_space(agent)
        if not isinstance(space, spaces.Dict) or "action_mask" not in space.spaces:
            raise GameFitError(
                f"{name} has no action mask in its observations; boardq reads "
                "observe(agent)['action_mask']"
            )
        inner = space.spaces.get("observation")
        if not isinstance(inner, spaces.Box) or not 1 <= len(inner.shape) <= 3:
            raise GameFitError(f"{name}'s observations are not arrays of one to three dimensions")
    return tuple(env.observation_space(agents[0])["observation"].shape)


def _make(env_id: str, kwargs: dict[str, Any], name: str) -> Any:
    import pettingzoo
    from pettingzoo.env_registry.exceptions import PettingZooRegistryError

    try:
        return pettingzoo.make("aec", env_id, **kwargs)
    except PettingZooRegistryError as e:  # a missing dependency of the environment
        raise GameFitError(f"{name}: {str(e).splitlines()[0]}") from None
    except (TypeError, ValueError) as e:
        raise GameFitError(f"bad parameters for {name}: {e}") from None


def make_pettingzoo_env(env_id: str, kwargs: dict[str, Any], view_name: str, make_view) -> Any:
    """A guarded `BoardEnv` over a new PettingZoo environment (its own guards removed)."""
    from boardq.gamebatch import unwrap_guards

    raw = unwrap_guards(_make(env_id, kwargs, view_name))
    guard = _GUARDS.get(_unversioned(env_id))
    return guarded(BoardEnv(raw, make_view(raw), view_name, guard(raw) if guard else None))


def _first_board(env: Any) -> str:
    return numbers_board(env.observe(env.possible_agents[0])["observation"])


def pettingzoo_game(spec: GameSpec) -> Game:
    """The `Game` of `pettingzoo:ENV_ID(key=value,...)`.

    Raises:
        UnknownGameError: PettingZoo has no such environment.
        GameFitError: bad parameters, or an environment that does not fit.
    """
    import pettingzoo
    from pettingzoo.env_registry.exceptions import PettingZooRegistryError

    try:
        env_id = pettingzoo.spec("aec", spec.base).id
    except PettingZooRegistryError:
        classic = ", ".join(sorted(k for k in pettingzoo.aec_registry if k.startswith("classic/")))
        raise UnknownGameError(
            f"unknown PettingZoo environment {spec.base!r}; its classic games: {classic}"
        ) from None
    kwargs = {k: parse_value(v) for k, v in sorted(spec.params)}
    params = tuple((k, format_value(v)) for k, v in kwargs.items())
    name = format_spec(GameSpec("pettingzoo", env_id, params))
    if _unversioned(env_id) in UNFIT:
        raise GameFitError(f"{name} {UNFIT[_unversioned(env_id)]}; boardq cannot train it")
    from boardq.gamebatch import unwrap_guards

    probe = unwrap_guards(_make(env_id, kwargs, name))
    shape = _checked_space(probe, name)
    make_view = functools.partial(PettingZooView, shape=shape, name=name)
    view = make_view(probe)
    probe.close()
    return Game(
        name=name,
        title=name.partition(":")[2],
        env_id=env_id,
        obs_shape=view.obs_shape,
        num_actions=view.num_actions,
        preset=generic_preset(name, view.obs_shape, view.num_actions),
        rules=None,
        text=GenericText(view.num_actions),
        symmetries=(),
        env_maker=functools.partial(make_pettingzoo_env, env_id, kwargs, name, make_view),
        board_of=_first_board,
        players=(),
    )
