"""The vectorized games play exactly like their environments: PettingZoo's tic-tac-toe and
Connect Four, OpenSpiel's Gomoku through Shimmy."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
import pettingzoo
import pytest

from boardq.gamebatch import Outcome
from boardq.vector_check import compare_with_envs, random_legal_actions, random_play_rate
from boardq_games.connect_four.vector import ConnectFourVector
from boardq_games.gomoku import GAME as GOMOKU_GAME
from boardq_games.gomoku.vector import GomokuVector
from boardq_games.tictactoe.vector import TicTacToeVector

__all__: list[str] = []


class Case(NamedTuple):
    """A vectorized game, its environment and how long the random check plays."""

    batch: type
    name: str  # PettingZoo's id, or the game's name
    make_env: Callable[[], Any]
    games: int  # games side by side in the random check
    moves: int  # moves per game there
    finished: int  # finished games the random check plays at least
    draws: bool  # random play draws often enough to show in the random check


def pettingzoo_env(env_id: str) -> Callable[[], Any]:
    return functools.partial(pettingzoo.make, "aec", env_id)


TICTACTOE = Case(
    TicTacToeVector, "classic/tictactoe-v3", pettingzoo_env("classic/tictactoe-v3"),
    64, 300, 2000, True,
)  # fmt: skip
CONNECT_FOUR = Case(
    ConnectFourVector, "classic/connect_four-v3", pettingzoo_env("classic/connect_four-v3"),
    64, 800, 2000, True,
)  # fmt: skip
# Shimmy steps OpenSpiel's Gomoku at a few thousand moves a second, so fewer games;
# a random 9x9 game rarely fills the board (see the known full-board draw instead).
GOMOKU = Case(GomokuVector, "gomoku", GOMOKU_GAME.make_env, 32, 500, 250, False)
CASES = pytest.mark.parametrize(
    "case", [TICTACTOE, CONNECT_FOUR, GOMOKU], ids=["tictactoe", "c4", "gomoku"]
)


def env_play(
    make_env: Callable[[], Any], moves: list[int]
) -> tuple[list[float], list[bool], list[float]]:
    """The environment's mover rewards and ends per move, and both players' final rewards."""
    env = make_env()
    env.reset(seed=0)
    rewards, ends = [], []
    for action in moves:
        mover = env.agent_selection
        env.step(action)
        rewards.append(float(env.rewards[mover]))
        ends.append(bool(env.terminations[mover]))
    return rewards, ends, [float(env.rewards[agent]) for agent in env.possible_agents]


def batch_play(batch, moves: list[int]) -> list[Outcome]:
    """The outcomes of playing `moves` in game 0 of `batch` (every game the same)."""
    return [batch.step(np.full(batch.size, action)) for action in moves]


def assert_empty_board(batch) -> None:
    """Every game shows the first position: no pieces and every move legal."""
    planes, legal = batch.observe()
    assert not planes.any()
    assert legal.all()


@CASES
def test_random_games_match_pettingzoo(case):
    batch = case.batch(case.games)
    seen = compare_with_envs(batch, case.make_env, case.moves, np.random.default_rng(7))
    assert seen.differences == []
    assert seen.moves == case.moves
    assert seen.games >= case.finished
    assert min(seen.first_wins, seen.second_wins) > 0
    assert seen.draws > 0 or not case.draws


class Corrupted:
    """A batch that reports one thing wrong, to show the comparison notices."""

    def __init__(self, batch, flaw: str):
        self.batch, self.flaw = batch, flaw
        self.size, self.obs_shape = batch.size, batch.obs_shape
        self.num_actions = batch.num_actions

    def observe(self):
        planes, legal = self.batch.observe()
        if self.flaw == "planes":
            return planes[..., ::-1], legal
        return planes, legal

    def step(self, actions):
        outcome = self.batch.step(actions)
        reward, done, first = outcome.reward, outcome.done, outcome.first_mover
        if self.flaw == "first_mover":
            first = ~first
        elif self.flaw == "reward":
            reward = np.zeros_like(reward)
        elif self.flaw == "dtype":
            done = done.astype(np.int8)
        return Outcome(reward, done, first)


@CASES
@pytest.mark.parametrize("flaw", ["planes", "first_mover", "reward", "dtype"])
def test_comparison_notices_a_wrong_batch(case, flaw):
    batch = Corrupted(case.batch(8), flaw)
    seen = compare_with_envs(batch, case.make_env, 60, np.random.default_rng(0), limit=1)
    assert seen.moves < 60  # stopped at the first move that showed the flaw
    assert flaw.replace("dtype", "done") in seen.differences[0]


def gomoku_draw() -> list[int]:
    """81 moves that fill the board with no line longer than two of either colour.

    Black takes the points whose (column + 2 * row) % 4 is 0 or 3 (41 of them): two
    alike at most along a row, the diagonals and the anti-diagonals, and columns alternate.
    """
    rows, cols = np.divmod(np.arange(81), 9)
    black = np.isin((cols + 2 * rows) % 4, (0, 3))
    first, second = np.flatnonzero(black).tolist(), np.flatnonzero(~black).tolist()
    assert (len(first), len(second)) == (41, 40)
    moves = [point for pair in zip(first, second, strict=False) for point in pair]
    return [*moves, first[-1]]


GOMOKU_DRAW = gomoku_draw()


# Known games: (moves, the last move's reward for its mover, who made it, the batch class)
KNOWN = {
    # PettingZoo's tic-tac-toe cells run down the columns: 0 3 6 / 1 4 7 / 2 5 8.
    "ttt top row": ([0, 1, 3, 4, 6], 1.0, True, TICTACTOE),
    "ttt second player diagonal": ([1, 0, 2, 4, 5, 8], 1.0, False, TICTACTOE),
    "ttt win on the last cell": ([0, 3, 6, 1, 4, 7, 5, 2, 8], 1.0, True, TICTACTOE),
    "ttt draw": ([0, 6, 3, 1, 7, 4, 2, 5, 8], 0.0, True, TICTACTOE),
    "c4 column": ([0, 1, 0, 1, 0, 1, 0], 1.0, True, CONNECT_FOUR),
    "c4 second player row": ([0, 1, 0, 2, 0, 3, 6, 4], 1.0, False, CONNECT_FOUR),
    "c4 rising diagonal": ([0, 1, 1, 2, 2, 3, 2, 3, 3, 5, 3], 1.0, True, CONNECT_FOUR),
    "c4 falling diagonal": ([6, 5, 5, 4, 4, 3, 4, 3, 3, 1, 3], 1.0, True, CONNECT_FOUR),
    # Columns coloured (bottom up) XOXOXO, XOXOXO, OXOXOX, OXOXOX, XOXOXO, XOXOXO,
    # OXOXOX, filled row by row: no row, column or diagonal holds more than two alike.
    "c4 full board draw": ([0, 2, 1, 3, 4, 6, 5] * 6, 0.0, False, CONNECT_FOUR),
    # Gomoku point 9 * row + column, row 0 at the top.
    "gomoku row": ([0, 9, 1, 10, 2, 11, 3, 12, 4], 1.0, True, GOMOKU),
    "gomoku second player column": ([80, 4, 79, 13, 78, 22, 60, 31, 61, 40], 1.0, False, GOMOKU),
    "gomoku diagonal to the corner": ([40, 0, 50, 1, 60, 2, 70, 3, 80], 1.0, True, GOMOKU),
    "gomoku anti-diagonal off the edge": ([8, 0, 16, 1, 24, 2, 32, 3, 40], 1.0, True, GOMOKU),
    "gomoku overline of six": ([36, 0, 37, 1, 38, 2, 40, 3, 41, 5, 39], 1.0, True, GOMOKU),
    "gomoku full board draw": (GOMOKU_DRAW, 0.0, True, GOMOKU),
}


@pytest.mark.parametrize("name", list(KNOWN))
def test_known_games(name):
    moves, last_reward, last_first, case = KNOWN[name]
    rewards, ends, final = env_play(case.make_env, moves)  # PettingZoo agrees with the answer
    assert rewards == [0.0] * (len(moves) - 1) + [last_reward]
    assert ends == [False] * (len(moves) - 1) + [True]
    assert final == ([last_reward, -last_reward] if last_first else [-last_reward, last_reward])

    batch = case.batch(3)
    outcomes = batch_play(batch, moves)
    for ply, outcome in enumerate(outcomes):
        last = ply == len(moves) - 1
        assert outcome.reward.tolist() == [last_reward if last else 0.0] * 3
        assert outcome.done.tolist() == [last] * 3
        assert outcome.first_mover.tolist() == [ply % 2 == 0] * 3
    assert_empty_board(batch)


def test_tictactoe_planes_follow_pettingzoo_cells():
    batch = TicTacToeVector(1)
    batch.step(np.array([6]))  # the first player takes cell 6: display row 0, column 2
    planes, legal = batch.observe()
    assert planes[0, :, :, 1].tolist() == [[0, 0, 0], [0, 0, 0], [1, 0, 0]]
    assert not planes[0, :, :, 0].any()
    assert np.flatnonzero(~legal[0]).tolist() == [6]


def test_connect_four_planes_put_row_zero_on_top():
    batch = ConnectFourVector(1)
    batch_play(batch, [0, 1, 0])
    planes, _ = batch.observe()  # the second player to move: its one piece is channel 0
    assert np.argwhere(planes[0, :, :, 0]).tolist() == [[5, 1]]
    assert np.argwhere(planes[0, :, :, 1]).tolist() == [[4, 0], [5, 0]]


def test_full_column_becomes_illegal():
    batch = ConnectFourVector(2)
    batch_play(batch, [3] * 6)
    planes, legal = batch.observe()
    assert legal.tolist() == [[True, True, True, False, True, True, True]] * 2
    before = planes.copy()
    with pytest.raises(ValueError, match="full column"):
        batch.step(np.array([2, 3]))
    assert np.array_equal(batch.observe()[0], before)
    assert batch.observe()[1].tolist() == [[True, True, True, False, True, True, True]] * 2
    assert batch.step(np.array([2, 4])).done.tolist() == [False, False]


def test_tictactoe_taken_cell_raises_before_any_change():
    batch = TicTacToeVector(2)
    batch.step(np.array([4, 4]))
    before = [array.copy() for array in batch.observe()]
    with pytest.raises(IndexError):
        batch.step(np.array([0, 4]))
    assert all(np.array_equal(a, b) for a, b in zip(batch.observe(), before, strict=True))


# Two games side by side: the first ends with its last move, the second goes on.
SIDE_BY_SIDE = {
    TICTACTOE.name: ([0, 1, 3, 4, 6], [4, 0, 8, 2, 1]),
    CONNECT_FOUR.name: ([0, 1, 0, 1, 0, 1, 0], [2, 3, 4, 5, 2, 3, 4]),
    GOMOKU.name: ([0, 9, 1, 10, 2, 11, 3, 12, 4], [40, 41, 42, 43, 44, 45, 46, 47, 48]),
}


@CASES
def test_games_end_independently_and_restart(case):
    ending, going_on = SIDE_BY_SIDE[case.name]
    batch = case.batch(2)
    outcomes = [batch.step(np.array(pair)) for pair in zip(ending, going_on, strict=True)]
    ends = [outcome.done.tolist() for outcome in outcomes]
    assert ends[:-1] == [[False, False]] * (len(ending) - 1)
    assert ends[-1] == [True, False]
    planes, legal = batch.observe()
    assert not planes[0].any() and legal[0].all()
    assert planes[1].sum() == len(going_on)
    assert outcomes[-1].reward.tolist() == [1.0, 0.0]


@CASES
def test_reset_empties_every_game(case):
    batch = case.batch(4)
    batch_play(batch, [1, 2, 3])
    assert batch.observe()[0].any()
    batch.reset()
    assert_empty_board(batch)


@CASES
def test_observe_returns_the_batch_arrays(case):
    batch = case.batch(5)
    planes, legal = batch.observe()
    assert (planes.dtype, planes.shape) == (np.int8, (5, *case.batch.obs_shape))
    assert (legal.dtype, legal.shape) == (np.bool_, (5, case.batch.num_actions))
    assert planes.flags.c_contiguous and legal.flags.c_contiguous
    batch.step(np.zeros(5, np.int64))
    assert batch.observe()[0] is planes and batch.observe()[1] is legal


@CASES
def test_at_least_one_game(case):
    with pytest.raises(ValueError):
        case.batch(0)


class LegalityChecked:
    """Steps a batch after checking every action against its legal moves."""

    def __init__(self, batch):
        self.batch = batch
        self.size, self.obs_shape = batch.size, batch.obs_shape
        self.num_actions = batch.num_actions
        self.played = np.zeros(batch.num_actions, np.int64)

    def observe(self):
        return self.batch.observe()

    def step(self, actions):
        _, legal = self.batch.observe()
        assert legal[np.arange(self.size), actions].all(), "an illegal move"
        self.played += np.bincount(actions, minlength=self.num_actions)
        return self.batch.step(actions)


@CASES
def test_random_play_rate_plays_legal_moves(case):
    batch = LegalityChecked(case.batch(32))
    rate = random_play_rate(batch, 0.2, np.random.default_rng(3))
    assert rate > 0
    assert batch.played.sum() > 0 and (batch.played > 0).all()


def test_random_legal_actions_are_uniform_over_legal_moves():
    mask = np.zeros((20_000, 5), bool)
    mask[:, [0, 2, 3]] = True
    counts = np.bincount(random_legal_actions(mask, np.random.default_rng(5)), minlength=5)
    assert counts[[1, 4]].tolist() == [0, 0]
    assert np.allclose(counts[[0, 2, 3]] / mask.shape[0], 1 / 3, atol=0.02)


def test_gomoku_taken_point_raises_before_any_change():
    batch = GomokuVector(2)
    batch.step(np.array([40, 40]))
    before = [array.copy() for array in batch.observe()]
    with pytest.raises(ValueError, match="taken point played in games \\[1\\]"):
        batch.step(np.array([0, 40]))
    with pytest.raises(ValueError, match="points 0..80"):
        batch.step(np.array([0, 81]))
    assert all(np.array_equal(a, b) for a, b in zip(batch.observe(), before, strict=True))
    assert batch.step(np.array([0, 0])).done.tolist() == [False, False]
