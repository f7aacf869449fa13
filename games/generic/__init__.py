"""Games built on the fly: `openspiel:NAME[(params)]` and `pettingzoo:ENV_ID[(params)]`.

`generic_game(name)` parses the name (`boardq_games.generic.spec`), builds the `Game` from the
environment (`boardq_games.generic.openspiel`, `boardq_games.generic.pettingzoo`), and plays a few
hundred random moves through it before handing it out, so a game that does not fit
in ways its description cannot tell (a player moving twice in a row, observations
that are not whole numbers) is refused at once, in one line, rather than in the middle
of a run. The game's name is its canonical spec, which agent files and run
directories store, so `generic_game(game.name)` rebuilds it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np

from boardq.game import Game, GameFitError
from boardq_games.generic.spec import GameSpec, is_generic, parse_name, with_args

__all__ = ["BUILDERS", "check_by_playing", "generic_game", "is_generic", "with_args"]

PROBE_MOVES = 400
"""Random moves played through a new generic game before it is handed out."""


def _openspiel(spec: GameSpec) -> Game:
    from boardq_games.generic.openspiel import spiel_game

    return spiel_game(spec)


def _pettingzoo(spec: GameSpec) -> Game:
    from boardq_games.generic.pettingzoo import pettingzoo_game

    return pettingzoo_game(spec)


BUILDERS: dict[str, Callable[[GameSpec], Game]] = {
    "openspiel": _openspiel,
    "pettingzoo": _pettingzoo,
}
"""The builder of each source (the text before the colon)."""


def check_by_playing(game: Game, moves: int = PROBE_MOVES, seed: int = 0) -> None:
    """Plays `moves` random moves through `game`'s environment, in as many games as it takes.

    Raises:
        GameFitError: the players do not alternate, the observations are not whole
            numbers or not of the game's shape, or a player to move has no legal move.
    """
    rng = np.random.default_rng(seed)
    env = game.make_env()
    played = 0
    try:
        while played < moves:
            env.reset(seed=seed + played)
            for agent in env.agent_iter():
                observation, _, terminated, truncated, _ = env.last()
                if terminated or truncated:
                    env.step(None)
                    continue
                if observation["observation"].shape != game.obs_shape:
                    raise GameFitError(f"{game.name}'s observations change shape")
                legal = np.flatnonzero(observation["action_mask"])
                if legal.size == 0:
                    raise GameFitError(f"{game.name}: {agent} is to move but has no legal move")
                env.step(int(rng.choice(legal)))
                played += 1
                if played >= moves:
                    break
    finally:
        env.close()


@functools.cache
def generic_game(name: str) -> Game:
    """The game of a generic name (built once per name and process).

    Raises:
        UnknownGameError: no such game or environment.
        GameFitError: a bad name or parameters, or a game boardq cannot train.
    """
    spec = parse_name(name)
    game = BUILDERS[spec.source](spec)
    check_by_playing(game)
    return game
