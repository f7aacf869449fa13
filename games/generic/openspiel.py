"""Any OpenSpiel game that fits boardq, through Shimmy: `openspiel:NAME[(params)]`.

A game fits when it has two players who take turns, hides nothing, has no chance
events, is zero-sum and gives an observation tensor (`FITS`, checked on OpenSpiel's
game type before anything is played). Its planes are the tensor channels-last, cast to
int8 (whole numbers only: boardq refuses a game whose tensor holds fractions rather
than guess a scale), with one more plane holding the observer's seat (1 for the second
player): the tensors of many games do not say whose view they are, and one network
plays both seats.
"""

from __future__ import annotations

import difflib
import functools
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from boardq.errors import UnknownGameError
from boardq.game import Game, GameFitError, OpenSpielGame
from boardq_games.adapter import SpielView, integral_int8, spiel_env
from boardq_games.generic.preset import generic_preset
from boardq_games.generic.spec import GameSpec, format_spec
from boardq_games.generic.text import GenericText, usable_names

__all__ = ["FITS", "SeatPlanes", "load_spiel_game", "spiel_board", "spiel_game"]

FITS: tuple[tuple[str, Callable[[Any], bool]], ...] = (
    ("has {players} players; boardq plays two-player games", lambda g: g.num_players() == 2),
    (
        "has simultaneous moves; boardq needs players who take turns",
        lambda g: g.get_type().dynamics.name == "SEQUENTIAL",
    ),
    (
        "hides information from a player; boardq plays perfect-information games",
        lambda g: g.get_type().information.name == "PERFECT_INFORMATION",
    ),
    (
        "has chance events; boardq plays deterministic games",
        lambda g: g.get_type().chance_mode.name == "DETERMINISTIC",
    ),
    (
        "is not zero-sum; boardq's negamax targets need one side's win to be the other's loss",
        lambda g: g.get_type().utility.name == "ZERO_SUM",
    ),
    (
        "has no observation tensor to make planes of",
        lambda g: g.get_type().provides_observation_tensor,
    ),
    (
        "has an observation tensor of more than three dimensions",
        lambda g: len(g.observation_tensor_shape()) <= 3,
    ),
)
"""What an OpenSpiel game must be, and what the error says when it is not."""

NAMING_MOVES = 2_000
"""Random moves played to learn OpenSpiel's names of the actions."""

# Parameters that give a board's rows and columns, for tensors flattened to (C, cells).
_BOARD_PARAMS = (("rows", "columns"), ("num_rows", "num_cols"), ("size", "size"))
_BOARD_PARAMS += (("board_size", "board_size"),)


def load_spiel_game(text: str) -> Any:
    """OpenSpiel's game for `NAME(params)`.

    Raises:
        UnknownGameError: OpenSpiel has no game of that name.
        GameFitError: a bad parameter.
    """
    from boardq._quiet import quiet_native_logs
    from boardq.game import load_pyspiel

    pyspiel = load_pyspiel()
    short = text.partition("(")[0].strip()
    names = pyspiel.registered_names()
    if short not in names:
        close = difflib.get_close_matches(short, names, n=3)
        hint = f"; did you mean {' or '.join(close)}?" if close else ""
        raise UnknownGameError(f"unknown OpenSpiel game {short!r}{hint}")
    try:
        # OpenSpiel prints its errors (and some warnings) on stderr itself.
        with quiet_native_logs(expected=(pyspiel.SpielError,)):
            return pyspiel.load_game(text)
    except pyspiel.SpielError as e:
        why = str(e).strip().splitlines()[0]
        raise GameFitError(f"bad parameters for openspiel:{text}: {why}") from None


def _board_shape(params: Mapping[str, Any], cells: int) -> tuple[int, int] | None:
    for rows, cols in _BOARD_PARAMS:
        if rows in params and cols in params:
            shape = (int(params[rows]), int(params[cols]))
            if shape[0] * shape[1] == cells:
                return shape
    return None


class SeatPlanes:
    """OpenSpiel's tensor as int8 planes [H, W, C + 1], the last one the observer's seat.

    Args:
        tensor_shape: (C, H, W); (C, cells), reshaped to `board` when given, else to
            one row; or (cells,), one row of one plane.
        board: (H, W) of a flattened board.
        name: how errors name the game.
    """

    def __init__(
        self, tensor_shape: tuple[int, ...], board: tuple[int, int] | None, name: str
    ) -> None:
        self.tensor_shape, self.board, self.name = tensor_shape, board, name

    def channels_last(self, values: np.ndarray) -> np.ndarray:
        if len(self.tensor_shape) == 3:
            return values.transpose(1, 2, 0)
        if len(self.tensor_shape) == 2:
            if self.board is not None:
                return values.reshape(-1, *self.board).transpose(1, 2, 0)
            return values.T[None]
        return values.reshape(1, -1, 1)

    def __call__(self, tensor: np.ndarray, player: int) -> np.ndarray:
        planes = self.channels_last(integral_int8(tensor, self.name))
        seat = np.full((*planes.shape[:2], 1), player, np.int8)
        return np.concatenate([planes, seat], axis=-1)


def _action_names(game: Any, moves: int = NAMING_MOVES, seed: int = 0) -> dict[int, str] | None:
    """OpenSpiel's names of the actions seen legal in random games, if they are fixed.

    Only legal moves are named (some games, chess among them, crash naming others).
    A name is its last word ("B d4" and "W d4" are both "d4"). None if an action had
    two names (names that depend on the position, as chess's do) or the names are not
    distinct, plain text.
    """
    rng = np.random.default_rng(seed)
    names: dict[int, str] = {}
    state, played = game.new_initial_state(), 0
    while played < moves:
        if state.is_terminal():
            state = game.new_initial_state()
        player = state.current_player()
        for action in state.legal_actions():
            words = state.action_to_string(player, action).split()
            if names.setdefault(action, words[-1] if words else "") != (words or [""])[-1]:
                return None
        state.apply_action(int(rng.choice(state.legal_actions())))
        played += 1
    if any(name.isdigit() for name in names.values()):
        return None  # a name that reads as another action's number
    return names if usable_names(list(names.values())) is not None else None


def spiel_board(env: Any) -> str:
    """OpenSpiel's drawing of the position of a Shimmy environment."""
    return str(env.unwrapped.game_state)


def spiel_game(spec: GameSpec) -> Game:
    """The `Game` of `openspiel:NAME(params)`.

    Raises:
        UnknownGameError: OpenSpiel has no such game.
        GameFitError: bad parameters, or a game that does not fit (`FITS`).
    """
    text = spec.base + (f"({','.join(f'{k}={v}' for k, v in spec.params)})" if spec.params else "")
    game = load_spiel_game(text)
    canonical = str(game).removesuffix("()")
    name = format_spec(GameSpec("openspiel", canonical))
    for why, fits in FITS:
        if not fits(game):
            raise GameFitError(f"{name} {why.format(players=game.num_players())}")
    params = game.get_parameters()
    tensor_shape = tuple(game.observation_tensor_shape())
    cells = tensor_shape[-1] if len(tensor_shape) == 2 else 0
    planes = SeatPlanes(tensor_shape, _board_shape(params, cells), name)
    obs_shape = planes(np.zeros(tensor_shape), 0).shape
    num_actions = game.num_distinct_actions()
    view = SpielView(tensor_shape, obs_shape, num_actions, planes)
    short = game.get_type().short_name
    return Game(
        name=name,
        title=game.get_type().long_name + canonical[len(short) :],
        env_id=name,
        obs_shape=tuple(obs_shape),
        num_actions=num_actions,
        preset=generic_preset(name, obs_shape, num_actions),
        rules=None,
        text=GenericText(num_actions, _action_names(game)),
        symmetries=(),
        openspiel=OpenSpielGame(canonical, tuple(range(num_actions))),
        env_maker=functools.partial(spiel_env, short, params, view, name),
        board_of=spiel_board,
        players=(),
    )
