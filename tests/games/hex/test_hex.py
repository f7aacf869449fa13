"""Hex (7x7) through Shimmy: planes with the seat, the half turn, cell names, the drawing."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from pettingzoo.test import api_test

from boardq.boardtext import MoveError, plain
from boardq.errors import BoardqError
from boardq.players.evaluation import RandomPlayer, evaluate
from boardq.players.factory import check_spec
from boardq.players.openspiel_bot import MCTSPlayer, rule_checks
from boardq.players.specs import parse_spec
from boardq.symmetry import DIHEDRAL, board_symmetries
from boardq_games import get_game
from boardq_games.env_check import random_games, reward_differences, symmetry_differences

GAME = get_game("hex")
ANY = np.ones(49, bool)


@pytest.fixture(scope="module")
def games():
    return random_games(GAME, 16, seed=7)


def test_pettingzoo_api():
    api_test(GAME.make_env(), num_cycles=300)


def test_planes_hold_the_movers_stones_and_which_edges_it_joins():
    env = GAME.make_env()
    env.reset(seed=0)
    first, second = env.possible_agents
    env.step(GAME.text.parse("c5", ANY))  # row 5, column c: action 4 * 7 + 2
    planes = env.observe(second)["observation"]
    assert planes.shape == (7, 7, 3) and planes.dtype == np.int8
    assert not planes[..., 0].any() and np.argwhere(planes[..., 1]).tolist() == [[4, 2]]
    assert planes[..., 2].all()  # the second player joins left and right
    env.step(GAME.text.parse("a1", ANY))
    planes = env.observe(first)["observation"]
    assert np.argwhere(planes[..., 0]).tolist() == [[4, 2]]
    assert np.argwhere(planes[..., 1]).tolist() == [[0, 0]] and not planes[..., 2].any()
    np.testing.assert_array_equal(GAME.board(env)[[4, 0], [2, 0]], [1, -1])


def test_every_game_is_won_and_rewards_come_at_the_end(games):
    assert reward_differences(GAME, games) == []
    assert all(p.final in ((1.0, -1.0), (-1.0, 1.0)) for p in games)


def test_the_half_turn_maps_games_to_games_with_the_same_winner(games):
    assert len(GAME.symmetries) == 2
    assert symmetry_differences(GAME, games) == []


def test_no_other_symmetry_of_the_square_holds(games):
    # Mirrors and quarter turns keep the legal moves (any empty cell) but not the winner.
    half_turn = GAME.symmetries[1].action_map.tolist()
    for sym in board_symmetries(DIHEDRAL, np.arange(49).reshape(7, 7))[1:]:
        if sym.action_map.tolist() != half_turn:
            assert symmetry_differences(dataclasses.replace(GAME, symmetries=[sym]), games)


def test_cells_are_named_as_openspiel_names_them():
    pyspiel = pytest.importorskip("pyspiel")
    state = pyspiel.load_game("hex(board_size=7)").new_initial_state()
    assert [GAME.text.label(a) for a in range(49)] == [
        state.action_to_string(0, a) for a in range(49)
    ]


@pytest.mark.parametrize(
    "typed, message",
    [
        ("", "no move typed: type a point such as d4"),
        ("h1", "there is no point h1: columns are a-g, rows 1-7"),
        ("a8", "there is no point a8"),
        ("pass", "'pass' is not a move"),
        ("a1", "a1 is not a legal move here"),
    ],
)
def test_typed_moves_are_parsed_strictly(typed, message):
    legal = ANY.copy()
    legal[0] = False
    with pytest.raises(MoveError, match=message):
        GAME.text.parse(typed, legal)


def test_the_drawing_shifts_each_row_half_a_cell():
    board = np.zeros((7, 7), np.int8)
    board[0, 0], board[6, 6] = 1, -1
    lines = [line.rstrip() for line in plain(GAME.text.draw(board, 48, True)).splitlines()]
    assert lines[1] == " 1  X  .  .  .  .  .  .   1"
    assert lines[2] == " 2   .  .  .  .  .  .  .   2"
    assert lines[7] == " 7 " + " " * 9 + " .  .  .  .  .  . [O]  7"


def test_mcts_plays_on_a_mirror_that_agrees_with_shimmy():
    checks = rule_checks(GAME)
    bot = MCTSPlayer(GAME, 50, seed=0)
    metrics = evaluate(bot, RandomPlayer(1), GAME.make_env, 4, observers=checks)
    assert metrics["score"] >= 0.75


@pytest.mark.parametrize("spec", ["winblock", "line", "greedy"])
def test_rules_players_that_do_not_fit_are_refused(spec):
    with pytest.raises(BoardqError, match="Hex"):
        check_spec(parse_spec(spec), GAME)


def test_the_chain_that_won_is_marked_whole_and_nothing_else():
    from boardq.boardtext import board_from_rows
    from boardq_games.hex.text import winning_chain

    # X's group joins the top and bottom rows (with a branch); O's group touches only
    # the left edge, and X's lone stone joins nothing.
    rows = [
        "..X....",
        ".XX....",
        ".X.....",
        "OX....X",
        "OX.....",
        "X......",
        "X......",
    ]
    cells = winning_chain(board_from_rows(rows))
    assert ["".join("#" if m else "." for m in row) for row in cells] == [
        "..#....",
        ".##....",
        ".#.....",
        ".#.....",
        ".#.....",
        "#......",
        "#......",
    ]
    # O joins left and right along a row; X's column then joins nothing.
    across = board_from_rows(["X......"] * 3 + ["OOOOOOO"] + ["X......"] * 3)
    assert winning_chain(across)[3].all() and winning_chain(across).sum() == 7


def test_the_search_has_rules_to_search_with():
    check_spec(parse_spec("search:2"), GAME)  # no error
