"""Games by name, from the packages that provide them.

boardq's own code never imports a game: a package that provides games names an
object under the `boardq.games` entry-point group of its metadata (this project's
games, the folder `games/` imported as `boardq_games`, do so in pyproject.toml:
`games = "boardq_games:CATALOG"`), and this module asks each such catalog in turn.
The object needs two methods:

- `names() -> list[str]`: the games it offers by a plain name;
- `find(name) -> Game | None`: the game called `name`, or None if it is not one of
  its own (it may also build games from a pattern of names, as `openspiel:NAME`);

and it may list those patterns in a `patterns` attribute, for error messages.

Commands and the public loaders (`Agent.load`) resolve a name here and hand the
`Game` down; the training and evaluation code receive it.
"""

from __future__ import annotations

import functools
from importlib.metadata import entry_points
from typing import Protocol

from boardq.errors import UnknownGameError
from boardq.game import Game

__all__ = ["ENTRY_POINT_GROUP", "Catalog", "catalogs", "find_game", "game_names", "get_game"]

ENTRY_POINT_GROUP = "boardq.games"


class Catalog(Protocol):
    """What a package that provides games offers under `boardq.games`."""

    def names(self) -> list[str]:
        """The games it offers by a plain name."""
        ...

    def find(self, name: str) -> Game | None:
        """The game called `name`, or None if it is not this catalog's."""
        ...


@functools.cache
def catalogs() -> tuple[Catalog, ...]:
    """Every installed catalog, by entry-point name.

    Raises:
      UnknownGameError: no package provides games (boardq is not installed, only
        put on the path: `pip install -e .` registers this project's games).
    """
    found = sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda ep: ep.name)
    if not found:
        raise UnknownGameError(
            f"no games are installed (no {ENTRY_POINT_GROUP!r} entry points); "
            "install the project: pip install -e ."
        )
    return tuple(ep.load() for ep in found)


def game_names() -> list[str]:
    """The games with a plain name, sorted."""
    return sorted({name for catalog in catalogs() for name in catalog.names()})


def find_game(name: str) -> Game | None:
    """The game called `name`, or None if no catalog has it.

    Raises:
      boardq.game.GameFitError: a game built from its name that boardq cannot train.
    """
    for catalog in catalogs():
        game = catalog.find(name)
        if game is not None:
            return game
    return None


def get_game(name: str) -> Game:
    """The game called `name`.

    Raises:
      UnknownGameError: no such game (the message lists the known ones).
      boardq.game.GameFitError: a game built from its name that boardq cannot train.
    """
    game = find_game(name)
    if game is None:
        patterns = [p for catalog in catalogs() for p in getattr(catalog, "patterns", ())]
        raise UnknownGameError(
            f"unknown game {name!r}; choose one of: {', '.join(game_names())}"
            + (f", or {', '.join(patterns)}" if patterns else "")
        )
    return game
