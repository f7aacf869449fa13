"""A game's pure rules against OpenSpiel's game of the same rules, on random games (for the tests).

`spiel_differences` plays random games in the rules (`Game.rules`) and, move for move,
on an OpenSpiel state of `Game.openspiel` (through its action table), and lists every
difference: the legal moves before each move, the board after it where both can draw
one (captures), whether the game is over, and who won. OpenSpiel's C++ steps fast, so
this check plays far more games than one through a PettingZoo environment can.

One difference is expected and let through where `OpenSpielGame.repetition_draw` says
so (Go): OpenSpiel ends a game that repeats an earlier whole-board position as a
draw, where the rules (PettingZoo's simple ko) play on. Such a game is left there and
counted in `left`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from boardq.game import Game, load_pyspiel

__all__ = ["SpielCheck", "spiel_differences", "start_position"]


@dataclass
class SpielCheck:
    """What `spiel_differences` saw.

    Attributes:
        games: games played to their end (or left).
        moves: moves played in all of them.
        first_wins, second_wins, draws: games that ended, by result.
        left: games OpenSpiel ended on a repeated position, left there.
        differences: the first differences found (empty: the two agreed throughout).
    """

    games: int = 0
    moves: int = 0
    first_wins: int = 0
    second_wins: int = 0
    draws: int = 0
    left: int = 0
    differences: list[str] = field(default_factory=list)


def start_position(game: Game) -> np.ndarray:
    """The rules' first position, read from a fresh environment of the game."""
    env = game.make_env()
    env.reset(seed=0)
    observation = env.observe(env.agent_selection)
    env.close()
    legal = np.asarray(observation["action_mask"], bool)
    return game.rules.board_from_planes(observation["observation"], legal)


def spiel_differences(
    game: Game,
    count: int,
    seed: int = 0,
    boards: tuple[Callable[[np.ndarray], np.ndarray], Callable[[Any], np.ndarray]] | None = None,
    limit: int = 10,
) -> SpielCheck:
    """Plays `count` random games in `game.rules` and on OpenSpiel's `game.openspiel`.

    Args:
        game: a game with rules and an OpenSpiel counterpart.
        count: games to play.
        seed: seeds the moves.
        boards: (ours, theirs): the board of a rules position and of an OpenSpiel
            state, drawn alike (+1 the first player's stones), compared after every
            move; None: not compared.
        limit: differences to record before stopping early.
    """
    rules, spiel = game.rules, game.openspiel
    spiel_game = load_pyspiel().load_game(spiel.name)
    to_spiel = np.asarray(spiel.actions)
    from_spiel = np.zeros(int(to_spiel.max()) + 1, np.int64)
    from_spiel[to_spiel] = np.arange(len(to_spiel))
    start = start_position(game)
    rng = np.random.default_rng(seed)
    seen = _Record(SpielCheck(), limit)
    for number in range(count):
        if seen.full:
            break
        state, position, moves = spiel_game.new_initial_state(), start, []
        while True:
            where = f"{game.name} game {number} after {moves}"
            ours = rules.legal_mask(position)
            theirs = np.zeros(rules.num_actions, bool)
            theirs[from_spiel[state.legal_actions()]] = True
            if not seen.expect(np.array_equal(ours, theirs), f"{where}: legal moves differ"):
                break
            action = int(rng.choice(np.flatnonzero(ours)))
            moves.append(action)
            position = rules.apply(position, action)
            state.apply_action(int(to_spiel[action]))
            seen.check.moves += 1
            where = f"{game.name} game {number} after {moves}"
            if boards is not None and not seen.expect(
                np.array_equal(boards[0](position), boards[1](state)), f"{where}: boards differ"
            ):
                break
            # The rules' position is seen by the next mover: seat len(moves) % 2.
            sign = 1 if len(moves) % 2 == 0 else -1
            won = sign * rules.winner(position)
            over = won != 0 or rules.is_full(position)
            if state.is_terminal() and not over and spiel.repetition_draw:
                if state.returns()[0] == 0:
                    seen.check.left += 1
                    break
            if not seen.expect(over == state.is_terminal(), f"{where}: the end differs"):
                break
            if over:
                result = int(np.sign(state.returns()[0]))
                if seen.expect(won == result, f"{where}: rules {won}, OpenSpiel {result}"):
                    seen.count(won)
                break
        seen.check.games += 1
    return seen.check


class _Record:
    """The check's record, and where it stops."""

    def __init__(self, check: SpielCheck, limit: int) -> None:
        self.check, self.limit = check, limit

    @property
    def full(self) -> bool:
        return len(self.check.differences) >= self.limit

    def expect(self, holds: bool, what: str) -> bool:
        if not holds:
            self.check.differences.append(what)
        return holds

    def count(self, result: int) -> None:
        if result > 0:
            self.check.first_wins += 1
        elif result < 0:
            self.check.second_wins += 1
        else:
            self.check.draws += 1
