"""The games boardq can train and play, by name.

A game is one folder, `games/<name>/`, whose `__init__.py` defines `GAME`; adding one
is that folder plus its line in `GAMES` below (see docs/architecture.md). boardq finds
these games through `CATALOG`, which pyproject.toml names under the `boardq.games`
entry points (`boardq.catalog`). Any other
fitting OpenSpiel game or PettingZoo environment is built on the fly from its name,
`openspiel:NAME[(params)]` or `pettingzoo:ENV_ID[(key=value,...)]` (`boardq_games.generic`).
"""

from __future__ import annotations

from boardq.errors import UnknownGameError
from boardq.game import Game, Rules
from boardq_games import connect_four, go, gomoku, hex, othello, tictactoe
from boardq_games.generic.spec import is_generic

__all__ = ["CATALOG", "GAMES", "Game", "Rules", "find_game", "game_names", "get_game"]

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


PATTERNS = ("openspiel:NAME", "pettingzoo:ENV_ID")
"""The names of games built on the fly (`boardq_games.generic`)."""


def game_names() -> list[str]:
    """The names of every game with a folder, sorted."""
    return sorted(GAMES)


def get_game(name: str) -> Game:
    """The game called `name`: a folder's, or one built from `openspiel:`/`pettingzoo:`.

    Raises:
        UnknownGameError: no such game (the message lists the known ones).
        boardq.game.GameFitError: a generic game that boardq cannot train.
    """
    if is_generic(name):
        from boardq_games.generic import generic_game

        return generic_game(name.strip())
    key = name.strip().lower().replace("-", "_")
    if key not in GAMES:
        raise UnknownGameError(
            f"unknown game {name!r}; choose one of: {', '.join(game_names())}, "
            f"or {', '.join(PATTERNS)}"
        )
    return GAMES[key]


def find_game(name: str) -> Game | None:
    """The game called `name`, or None if there is none (a generic one is built)."""
    try:
        return get_game(name)
    except UnknownGameError:
        return None


class _Catalog:
    """This package's games as `boardq.catalog` asks for them."""

    patterns = PATTERNS

    def names(self) -> list[str]:
        return game_names()

    def find(self, name: str) -> Game | None:
        # A name of a game built on the fly is this catalog's: its errors are told
        # (an unknown OpenSpiel game, a PettingZoo environment that does not fit).
        return get_game(name) if is_generic(name) else find_game(name)


CATALOG = _Catalog()
