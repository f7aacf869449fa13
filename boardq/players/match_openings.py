"""How evaluation games open: seeded random moves (`Openings`) or handicap stones (`Handicap`).

Games between deterministic players repeat. `Openings` start each game with a few
seeded random moves, played by neither player; `boardq.players.evaluation.evaluate`
gives a game and the game with the seats swapped the same opening. A `Handicap` starts
each game with stones of the evaluated player's colour on given points instead where it
plays first (Go's handicap against a player much stronger), placed one a turn while the
opponent passes. Both give `play_game` the same interface: `plies`, and `player(seed)`,
the mover of those first plies.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from boardq.players.opponents import RandomPlayer

__all__ = ["Handicap", "Openings", "ScriptedOpening", "fixed_handicap"]

Observation = Mapping[str, np.ndarray]


@dataclass(frozen=True)
class Openings:
    """Each game opens with `plies` uniformly random legal moves, played by neither player.

    Attributes:
        plies: the random moves (0: none).
        avoid: an action played only when it is the only legal one (Go's pass: a random
            pass would hand the game's end to chance).
    """

    plies: int = 0
    avoid: int | None = None

    def player(self, seed: int) -> RandomPlayer | _ScriptedMover:
        """The opening's mover for the game of `seed` (the same seed, the same opening)."""
        return _OpeningMover(self.avoid, seed)

    def seated(self, first: bool) -> Openings:
        """The openings of the games where the evaluated player moves first (or second)."""
        return self


@dataclass(frozen=True)
class Handicap:
    """As the first player (Go's black), the evaluated player starts with stones on `points`.

    The stones are placed one a turn, the opponent passing in between (as GTP engines
    are told it, move by move); then the opponent moves. As the second player it plays
    even games: handicap stones are black's, and an engine given the game's first
    moves as white's stones with the komi besides resigns them at once (GNU Go does).

    Attributes:
        points: the actions of the stones.
        pass_action: the pass.
    """

    points: tuple[int, ...]
    pass_action: int

    @property
    def opening(self) -> tuple[int, ...]:
        """Black's first moves: the stones, with the opponent's passes between them."""
        moves: list[int] = []
        for point in self.points:
            moves += [int(point), int(self.pass_action)]
        return tuple(moves[:-1])

    def seated(self, first: bool) -> ScriptedOpening:
        """The opening of the games where the evaluated player moves first (or second)."""
        return ScriptedOpening(self.opening if first else ())


def fixed_handicap(game, stones: int) -> Handicap:
    """The game's fixed handicap of `stones` stones (Go's, as GNU Go places them).

    Raises:
        ValueError: the game has no handicap stones, or none of that number (the
            message says which numbers it has).
    """
    points = game.setup.handicap_points(stones, game.title)
    return Handicap(points, int(game.setup.pass_action))


@dataclass(frozen=True)
class ScriptedOpening:
    """An opening of fixed moves (`Openings`' interface: `plies`, `player`)."""

    moves: tuple[int, ...]

    @property
    def plies(self) -> int:
        return len(self.moves)

    def player(self, seed: int) -> RandomPlayer | _ScriptedMover:
        return _ScriptedMover(self.moves)


class _ScriptedMover:
    def __init__(self, moves: Sequence[int]) -> None:
        self._moves = iter(moves)

    def act(self, observation: Observation) -> int:
        action = next(self._moves)
        if not observation["action_mask"][action]:
            raise ValueError(f"the opening's move {action} is not legal here")
        return action


class _OpeningMover(RandomPlayer):
    def __init__(self, avoid: int | None, seed: int) -> None:
        super().__init__(seed)
        self._avoid = avoid

    def act(self, observation: Observation) -> int:
        mask = np.asarray(observation["action_mask"], bool).copy()
        if self._avoid is not None and mask.sum() > 1:
            mask[self._avoid] = False
        return super().act({"action_mask": mask})
