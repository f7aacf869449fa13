"""Othello through Shimmy: boardq's planes, the rules against OpenSpiel, the text board,
the greedy player, the symmetries and the MCTS mirror."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test

from boardq.boardtext import MoveError, plain
from boardq.boardtext import board_from_rows as parse
from boardq.errors import BoardqError
from boardq.players.evaluation import RandomPlayer, evaluate
from boardq.players.factory import check_spec
from boardq.players.openspiel_bot import MCTSPlayer, rule_checks
from boardq.players.opponents import GreedyPlayer
from boardq.players.specs import parse_spec
from boardq.search.alphabeta import SearchPlayer
from boardq_games import get_game
from boardq_games.env_check import (
    random_games,
    reward_differences,
    rules_differences,
    symmetry_differences,
)
from boardq_games.othello.rules import PASS, RULES

GAME = get_game("othello")


def square(name: str) -> int:
    return GAME.text.parse(name, np.ones(GAME.num_actions, bool))


@pytest.fixture(scope="module")
def games():
    return random_games(GAME, 12, seed=3)


def test_pettingzoo_api():
    api_test(GAME.make_env(), num_cycles=400)


def test_planes_are_the_movers_and_the_mask_sits_beside_them():
    env = GAME.make_env()
    env.reset(seed=0)
    black, white = env.possible_agents
    obs = env.observe(black)
    assert obs["observation"].dtype == np.int8 and obs["observation"].shape == (8, 8, 2)
    np.testing.assert_array_equal(RULES.board_from_planes(obs["observation"]), RULES.start())
    assert sorted(GAME.text.label(a) for a in np.flatnonzero(obs["action_mask"])) == [
        "c4", "d3", "e6", "f5"
    ]  # fmt: skip
    assert not env.observe(white)["action_mask"].any()  # not its turn
    env.step(square("d3"))  # flips d4
    planes = env.observe(white)["observation"]
    assert np.argwhere(planes[..., 0]).tolist() == [[4, 4]]  # white's own: e5
    assert np.argwhere(planes[..., 1]).tolist() == [[2, 3], [3, 3], [3, 4], [4, 3]]


def test_rules_agree_with_openspiel_and_rewards_come_at_the_end(games):
    assert rules_differences(GAME, games) == []
    assert reward_differences(GAME, games) == []
    assert {np.sign(p.final[0]) for p in games} >= {-1, 1}


def test_eight_symmetries_with_the_pass_fixed(games):
    assert len(GAME.symmetries) == 8
    assert all(sym.action_map[PASS] == PASS for sym in GAME.symmetries)
    assert symmetry_differences(GAME, games[:3]) == []


def test_a_pass_is_the_only_move_when_no_disc_can_be_placed(games):
    # The random games pass now and then; rules_differences checked those positions.
    passes = [mask for p in games for mask in p.masks if mask[PASS]]
    assert passes and all(mask.sum() == 1 for mask in passes)
    # X (the mover) can close no line of O's; O can take a3, flipping a2. X must pass.
    board = parse(["O.......", "X.......", "........", "........",
                   "........", "........", "........", "........"])  # fmt: skip
    assert RULES.flips(-board, square("a3")) == [(1, 0)]
    assert not RULES.placements(board).any() and RULES.placements(-board).any()
    assert np.flatnonzero(RULES.legal_mask(board)).tolist() == [PASS]
    assert np.array_equal(RULES.apply(board, PASS), -board)


def test_no_line_runs_round_the_edge_of_the_board():
    # Inside the rules each side's discs are 64 bits, square 8r + c, where h1 and a2 are
    # neighbours. X (the mover) on h1 and a3, O on a2 and h2: X closes a1 (a2 between
    # a3 and it) and h3 (h2 between h1 and it); b2 (a line from h1 round through a2) and
    # g2 (from a3 round through h2) are no moves.
    board = parse([".......X", "O......O", "X.......", "........",
                   "........", "........", "........", "........"])  # fmt: skip
    legal = {GAME.text.describe(a) for a in np.flatnonzero(RULES.legal_mask(board))}
    assert legal == {"a1", "h3"}
    assert RULES.flips(board, square("h3")) == [(1, 7)]
    after = RULES.apply(board, square("h3"))  # seen by O now: X's discs are -1
    assert after[1, 7] == after[2, 7] == -1 and after[1, 0] == 1 and int(after.sum()) == 1 - 4


def test_the_side_with_more_discs_wins_once_no_one_can_move():
    full = np.ones((8, 8), np.int8)
    full[0, :5] = -1
    assert not RULES.legal_mask(full).any() and RULES.winner(full) == 1
    assert RULES.winner(-full) == -1 and not RULES.is_full(full)
    even = np.concatenate([np.ones((4, 8)), -np.ones((4, 8))]).astype(np.int8)
    assert RULES.winner(even) == 0 and RULES.is_full(even)
    assert RULES.winner(RULES.start()) == 0 and not RULES.is_full(RULES.start())


def test_labels_are_openspiels_move_names():
    pyspiel = pytest.importorskip("pyspiel")
    state = pyspiel.load_game("othello").new_initial_state()
    for action in range(GAME.num_actions):
        assert GAME.text.label(action) == state.action_to_string(0, action)
    assert GAME.text.label(19) == "d3" and GAME.text.label(PASS) == "pass"


@pytest.mark.parametrize(
    "typed, message",
    [
        ("", "no move typed: type a point such as d3, or pass"),
        ("i1", "there is no point i1: columns are a-h, rows 1-8"),
        ("a9", "there is no point a9"),
        ("a0", "there is no point a0"),
        ("d-3", "there is no point d-3"),
        ("3d", "'3d' is not a move"),
        ("d٣", "is not a move"),
        ("d3d", "is not a move"),
        ("pass", "you cannot pass while you have a move"),
        ("a1", "a1 is not a legal move here"),
    ],
)
def test_typed_moves_are_parsed_strictly(typed, message):
    legal = RULES.legal_mask(RULES.start())
    with pytest.raises(MoveError, match=message):
        GAME.text.parse(typed, legal)


def test_typed_moves_ignore_case_and_blanks():
    legal = RULES.legal_mask(RULES.start())
    assert GAME.text.parse(" D3 ", legal) == 19 == square("d3")
    only_pass = np.zeros(GAME.num_actions, bool)
    only_pass[PASS] = True
    assert GAME.text.parse("PASS", only_pass) == PASS


def test_drawing_names_the_squares_and_marks_the_last_move():
    board = RULES.apply(RULES.start(), square("d3"))  # seen by white: black is -1 now
    drawing = GAME.text.draw(-board, last=square("d3"), ascii_only=True)
    lines = [line.rstrip() for line in plain(drawing).splitlines()]
    assert lines[0] == "    a  b  c  d  e  f  g  h"
    assert lines[3] == " 3  .  .  . [X] .  .  .  .   3"
    assert lines[5] == " 5  .  .  .  X  O  .  .  .   5"


def test_greedy_takes_the_move_that_flips_the_most():
    board = parse([
        "........",
        ".OOOX...",  # a2 flips b2, c2 and d2
        "........",
        "..O.....",  # b3 flips c4 only
        "...X....",
        "........",
        "........",
        "........",
    ])  # fmt: skip
    obs = {
        "observation": RULES.planes_from_board(board),
        "action_mask": RULES.legal_mask(board).astype(np.int8),
    }
    assert RULES.flips(board, square("a2")) == [(1, 1), (1, 2), (1, 3)]
    assert {GreedyPlayer(RULES, seed=s).act(obs) for s in range(10)} == {square("a2")}


def test_greedy_beats_random_and_mcts_plays_on_the_mirror():
    greedy = GreedyPlayer(RULES, seed=1)
    checks = rule_checks(GAME)
    assert evaluate(greedy, RandomPlayer(2), GAME.make_env, 10, observers=checks)["score"] >= 0.5
    metrics = evaluate(MCTSPlayer(GAME, 30, seed=0), RandomPlayer(3), GAME.make_env, 3)
    assert metrics["score"] >= 0.5


@pytest.mark.parametrize("spec", ["winblock", "line", "perfect"])
def test_players_that_do_not_fit_are_refused_in_one_line(spec):
    with pytest.raises(BoardqError) as error:
        check_spec(parse_spec(spec), GAME, need_path=False)
    assert "\n" not in str(error.value) and "Othello" in str(error.value)


def test_search_sees_that_the_last_move_can_lose():
    board = -np.ones((8, 8), np.int8)
    board[0, :4] = [1, 0, -1, 1]  # X's only move, b1, fills the board 4 discs to 60
    assert np.flatnonzero(RULES.legal_mask(board)).tolist() == [square("b1")]
    searcher = SearchPlayer(RULES, lambda planes: np.zeros((len(planes), 65)), depth=1)
    obs = {"observation": RULES.planes_from_board(board), "action_mask": RULES.legal_mask(board)}
    assert searcher.q_values(obs)[square("b1")] == -1.0
