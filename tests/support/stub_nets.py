"""Stub networks for the search tests: numpy functions with the network's interface
(planes [B, ...] -> Q [B, A]), so every value a search gets is known; positions; and a
fake clock.
"""

from __future__ import annotations

import numpy as np


def first_position(rules) -> np.ndarray:
    """The game's first position: the empty board, or the rules' own start."""
    if hasattr(rules, "start"):
        return rules.start()
    return np.zeros((rules.rows, rules.cols), np.int8)


# Tic-tac-toe, X to move: X wins by a fork, from middle-left or bottom-left.
TTT_FORK = ["XO.", ".X.", "..O"]


def random_position(rules, rng, max_moves: int) -> np.ndarray:
    """A position reached by random moves where the game goes on."""
    board = first_position(rules)
    for _ in range(rng.integers(0, max_moves + 1)):
        after = rules.apply(board, int(rng.choice(np.flatnonzero(rules.legal_mask(board)))))
        if rules.winner(after) or rules.is_full(after):
            break
        board = after
    return board


def observation(rules, board: np.ndarray) -> dict[str, np.ndarray]:
    """The PettingZoo observation of the player to move in `board`."""
    return {
        "observation": rules.planes_from_board(board),
        "action_mask": rules.legal_mask(board).astype(np.int8),
    }


class Preference:
    """A network that values the actions the same in every position: order[0] best.

    The values go evenly from `spread` down to `-spread`; `batch_sizes` keeps the size of
    every batch it was given.
    """

    def __init__(self, num_actions: int, order: list[int], spread: float = 0.8) -> None:
        self.q = np.zeros(num_actions)
        self.q[order] = np.linspace(spread, -spread, len(order))
        self.batch_sizes: list[int] = []

    def __call__(self, planes: np.ndarray) -> np.ndarray:
        self.batch_sizes.append(len(planes))
        return np.tile(self.q, (len(planes), 1))


class Linear:
    """A network whose values depend on the position: a fixed random map into (-0.9, 0.9)."""

    def __init__(self, rules, seed: int = 0) -> None:
        size = int(np.prod(rules.planes_from_board(first_position(rules)).shape))
        rng = np.random.default_rng(seed)
        self.w = rng.normal(0.0, 0.15, (size, rules.num_actions))
        self.b = rng.normal(0.0, 0.1, rules.num_actions)

    def __call__(self, planes: np.ndarray) -> np.ndarray:
        return 0.9 * np.tanh(planes.reshape(len(planes), -1).astype(np.float64) @ self.w + self.b)


class FakeClock:
    """A clock that moves `step` seconds each time it is read: a search's time is its work."""

    def __init__(self, step: float) -> None:
        self.now, self.step, self.reads = 0.0, step, 0

    def __call__(self) -> float:
        self.now += self.step
        self.reads += 1
        return self.now
