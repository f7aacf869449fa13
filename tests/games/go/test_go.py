"""Go (9x9) through PettingZoo's go-v5: planes from MiniGo, the board-size trap, GTP names,
the symmetries and the OpenSpiel mirror (with its move limit lifted)."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.classic.go import coords, go_base
from pettingzoo.test import api_test

from boardq.boardtext import MoveError
from boardq.players.evaluation import RandomPlayer, evaluate
from boardq.players.openspiel_bot import MCTSPlayer, rule_checks
from boardq_games import get_game
from boardq_games.env_check import random_games, reward_differences, symmetry_differences
from boardq_games.go.env import make_go_env

GAME = get_game("go")
PASS = 81
ANY = np.ones(82, bool)


@pytest.fixture(scope="module")
def games():
    return random_games(GAME, 3, seed=11)


def test_pettingzoo_api():
    api_test(GAME.make_env(), num_cycles=200)


def test_planes_are_the_movers_with_colour_and_pass_planes():
    env = GAME.make_env()
    env.reset(seed=0)
    black, white = env.possible_agents
    env.step(GAME.text.parse("D4", ANY))  # row 4 from the bottom: 9 - 4 = 5 from the top
    planes = env.observe(white)["observation"]
    assert planes.shape == (9, 9, 8) and planes.dtype == np.int8
    assert not planes[..., 0].any() and np.argwhere(planes[..., 1]).tolist() == [[5, 3]]
    assert planes[..., 2].all() and not planes[..., 3].any()  # white; black did not pass
    env.step(PASS)
    planes = env.observe(black)["observation"]
    assert np.argwhere(planes[..., 0]).tolist() == [[5, 3]] and not planes[..., 1].any()
    assert not planes[..., 2].any() and planes[..., 3].all()  # white just passed
    np.testing.assert_array_equal(GAME.board(env), env.unwrapped._go.board)


def test_rewards_come_at_the_end_for_both(games):
    assert reward_differences(GAME, games) == []


def test_a_second_board_size_in_the_process_does_not_break_the_first():
    env = GAME.make_env()
    env.reset(seed=0)
    moves = [GAME.text.parse(p, ANY) for p in ("E5", "C3", "G7", "J9")]
    for action in moves[:2]:
        env.step(action)
    small = make_go_env(7, 7.5)
    small.reset(seed=0)  # go_base's globals now say 7x7
    assert go_base.N == 7
    for action in moves[2:]:
        env.step(action)  # J9 is off a 7x7 board
    obs = env.observe(env.agent_selection)
    assert obs["action_mask"].shape == (82,) and obs["action_mask"].sum() == 81 - 4 + 1
    assert np.argwhere(env.unwrapped._go.board).tolist() == [[0, 8], [2, 6], [4, 4], [6, 2]]
    small.step(0)
    assert small.observe(small.agent_selection)["action_mask"].shape == (50,)


def test_eight_symmetries_with_the_pass_fixed(games):
    assert len(GAME.symmetries) == 8
    assert all(sym.action_map[PASS] == PASS for sym in GAME.symmetries)
    assert symmetry_differences(GAME, games[:2]) == []


def test_points_have_their_gtp_names():
    env = GAME.make_env()
    env.reset()
    for action in range(82):
        assert GAME.text.label(action).lower() == coords.to_gtp(coords.from_flat(action)).lower()
    assert GAME.text.label(PASS) == "pass" and GAME.text.label(0) == "A9"


@pytest.mark.parametrize(
    "typed, message",
    [
        ("i5", "there is no point i5: columns are A-J \\(no I\\), rows 1-9"),
        ("K1", "there is no point K1"),
        ("a10", "there is no point a10"),
        ("", "no move typed: type a point such as D4, or pass"),
        ("pas", "'pas' is not a move"),
    ],
)
def test_typed_moves_are_parsed_strictly(typed, message):
    with pytest.raises(MoveError, match=message):
        GAME.text.parse(typed, ANY)


def test_the_mirror_agrees_with_pettingzoo_over_random_games():
    checks = rule_checks(GAME)
    assert checks, "OpenSpiel has go"
    metrics = evaluate(RandomPlayer(1), RandomPlayer(2), GAME.make_env, 6, observers=checks)
    assert metrics["games"] == 12
    bot = MCTSPlayer(GAME, 10, seed=0)
    assert evaluate(bot, RandomPlayer(3), GAME.make_env, 1)["games"] == 2


# A game (random moves) whose last move repeats an earlier whole-board position: OpenSpiel
# ends it as a draw (positional superko), PettingZoo's simple ko plays on.
REPEATS_A_POSITION = [
    0, 6, 61, 53, 14, 29, 44, 19, 57, 36, 43, 73, 16, 79, 51, 11, 4, 47, 78, 63, 9, 23, 50,
    25, 48, 21, 27, 18, 68, 74, 32, 20, 60, 22, 37, 8, 33, 10, 64, 67, 59, 28, 69, 70, 17,
    49, 46, 72, 58, 41, 38, 65, 55, 71, 1, 3, 56, 40, 47, 34, 13, 26, 62, 31, 35, 30, 39,
    42, 77, 75, 24, 66, 54, 26, 45, 27, 76, 81, 15, 67, 63, 25, 12, 2, 1, 72, 9, 18, 20, 36,
    23, 2, 3, 73, 19, 75, 27, 10, 5, 66, 31, 30, 22, 0, 21, 74, 1, 81, 0, 18, 1, 40, 9, 49,
    0, 42, 29, 18, 1, 81, 0, 81, 9,
]  # fmt: skip


def test_a_repeated_position_ends_only_openspiels_game_and_the_mirror_leaves_it():
    env = GAME.make_env()
    env.reset(seed=0)
    bot = MCTSPlayer(GAME, 10, seed=0)
    checks = rule_checks(GAME)
    for observer in [bot, *checks]:
        observer.new_game()
    for action in REPEATS_A_POSITION:
        env.step(action)
        result = None if not env.terminations[env.agent_selection] else 0
        for observer in [bot, *checks]:
            observer.moved(action, result)
    assert checks[0].left and checks[0].games_left == 1 and checks[0].state.is_terminal()
    assert not any(env.terminations.values())  # PettingZoo plays on
    observation, *_ = env.last()
    assert observation["action_mask"][bot.act(observation)]  # a legal move, at random
    checks[0].new_game()
    assert not checks[0].left and not checks[0].state.is_terminal()


def test_the_rules_and_the_vectorized_games_play_on_past_a_repeated_position():
    rules, batch = GAME.rules, GAME.vector(1)
    position = rules.start()
    for action in REPEATS_A_POSITION:
        assert rules.legal_mask(position)[action] and batch.observe()[1][0, action]
        position = rules.apply(position, action)
        assert not batch.step(np.array([action])).done[0]
    assert not rules.over(position)
    np.testing.assert_array_equal(batch.observe()[0][0], rules.planes_from_board(position))
