"""How far the web board's agent may search.

How long the agent may think is the person's choice: a time per move (`MOVE_TIMES`,
the tree search, `boardq.search.tree_player`), which the page offers, the tree search's visits
a move (the API's `visits`, `boardq serve --visits`, at most `MAX_VISITS`), or a
fixed depth (the API's `depth`, `boardq serve --search`), at most `max_depth_of(game)`:
the deepest depth whose typical move took under about 2 s on a two-core machine (the
figures: docs/results/performance.md, "The lookahead search: the time a move");
`SearchSpec.words` says a search for people.
The agent a game's sessions share is `boardq.players.advisor.SharedAgent`. No HTTP and
no TensorFlow here.
"""

from __future__ import annotations

from boardq.game import Game

__all__ = [
    "MAX_DEPTH",
    "MAX_DEPTHS",
    "MAX_MOVE_TIME",
    "MAX_VISITS",
    "MOVE_TIMES",
    "max_depth_of",
]

MAX_DEPTH = 6
"""The deepest fixed lookahead of any game (games with rules only; see `MAX_DEPTHS`)."""

MAX_DEPTHS = {"tictactoe": 6, "connect_four": 6, "othello": 3, "gomoku": 3, "hex": 3, "go": 3}
"""Each game's deepest fixed depth: the deepest whose typical move took under about 2 s
on two busy cores with the agent that comes with boardq (measured:
docs/results/performance.md, "The lookahead search: the time a move"). One deeper took
a typical 3.4 s a move in Othello, 2 s in Hex (a tenth of moves over 3.5 s), 56 s in
Gomoku and 20-50 s in Go."""

_OTHER_MAX_DEPTH = 3
"""The deepest fixed depth of a game with rules that `MAX_DEPTHS` does not name."""

MOVE_TIMES = (0.5, 1.0, 2.0, 5.0)
"""The times per move the page offers (seconds; besides thinking not at all)."""

MAX_MOVE_TIME = 10.0
"""The longest time per move a request may ask for (the game's agent is busy that long)."""

MAX_VISITS = 100_000
"""The most visits a move of the tree search a request may ask for (Go: about 40 s)."""


def max_depth_of(game: Game) -> int:
    """The deepest fixed depth the web board lets the agent search in `game` (0: no rules)."""
    if game.rules is None:
        return 0
    return min(MAX_DEPTH, MAX_DEPTHS.get(game.name, _OTHER_MAX_DEPTH))
