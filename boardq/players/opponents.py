"""Reference players that read the board through a game's rules (numpy only).

`RandomPlayer` plays any legal move, `WinBlockPlayer` takes an immediate win or blocks
one, `LinePlayer` does that and otherwise lengthens its longest line (Gomoku),
`GreedyPlayer` takes the move after which it holds the most pieces (Othello: the one
that flips the most discs), `PerfectPlayer` solves the game by memoised negamax
(practical for tic-tac-toe). Which of them fit a game is its `Game.players`.
Each has `act(observation) -> int` on the PettingZoo observation dict
`{"observation": planes, "action_mask": mask}` (see `boardq.players.evaluation.Player`).

No TensorFlow here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from boardq.game import Rules

__all__ = [
    "GreedyPlayer",
    "LinePlayer",
    "PerfectPlayer",
    "RandomPlayer",
    "WinBlockPlayer",
    "legal_actions",
    "line_through",
]

Observation = Mapping[str, np.ndarray]


def legal_actions(observation: Observation) -> np.ndarray:
    """The legal actions of a PettingZoo observation; ValueError if there is none."""
    actions = np.flatnonzero(np.asarray(observation["action_mask"]))
    if actions.size == 0:
        raise ValueError("the action mask allows no move")
    return actions


class RandomPlayer:
    """Plays uniformly at random among the legal moves."""

    def __init__(self, seed: int | None = None) -> None:
        """Initialises the player.

        Args:
            seed: seed of the player's own random generator.
        """
        self._rng = np.random.default_rng(seed)

    def act(self, observation: Observation) -> int:
        """Returns a uniformly random legal action."""
        return int(self._rng.choice(legal_actions(observation)))


class WinBlockPlayer:
    """Wins at once if it can, else blocks the opponent's immediate win, else plays randomly."""

    def __init__(self, rules: Rules, seed: int | None = None) -> None:
        """Initialises the player.

        Args:
            rules: the game's rules (`Game.rules`).
            seed: seed of the player's own random generator (ties and random moves).
        """
        self._rules = rules
        self._rng = np.random.default_rng(seed)

    def act(self, observation: Observation) -> int:
        """Returns a winning move, else a blocking move, else one of `other_moves`."""
        board = self._rules.board_from_planes(observation["observation"])
        legal = legal_actions(observation)
        for candidates in (self.winning_moves(board, legal), self.blocking_moves(board, legal)):
            if candidates:
                return int(self._rng.choice(candidates))
        return int(self._rng.choice(self.other_moves(board, legal)))

    def other_moves(self, board: np.ndarray, legal: np.ndarray) -> np.ndarray:
        """The moves to choose among when none wins or blocks: any legal move."""
        return legal

    def winning_moves(self, board: np.ndarray, legal: np.ndarray) -> list[int]:
        """Returns the legal moves that win at once for the player to move (+1)."""
        # After `apply` the board is seen by the next mover, so the mover's pieces are -1.
        return [int(a) for a in legal if self._rules.winner(self._rules.apply(board, a)) == -1]

    def blocking_moves(self, board: np.ndarray, legal: np.ndarray) -> list[int]:
        """Returns the legal moves on which the opponent would win if it were its turn."""
        # Playing the opponent's winning move takes that cell (or column slot) first.
        return self.winning_moves(-board, legal)


def line_through(board: np.ndarray, row: int, col: int) -> int:
    """The longest straight run of +1 pieces through (row, col) (0 if that cell is not +1)."""
    if board[row, col] != 1:
        return 0
    rows, cols = board.shape
    best = 1
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
        run = 1
        for sign in (1, -1):
            r, c = row + sign * dr, col + sign * dc
            while 0 <= r < rows and 0 <= c < cols and board[r, c] == 1:
                run, r, c = run + 1, r + sign * dr, c + sign * dc
        best = max(best, run)
    return best


class LinePlayer(WinBlockPlayer):
    """Completes a line if it can, else blocks the opponent's, else lengthens its longest.

    For games where a move places one piece on an empty cell (Gomoku): after a win and
    a block (`WinBlockPlayer`), it plays where its new piece sits in the longest
    straight run of its own pieces, ties at random.
    """

    def other_moves(self, board: np.ndarray, legal: np.ndarray) -> np.ndarray:
        """The legal moves whose piece sits in the longest run of the mover's pieces."""
        lengths = np.array([self.line_length(board, int(a)) for a in legal])
        return legal[lengths == lengths.max()]

    def line_length(self, board: np.ndarray, action: int) -> int:
        """The longest run of the mover's pieces through the piece `action` places."""
        after = -self._rules.apply(board, action)  # back to the mover's view
        row, col = np.argwhere(after != board)[0]  # the one new piece
        return line_through(after, int(row), int(col))


class GreedyPlayer:
    """Plays the move after which it holds the most pieces, ties at random.

    In Othello that is the move that flips the most discs.
    """

    def __init__(self, rules: Rules, seed: int | None = None) -> None:
        """Initialises the player.

        Args:
            rules: the game's rules (`Game.rules`).
            seed: seed of the player's own random generator (ties).
        """
        self._rules = rules
        self._rng = np.random.default_rng(seed)

    def act(self, observation: Observation) -> int:
        """Returns a legal move that leaves the mover the most pieces."""
        board = self._rules.board_from_planes(observation["observation"])
        legal = legal_actions(observation)
        # After `apply` the board is seen by the next mover: the mover's pieces are -1.
        counts = np.array([np.sum(self._rules.apply(board, int(a)) == -1) for a in legal])
        return int(self._rng.choice(legal[counts == counts.max()]))


class PerfectPlayer:
    """Plays a move of best game-theoretic value, chosen uniformly among the best.

    Values come from a negamax search with a memo table over `key(board)`, filled
    lazily, so repeated games cost only lookups. Exact solving is practical for
    tic-tac-toe (5,478 positions) and for Connect Four endgames with few empty cells,
    not for Connect Four from the opening.
    """

    def __init__(self, rules: Rules, seed: int | None = None) -> None:
        """Initialises the player.

        Args:
            rules: the game's rules (`Game.rules`).
            seed: seed of the player's own random generator (ties between best moves).
        """
        self._rules = rules
        self._rng = np.random.default_rng(seed)
        self._memo: dict[bytes, int] = {}

    def act(self, observation: Observation) -> int:
        """Returns a legal action of best value, chosen uniformly among ties."""
        values = self.values(observation)
        best = np.flatnonzero(values == np.nanmax(values))
        return int(self._rng.choice(best))

    def values(self, observation: Observation) -> np.ndarray:
        """Returns the game value of each action for the player to move.

        Args:
            observation: PettingZoo observation dict of the player to move.

        Returns:
            float array (NUM_ACTIONS,): +1 if the action wins with best play on both
            sides, 0 if it draws, -1 if it loses, nan where the mask forbids it.
        """
        board = self._rules.board_from_planes(observation["observation"])
        result = np.full(self._rules.num_actions, np.nan)
        for action in legal_actions(observation):
            result[action] = self.action_value(board, int(action))
        return result

    def action_value(self, board: np.ndarray, action: int) -> int:
        """Returns the game value of `action` for the player to move (+1) on `board`."""
        return -self.value(self._rules.apply(board, action))

    def value(self, board: np.ndarray) -> int:
        """Returns the game value of `board` for the player to move (+1).

        Args:
            board: a board seen by the player to move.

        Returns:
            +1 (a forced win), 0 (a draw) or -1 (a forced loss). A board that already
            holds a line is worth the sign of the line's owner.
        """
        board_key = self._rules.key(board)
        cached = self._memo.get(board_key)
        if cached is None:
            cached = self._solve(board)
            self._memo[board_key] = cached
        return cached

    def _solve(self, board: np.ndarray) -> int:
        # In play only the previous mover (the -1 pieces) can hold a line here.
        line_owner = self._rules.winner(board)
        if line_owner != 0:
            return line_owner
        if self._rules.is_full(board):
            return 0
        best = -1
        for action in np.flatnonzero(self._rules.legal_mask(board)):
            best = max(best, self.action_value(board, int(action)))
            if best == 1:  # No value beats a win; skipping the rest keeps the memo exact.
                break
        return best
