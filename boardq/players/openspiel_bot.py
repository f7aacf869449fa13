"""OpenSpiel's C++ MCTS bot as an opponent, on an OpenSpiel game that mirrors PettingZoo's.

`OpenSpielMirror` plays every PettingZoo move on an OpenSpiel state as well (through the
game's action table, `Game.openspiel`), and so doubles as a second referee: PettingZoo
and OpenSpiel must agree on the legal moves, on when a game ends and on who won, or
`RuleMismatchError` names the moves that led there. `MCTSPlayer` searches that state
with `pyspiel.MCTSBot` (random rollouts, UCT).

One difference is known and let through: in Go, OpenSpiel ends a game that repeats an
earlier position (positional superko) as a draw, while PettingZoo's simple-ko rules
play on (`OpenSpielGame.repetition_draw`). The mirror then leaves that game (`left`):
it checks nothing more in it, and an MCTS player plays random legal moves to its end.

OpenSpiel (`open-spiel`) is a dependency; where it cannot be imported,
`OpenSpielMissingError` says so in one line. No TensorFlow here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from boardq.game import OpenSpielMissingError, load_pyspiel

if TYPE_CHECKING:
    from boardq.game import Game

__all__ = [
    "MCTSPlayer",
    "OpenSpielMirror",
    "OpenSpielMissingError",
    "RuleMismatchError",
    "load_pyspiel",
    "rule_checks",
]

UCT_C = 2.0
"""The exploration constant of UCT (OpenSpiel's examples use 2)."""
MAX_MEMORY_MB = 1000
"""The bot's tree is cut back when it grows past this."""


class RuleMismatchError(RuntimeError):
    """PettingZoo and OpenSpiel disagree about a position (a bug, not a user error)."""


def _describe(result: int | None) -> str:
    return {None: "the game goes on", 1: "the first player won", -1: "the second player won"}.get(
        result, "a draw"
    )


class OpenSpielMirror:
    """An OpenSpiel state that follows a PettingZoo game move for move, and checks it.

    Implements `boardq.players.evaluation.MoveObserver`.
    """

    def __init__(self, game: Game) -> None:
        """Loads the OpenSpiel game of `game`.

        Raises:
            OpenSpielMissingError: OpenSpiel is not installed or has no such game.
        """
        if game.openspiel is None:
            raise OpenSpielMissingError(f"{game.title} has no OpenSpiel counterpart")
        pyspiel = load_pyspiel()
        self.game = game
        self.spiel_game = pyspiel.load_game(game.openspiel.name)
        self._to_spiel = np.asarray(game.openspiel.actions)
        self._from_spiel = {int(s): a for a, s in enumerate(self._to_spiel)}
        self.moves: list[int] = []
        self.state = self.spiel_game.new_initial_state()
        self.left = False
        self.games_left = 0

    def new_game(self) -> None:
        """Starts from the initial position."""
        self.moves = []
        self.state = self.spiel_game.new_initial_state()
        self.left = False

    def to_pettingzoo(self, spiel_action: int) -> int:
        """The PettingZoo action of an OpenSpiel action."""
        return self._from_spiel[int(spiel_action)]

    def legal_mask(self) -> np.ndarray:
        """OpenSpiel's legal moves as a bool mask by PettingZoo action (none once over)."""
        mask = np.zeros(self.game.num_actions, bool)
        if not self.state.is_terminal():
            mask[[self.to_pettingzoo(s) for s in self.state.legal_actions()]] = True
        return mask

    def result(self) -> int | None:
        """OpenSpiel's result: +1 first player won, -1 second, 0 draw; None while playing."""
        if not self.state.is_terminal():
            return None
        return int(np.sign(self.state.returns()[0]))

    def check_legal(self, action_mask: Sequence[int] | np.ndarray) -> None:
        """Raises RuleMismatchError unless PettingZoo's mask equals OpenSpiel's legal moves."""
        if self.left:
            return
        theirs = np.asarray(action_mask, bool)
        ours = self.legal_mask()
        if not np.array_equal(theirs, ours):
            self._mismatch(
                f"PettingZoo allows {np.flatnonzero(theirs).tolist()}, "
                f"OpenSpiel {np.flatnonzero(ours).tolist()}"
            )

    def moved(self, action: int, result: int | None) -> None:
        """Plays PettingZoo's `action` here too and checks PettingZoo's `result`.

        See `boardq.players.evaluation.MoveObserver`.
        """
        self.moves.append(int(action))
        if self.left:
            return
        if self.state.is_terminal():
            self._mismatch("PettingZoo played on after OpenSpiel's end of the game")
        spiel_action = int(self._to_spiel[action])
        if spiel_action not in self.state.legal_actions():
            # PettingZoo ends the game on an illegal move, the mover losing.
            loser = 1 if len(self.moves) % 2 == 1 else -1
            if result != -loser:
                self._mismatch(f"the move is illegal in OpenSpiel, PettingZoo: {_describe(result)}")
            return
        self.state.apply_action(spiel_action)
        theirs = self.result()
        if theirs == 0 and result is None and self.game.openspiel.repetition_draw:
            self.left = True  # a repeated position: OpenSpiel's draw, PettingZoo plays on
            self.games_left += 1
        elif theirs != result:
            self._mismatch(f"PettingZoo: {_describe(result)}; OpenSpiel: {_describe(theirs)}")

    def _mismatch(self, what: str) -> None:
        raise RuleMismatchError(
            f"{self.game.title}: PettingZoo and OpenSpiel disagree after the PettingZoo moves "
            f"{self.moves}: {what}"
        )


class MCTSPlayer:
    """OpenSpiel's C++ `MCTSBot`: UCT (c = 2) with one random rollout per new leaf.

    It follows the game through `MoveObserver`, so it plays only in `play_game` (or
    wherever `new_game` and `moved` are called for it). With `solve`, the bot backs up
    proven wins and losses (MCTS-Solver, as in OpenSpiel's examples).
    """

    def __init__(self, game: Game, simulations: int, seed: int = 0, solve: bool = True) -> None:
        """Initialises the bot.

        Args:
            game: the game; it needs `game.openspiel`.
            simulations: simulations per move (at least 1).
            seed: seed of the bot and of its rollouts.
            solve: back up proven values.

        Raises:
            OpenSpielMissingError: OpenSpiel is not installed or has no such game.
        """
        if simulations < 1:
            raise ValueError(f"simulations must be positive, got {simulations}")
        self.mirror = OpenSpielMirror(game)
        self.simulations = simulations
        self._rng = np.random.default_rng(seed)
        pyspiel = load_pyspiel()
        # The bot keeps a reference to the evaluator, and so must this player.
        self._evaluator = pyspiel.RandomRolloutEvaluator(1, seed)
        self._bot = pyspiel.MCTSBot(
            self.mirror.spiel_game,
            self._evaluator,
            UCT_C,
            simulations,
            MAX_MEMORY_MB,
            solve,
            seed,
            False,  # verbose
        )

    def new_game(self) -> None:
        """Starts from the initial position."""
        self.mirror.new_game()
        self._bot.restart()

    def moved(self, action: int, result: int | None) -> None:
        """Follows a move (and checks PettingZoo's view of it)."""
        self.mirror.moved(action, result)

    def act(self, observation: Mapping[str, np.ndarray]) -> int:
        """The bot's move in the mirrored position.

        Raises:
            RuleMismatchError: the observation's legal moves are not OpenSpiel's.
        """
        if self.mirror.left:  # OpenSpiel's game is over (see the module's note)
            return int(self._rng.choice(np.flatnonzero(observation["action_mask"])))
        self.mirror.check_legal(observation["action_mask"])
        return self.mirror.to_pettingzoo(self._bot.step(self.mirror.state))


def rule_checks(game: Game) -> list[OpenSpielMirror]:
    """A referee for `play_game`'s observers: [an OpenSpielMirror], or [] without OpenSpiel."""
    try:
        return [OpenSpielMirror(game)]
    except OpenSpielMissingError:
        return []
