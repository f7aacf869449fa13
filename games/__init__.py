"""The games boardq can train and play: a registry by name."""

from __future__ import annotations

from boardq.errors import UnknownGameError
from games.base import Game

__all__ = ["GAMES", "Game", "get_game", "game_names"]


def _registry() -> dict[str, Game]:
    from games import connect_four, tictactoe

    return {g.name: g for g in (tictactoe.GAME, connect_four.GAME)}


GAMES: dict[str, Game] = {}


def game_names() -> list[str]:
    if not GAMES:
        GAMES.update(_registry())
    return sorted(GAMES)


def get_game(name: str) -> Game:
    """The game called `name`; raises UnknownGameError listing the known ones."""
    names = game_names()
    key = name.strip().lower().replace("-", "_")
    if key not in GAMES:
        raise UnknownGameError(f"unknown game {name!r}; choose one of: {', '.join(names)}")
    return GAMES[key]
