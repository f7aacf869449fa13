"""Gomoku (9x9) through Shimmy: planes, rules against OpenSpiel, points, the line player."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test

from boardq.boardtext import MoveError
from boardq.errors import BoardqError
from boardq.players.evaluation import RandomPlayer, evaluate
from boardq.players.factory import check_spec
from boardq.players.openspiel_bot import rule_checks
from boardq.players.opponents import LinePlayer, WinBlockPlayer
from boardq.players.specs import parse_spec
from boardq_games import get_game
from boardq_games.env_check import (
    random_games,
    reward_differences,
    rules_differences,
    symmetry_differences,
)
from boardq_games.gomoku.rules import RULES

GAME = get_game("gomoku")
ANY = np.ones(81, bool)


def point(name: str) -> int:
    return GAME.text.parse(name, ANY)


def position(mine: list[str], theirs: list[str]) -> dict[str, np.ndarray]:
    """The mover's observation with its stones on `mine` and the opponent's on `theirs`."""
    board = np.zeros((9, 9), np.int8)
    for names, value in ((mine, 1), (theirs, -1)):
        for name in names:
            board[RULES.action_cell(point(name))] = value
    return {
        "observation": RULES.planes_from_board(board),
        "action_mask": RULES.legal_mask(board).astype(np.int8),
    }


def choices(player_class, observation, seeds=range(12)) -> set[str]:
    return {GAME.text.label(player_class(RULES, seed=s).act(observation)) for s in seeds}


@pytest.fixture(scope="module")
def games():
    return random_games(GAME, 12, seed=5)


def test_pettingzoo_api():
    api_test(GAME.make_env(), num_cycles=400)


def test_planes_are_the_movers_flat_tensor_reshaped_to_the_board():
    env = GAME.make_env()
    env.reset(seed=0)
    black, white = env.possible_agents
    env.step(point("e5"))
    env.step(point("a9"))
    obs = env.observe(black)
    assert obs["observation"].shape == (9, 9, 2) and obs["observation"].dtype == np.int8
    assert np.argwhere(obs["observation"][..., 0]).tolist() == [[4, 4]]  # e5, the centre
    assert np.argwhere(obs["observation"][..., 1]).tolist() == [[0, 0]]  # a9, top left
    assert obs["action_mask"].sum() == 79 and not env.observe(white)["action_mask"].any()


def test_rules_agree_with_openspiel_and_rewards_come_at_the_end(games):
    assert rules_differences(GAME, games) == []
    assert reward_differences(GAME, games) == []


def test_an_overline_wins_as_in_openspiel():
    board = np.zeros((9, 9), np.int8)
    board[8, [0, 1, 2, 4, 5]] = 1  # a1 b1 c1 . e1 f1: d1 makes six
    assert RULES.winner(-RULES.apply(board, point("d1"))) == 1


def test_eight_symmetries_map_games_to_games(games):
    assert len(GAME.symmetries) == 8
    assert symmetry_differences(GAME, games[:3]) == []


def test_points_are_named_from_the_bottom_left_like_openspiels_rows_and_columns():
    pyspiel = pytest.importorskip("pyspiel")
    state = pyspiel.load_game("gomoku(size=9)").new_initial_state()
    for action in range(81):
        row, col = map(int, state.action_to_string(0, action).split(","))  # row 0: the top
        assert GAME.text.label(action) == f"{'abcdefghi'[col]}{9 - row}"
    assert GAME.text.label(40) == "e5" and point("A1") == 72


@pytest.mark.parametrize(
    "typed, message",
    [
        ("", "no move typed: type a point such as e5"),
        ("j1", "there is no point j1: columns are a-i, rows 1-9"),
        ("a10", "there is no point a10"),
        ("pass", "'pass' is not a move"),
        ("e 5", "'e 5' is not a move"),
        ("e5", "e5 is not a legal move here"),
    ],
)
def test_typed_moves_are_parsed_strictly(typed, message):
    legal = ANY.copy()
    legal[40] = False
    with pytest.raises(MoveError, match=message):
        GAME.text.parse(typed, legal)


def test_line_player_completes_five_before_it_blocks_four():
    observation = position(["a1", "b1", "c1", "d1"], ["a9", "b9", "c9", "d9"])
    assert choices(LinePlayer, observation) == {"e1"}


def test_line_player_blocks_an_open_four():
    observation = position(["a1", "i9"], ["b2", "c3", "d4", "e5"])
    assert choices(LinePlayer, observation) == {"f6"}  # a1 already closes the other end


def test_line_player_lengthens_its_longest_line():
    # X holds d5-e5 and a lone a9: c5 or f5 makes three in a row; anything else two.
    assert choices(LinePlayer, position(["d5", "e5", "a9"], ["i1"])) == {"c5", "f5"}
    # Diagonals count too.
    assert choices(LinePlayer, position(["c3", "d4", "e5"], ["b2"])) == {"f6"}


def test_winblock_plays_and_wins_against_random():
    checks = rule_checks(GAME)  # OpenSpiel referees every move
    metrics = evaluate(LinePlayer(RULES, 1), RandomPlayer(2), GAME.make_env, 8, observers=checks)
    assert metrics["score"] >= 0.9
    assert choices(WinBlockPlayer, position(["a1", "b1", "c1", "d1"], [])) == {"e1"}


@pytest.mark.parametrize("spec, word", [("greedy", "othello"), ("perfect", "impractical")])
def test_players_that_do_not_fit_are_refused_in_one_line(spec, word):
    with pytest.raises(BoardqError, match=word):
        check_spec(parse_spec(spec), GAME)
