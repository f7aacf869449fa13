"""The games boardq can train and play, by name.

A game is one folder, `games/<name>/`, whose `__init__.py` defines `GAME`; adding one
is that folder plus its line in `GAMES` below (see docs/architecture.md). Any other
fitting OpenSpiel game or PettingZoo environment is built on the fly from its name,
`openspiel:NAME[(params)]` or `pettingzoo:ENV_ID[(key=value,...)]` (`games.generic`).
"""

from __future__ import annotations

from boardq.errors import UnknownGameError
from games import connect_four, go, gomoku, hex, othello, tictactoe
from games.game import Game, Rules
from games.generic.spec import is_generic

__all__ = ["GAMES", "Game", "Rules", "find_game", "game_names", "get_game"]

GAMES: dict[str, Game] = {
    game.name: game
    for game in (
        tictactoe.GAME,
        connect_four.GAME,
        othello.GAME,
        gomoku.GAME,
        hex.GAME,
        go.GAME,
    )
}


def game_names() -> list[str]:
    """The names of every game with a folder, sorted."""
    return sorted(GAMES)


def get_game(name: str) -> Game:
    """The game called `name`: a folder's, or one built from `openspiel:`/`pettingzoo:`.

    Raises:
        UnknownGameError: no such game (the message lists the known ones).
        games.game.GameFitError: a generic game that boardq cannot train.
    """
    if is_generic(name):
        from games.generic import generic_game

        return generic_game(name.strip())
    key = name.strip().lower().replace("-", "_")
    if key not in GAMES:
        raise UnknownGameError(
            f"unknown game {name!r}; choose one of: {', '.join(game_names())}, "
            "or openspiel:NAME, pettingzoo:ENV_ID"
        )
    return GAMES[key]


def find_game(name: str) -> Game | None:
    """The game called `name`, or None if there is none (a generic one is built)."""
    try:
        return get_game(name)
    except UnknownGameError:
        return None
