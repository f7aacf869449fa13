"""The games boardq can train and play, by name.

A game is one folder, `games/<name>/`, whose `__init__.py` defines `GAME`; adding one
is that folder plus its line in `GAMES` below (see docs/architecture.md).
"""

from __future__ import annotations

from boardq.errors import UnknownGameError
from games import connect_four, go, gomoku, hex, othello, tictactoe
from games.game import Game, Rules

__all__ = ["GAMES", "Game", "Rules", "game_names", "get_game"]

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
    """The names of every game, sorted."""
    return sorted(GAMES)


def get_game(name: str) -> Game:
    """The game called `name`; raises UnknownGameError listing the known ones."""
    key = name.strip().lower().replace("-", "_")
    if key not in GAMES:
        raise UnknownGameError(f"unknown game {name!r}; choose one of: {', '.join(game_names())}")
    return GAMES[key]
