"""Environments as boardq plays them: mover-relative int8 planes with the legal mask beside them.

boardq reads every game through PettingZoo's AEC API the way PettingZoo's classic games
give it: `observe(agent)` is `{"observation": int8 planes [H, W, C] seen by `agent`,
"action_mask": int8 [A]}`, the mover's reward arrives at its move and both final
rewards at the end. `BoardEnv` wraps any AEC environment so it does: a `View` turns the
environment's position into the planes and the mask.

OpenSpiel games come through Shimmy's `OpenSpielCompatibilityV0`, which keeps the mask
in `info["action_mask"]` and observes channels-first float64 tensors. `SpielEnv` is that
environment without the per-move work boardq never reads (it rebuilds the gymnasium
spaces and both players' observations on every move: 4-7x the cost of the move),
observed through `SpielView` straight from the OpenSpiel state, which is also right
once the game is over (Shimmy's own observations stop at the last move before it).

`guarded` adds PettingZoo's guard wrappers, so an illegal move loses as in PettingZoo's
classic games; the actors step under them (`boardq.gamebatch.unwrap_guards`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

import numpy as np
from gymnasium import spaces
from pettingzoo.utils.wrappers import (
    AssertOutOfBoundsWrapper,
    BaseWrapper,
    OrderEnforcingWrapper,
    TerminateIllegalWrapper,
)
from shimmy import OpenSpielCompatibilityV0

from boardq.game import GameFitError

__all__ = [
    "BoardEnv",
    "SpielEnv",
    "SpielView",
    "View",
    "guarded",
    "integral_int8",
    "spiel_env",
]


class View(Protocol):
    """How boardq sees an environment's position."""

    obs_shape: tuple[int, ...]
    num_actions: int

    def observe(self, env: Any, agent: str) -> tuple[np.ndarray, np.ndarray]:
        """The position as `agent` sees it, and its legal moves.

        Returns:
            int8 planes [H, W, C], and int8 [A]: `agent`'s legal moves (none unless it
            is to move).
        """
        ...


def integral_int8(values: np.ndarray, what: str) -> np.ndarray:
    """`values` as int8 if each is a whole number in [-128, 127].

    Raises:
        GameFitError: a value is not (boardq's planes are int8; it does not scale).
    """
    values = np.asarray(values)
    if values.dtype.kind == "b":
        return values.astype(np.int8)
    if values.dtype.kind in "iu":
        if values.min(initial=0) >= -128 and values.max(initial=0) <= 127:
            return values.astype(np.int8)
    elif np.array_equal(values, np.rint(values)) and np.all(np.abs(values) <= 127):
        return values.astype(np.int8)
    raise GameFitError(
        f"{what} observes values that are not whole numbers in [-128, 127]; boardq's "
        "planes are int8"
    )


class BoardEnv(BaseWrapper):
    """An AEC environment observed through a `View`, whose players must alternate.

    Args:
        env: the environment (its own guard wrappers removed: `guarded` adds them).
        view: its planes and masks.
        name: how errors name the game.
        before: called before every reset, step and observation (Go's board size
            lives in module globals, which another Go environment may have changed).
    """

    def __init__(
        self, env: Any, view: View, name: str, before: Callable[[], None] | None = None
    ) -> None:
        super().__init__(env)
        self.view = view
        self.name = name
        self._before = before or (lambda: None)
        self._space = spaces.Dict(
            {
                "observation": spaces.Box(-128, 127, view.obs_shape, np.int8),
                "action_mask": spaces.Box(0, 1, (view.num_actions,), np.int8),
            }
        )
        self._actions = spaces.Discrete(view.num_actions)
        self.metadata = {**getattr(env, "metadata", {}), "name": name}

    def observation_space(self, agent: str) -> spaces.Dict:
        return self._space

    def action_space(self, agent: str) -> spaces.Discrete:
        return self._actions

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """The observation of `agent` as boardq reads it: its planes and legal moves."""
        self._before()
        planes, mask = self.view.observe(self.env, agent)
        return {"observation": planes, "action_mask": mask}

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self._before()
        self.env.reset(seed=seed, options=options)

    def step(self, action: Any) -> None:
        """Steps the environment; GameFitError if the mover is to move again.

        boardq's turn bookkeeping (`boardq.dqn.transitions`) counts the next position against
        the mover, which only holds if the players alternate (a pass is a move).
        """
        self._before()
        env = self.env
        mover = env.agent_selection
        playing = not (env.terminations[mover] or env.truncations[mover])
        env.step(action)
        if playing and env.agent_selection == mover and env.agents and not self._over():
            raise GameFitError(
                f"{self.name}: {mover} moved twice in a row; boardq needs players who "
                "take turns (a pass is a move)"
            )

    def _over(self) -> bool:
        env = self.env
        return any(env.terminations.values()) or any(env.truncations.values())


def guarded(env: BoardEnv) -> Any:
    """`env` under PettingZoo's guards: an illegal move loses (-1), as in the classic games."""
    return OrderEnforcingWrapper(AssertOutOfBoundsWrapper(TerminateIllegalWrapper(env, -1)))


class SpielEnv(OpenSpielCompatibilityV0):
    """Shimmy's OpenSpiel environment without the per-move work boardq does not read.

    Boards keep their shapes, so the spaces are built once; observations are read from
    `game_state` when asked for (`SpielView`) instead of for both players every move.

    Args:
        game_name: OpenSpiel's short name (e.g. "hex").
        config: every parameter of the game (Shimmy reloads the game by its short name
            and these at each reset, so parameters left out would fall back to their
            defaults).
    """

    def __init__(self, game_name: str, config: dict[str, Any]) -> None:
        super().__init__(game_name=game_name, config=dict(config))

    def _update_observation_spaces(self) -> None:
        if not self.observation_spaces:
            super()._update_observation_spaces()

    def _update_action_spaces(self) -> None:
        if not self.action_spaces:
            super()._update_action_spaces()

    def _update_observations(self) -> None:
        pass  # SpielView reads the state itself

    def step(self, action: Any) -> None:
        """Shimmy's step, with the final rewards paid once (as PettingZoo's classic games do).

        Shimmy leaves the final rewards in `rewards` after the last move and adds them
        to the cumulative rewards again at every step that follows, so the second player
        to be told of the end would see twice its reward.
        """
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._clear_rewards()
        super().step(action)


class SpielView:
    """Planes and masks read from an OpenSpiel state (`SpielEnv.game_state`).

    Args:
        tensor_shape: OpenSpiel's observation tensor shape, e.g. (3, 8, 8).
        obs_shape: the shape of the planes `planes` makes.
        num_actions: OpenSpiel's `num_distinct_actions`.
        planes: `planes(tensor, player)`: int8 planes of OpenSpiel's float tensor
            (`tensor_shape`) as `player` (0 or 1) observes it.
    """

    def __init__(
        self,
        tensor_shape: Sequence[int],
        obs_shape: Sequence[int],
        num_actions: int,
        planes: Callable[[np.ndarray, int], np.ndarray],
    ) -> None:
        self.tensor_shape = tuple(int(d) for d in tensor_shape)
        self.obs_shape = tuple(int(d) for d in obs_shape)
        self.num_actions = int(num_actions)
        self._planes = planes

    def observe(self, env: SpielEnv, agent: str) -> tuple[np.ndarray, np.ndarray]:
        state = env.game_state
        player = env.agent_name_id_mapping[agent]
        tensor = np.asarray(state.observation_tensor(player)).reshape(self.tensor_shape)
        mask = np.zeros(self.num_actions, np.int8)
        if not state.is_terminal() and state.current_player() == player:
            mask[state.legal_actions()] = 1
        return self._planes(tensor, player), mask


def spiel_env(short_name: str, config: dict[str, Any], view: View, name: str) -> Any:
    """A guarded `BoardEnv` over a `SpielEnv` of OpenSpiel's `short_name` with `config`."""
    return guarded(BoardEnv(SpielEnv(short_name, config), view, name))
