"""Hex's pure rules (games/hex/rules.py) against OpenSpiel's hex, through Shimmy and directly:
known games (each player's edges, the rhombus's diagonals), random games on 7x7 and other
sizes, and bad input."""

from __future__ import annotations

import dataclasses
import functools

import numpy as np
import pytest

from boardq.game import OpenSpielGame
from boardq_games import get_game
from boardq_games.env_check import random_games, reward_differences, rules_differences
from boardq_games.hex.env import make_env
from boardq_games.hex.rules import SEAT, HexRules
from boardq_games.spiel_check import spiel_differences

GAME = get_game("hex")
RULES = GAME.rules


def cell(name: str) -> int:
    return GAME.text.parse(name, np.ones(49, bool))


def sized(size: int):
    """boardq's Hex game at another size (its rules, env and OpenSpiel game)."""
    return dataclasses.replace(
        GAME,
        obs_shape=(size, size, 3),
        num_actions=size * size,
        rules=HexRules(size),
        env_maker=functools.partial(make_env, size),
        openspiel=OpenSpielGame(f"hex(board_size={size})", tuple(range(size * size))),
    )


def hex_board_of_state(size: int):
    def board(state) -> np.ndarray:
        tensor = np.asarray(state.observation_tensor(0)).reshape(9, size, size)
        return (tensor[5:9].sum(axis=0) > 0).astype(np.int8) - (tensor[0:4].sum(axis=0) > 0)

    return board


def play(moves: list[str]) -> tuple[np.ndarray, list[float]]:
    """The rules' position after `moves`, and the env's final rewards (checked as it goes)."""
    env = GAME.make_env()
    env.reset(seed=0)
    observation = env.observe(env.agent_selection)
    position = RULES.board_from_planes(observation["observation"], observation["action_mask"])
    for name in moves:
        assert RULES.winner(position) == 0
        observation = env.observe(env.agent_selection)
        np.testing.assert_array_equal(RULES.planes_from_board(position), observation["observation"])
        np.testing.assert_array_equal(RULES.legal_mask(position), observation["action_mask"] == 1)
        position = RULES.apply(position, cell(name))
        env.step(cell(name))
    return position, [env.rewards[agent] for agent in env.possible_agents]


# Known games: moves (the first player's first), and who won (+1 the first player).
KNOWN = {
    # Straight down column d: rows 1-7 top to bottom.
    "first player, top to bottom": ([f"{c}{r}" for r in range(1, 8) for c in "dg"][:-1], 1),
    # Row 4 from a to g, the first player wasting moves along row 1 then row 7.
    "second player, left to right": (
        [
            m
            for pair in zip(
                ["a1", "b1", "c1", "d1", "e1", "f1", "g7"],
                [f"{c}4" for c in "abcdefg"],
                strict=True,
            )
            for m in pair
        ],
        -1,
    ),  # fmt: skip
    # Down the rhombus's other diagonal: (r, c) touches (r + 1, c - 1).
    "first player, down the diagonal": (
        [
            m
            for pair in zip(
                ["g1", "f2", "e3", "d4", "c5", "b6", "a7"],
                ["a1", "b1", "c1", "d1", "e1", "f1", "a2"],
                strict=False,
            )
            for m in pair
        ][:-1],
        1,
    ),  # fmt: skip
}


@pytest.mark.parametrize("name", list(KNOWN))
def test_known_games(name):
    moves, result = KNOWN[name]
    position, rewards = play(moves)
    mover = 1 if len(moves) % 2 == 0 else -1  # the seat to move now: +1 the first
    assert mover * RULES.winner(position) == result
    assert rewards == [result, -result]
    assert not RULES.is_full(position)


def test_cells_along_the_wrong_diagonal_do_not_join():
    # a1, b2, c3... touch only corner to corner on the rhombus: no chain, no winner.
    position = RULES.start()
    for k, name in enumerate(["a1", "b2", "c3", "d4", "e5", "f6", "g7"]):
        position = RULES.apply(position, cell(name))
        position = RULES.apply(position, cell(f"{'gfedcba'[k]}1") if k < 6 else cell("a7"))
    assert position[SEAT] == 0 and RULES.winner(position) == 0
    assert not RULES.joined(position, 1) and not RULES.joined(position, -1)


def test_the_seat_says_which_edges_the_mover_joins():
    # The same stones down column a win for the first player and not for the second.
    position = RULES.start()
    position[[cell(f"a{r}") for r in range(1, 8)]] = 1
    assert RULES.joined(position, 1)
    position[SEAT] = 1
    assert not RULES.joined(position, 1)
    planes = RULES.planes_from_board(position)
    assert planes[..., 2].all()
    np.testing.assert_array_equal(RULES.board_from_planes(planes), position)


@pytest.mark.parametrize("size, count", [(7, 24), (3, 30), (5, 20), (9, 8), (11, 3)])
def test_random_games_match_shimmy(size, count):
    game = GAME if size == 7 else sized(size)
    games = random_games(game, count, seed=size)
    assert rules_differences(game, games) == []
    assert reward_differences(game, games) == []


@pytest.mark.parametrize("size, count", [(7, 400), (2, 50), (5, 300), (11, 100)])
def test_random_games_match_openspiel(size, count):
    game = GAME if size == 7 else sized(size)
    seen = spiel_differences(
        game, count, seed=2, boards=(game.rules.board, hex_board_of_state(size))
    )
    assert seen.differences == [] and seen.games == count
    assert min(seen.first_wins, seen.second_wins) > 0 and seen.draws == 0


@pytest.mark.slow
def test_a_thousand_random_games_match_shimmy():
    games = random_games(GAME, 1000, seed=1000)
    assert rules_differences(GAME, games) == []


@pytest.mark.slow
def test_ten_thousand_random_games_match_openspiel():
    seen = spiel_differences(GAME, 10_000, seed=1000, boards=(RULES.board, hex_board_of_state(7)))
    assert seen.differences == [] and seen.games == 10_000


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: RULES.board_from_planes(np.zeros((7, 7, 2))), "planes of shape"),
        (lambda: RULES.apply(RULES.start(), 49), "outside"),
        (lambda: RULES.apply(RULES.apply(RULES.start(), 3), 3), "taken"),
        (lambda: RULES.legal_mask(np.zeros(26)), "7x7 Hex position"),
        (lambda: HexRules(0), "at least 1"),
    ],
)
def test_bad_input_is_refused(call, message):
    with pytest.raises(ValueError, match=message):
        call()
