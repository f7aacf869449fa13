"""The OpenSpiel mirror agrees with PettingZoo move for move, and its MCTS bot plays."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from boardq.players.evaluation import RandomPlayer, evaluate, play_game  # noqa: E402
from boardq.players.openspiel_bot import (  # noqa: E402
    MCTSPlayer,
    OpenSpielMirror,
    RuleMismatchError,
    rule_checks,
)
from boardq_games import get_game  # noqa: E402

TTT = get_game("tictactoe")
C4 = get_game("connect_four")

# Where OpenSpiel's observation tensor keeps each side: (first player's plane, second
# player's plane, whether its row 0 is the bottom row). Read off OpenSpiel's boards.
SPIEL_PLANES = {"tictactoe": (2, 1, False), "connect_four": (0, 1, True)}


def spiel_board(mirror: OpenSpielMirror) -> np.ndarray:
    """OpenSpiel's board in display orientation: +1 first player, -1 second."""
    first, second, bottom_up = SPIEL_PLANES[mirror.game.name]
    shape = mirror.spiel_game.observation_tensor_shape()
    planes = np.asarray(mirror.state.observation_tensor(0)).reshape(shape)
    board = (planes[first] - planes[second]).astype(np.int8)
    return board[::-1] if bottom_up else board


def pettingzoo_board(game, env) -> np.ndarray:
    first = env.possible_agents[0]
    return game.rules.board_from_planes(env.observe(first)["observation"])


def test_tictactoe_actions_name_the_same_cells():
    mirror = OpenSpielMirror(TTT)
    for action in range(9):
        row, col = TTT.rules.action_cell(action)  # PettingZoo: down the columns
        spiel_action = TTT.openspiel.actions[action]
        assert mirror.state.action_to_string(0, spiel_action) == f"x({row},{col})"
        assert mirror.to_pettingzoo(spiel_action) == action


@pytest.mark.parametrize("game, moves", [(TTT, 3000), (C4, 4000)])
def test_mirror_agrees_with_pettingzoo_over_random_games(game, moves):
    """Legal moves, boards, ends and winners, after every move of many random games."""
    rng = np.random.default_rng(0)
    mirror = OpenSpielMirror(game)
    env = game.make_env()
    played, results = 0, set()
    while played < moves:
        env.reset()
        mirror.new_game()
        first, second = env.possible_agents
        while True:
            mask = np.asarray(env.observe(env.agent_selection)["action_mask"], bool)
            mirror.check_legal(mask)
            np.testing.assert_array_equal(spiel_board(mirror), pettingzoo_board(game, env))
            action = int(rng.choice(np.flatnonzero(mask)))
            env.step(action)
            played += 1
            over = any(env.terminations.values())
            result = int(np.sign(env.rewards[first] - env.rewards[second])) if over else None
            mirror.moved(action, result)  # raises on any disagreement
            np.testing.assert_array_equal(spiel_board(mirror), pettingzoo_board(game, env))
            if over:
                assert mirror.result() == result and not mirror.legal_mask().any()
                results.add(result)
                break
    env.close()
    assert {-1, 1} <= results  # both seats won some games
    assert game is not TTT or 0 in results


def test_mirror_names_the_moves_when_the_referees_disagree():
    mirror = OpenSpielMirror(TTT)
    mirror.moved(0, None)
    claim = r"moves \[0, 1\]: PettingZoo: the first player won"
    with pytest.raises(RuleMismatchError, match=claim):
        mirror.moved(1, 1)  # a win claimed after two moves
    mirror.new_game()
    for action in (0, 1, 3, 4):
        mirror.moved(action, None)
    with pytest.raises(RuleMismatchError, match="OpenSpiel: the first player won"):
        mirror.moved(6, None)  # X completed the top row, but PettingZoo plays on
    with pytest.raises(RuleMismatchError, match="allows"):
        mirror.new_game()
        mirror.check_legal(np.r_[0, np.ones(8)])


def test_mirror_accepts_an_illegal_move_that_loses():
    mirror = OpenSpielMirror(TTT)
    mirror.moved(4, None)
    mirror.moved(4, 1)  # the second player repeats a cell and loses, as PettingZoo rules
    with pytest.raises(RuleMismatchError, match="illegal in OpenSpiel"):
        mirror.new_game()
        mirror.moved(4, None)
        mirror.moved(4, None)  # the same move, but PettingZoo would have played on


@pytest.mark.parametrize("game", [TTT, C4])
def test_evaluation_games_pass_the_rule_check(game):
    checks = rule_checks(game)
    assert len(checks) == 1
    metrics = evaluate(RandomPlayer(1), RandomPlayer(2), game.make_env, 20, observers=checks)
    assert metrics["games"] == 40.0
    assert len(checks[0].moves) >= 5  # it followed the last game


def test_mcts_beats_random_at_tictactoe():
    metrics = evaluate(MCTSPlayer(TTT, 20, seed=0), RandomPlayer(1), TTT.make_env, 10)
    assert metrics["first/loss"] == 0.0
    assert metrics["score"] >= 0.8, metrics


def test_mcts_takes_a_win_and_is_reproducible():
    def game_of(seed: int) -> tuple[int, list[int]]:
        bot = MCTSPlayer(C4, 50, seed=seed)
        record = OpenSpielMirror(C4)
        result = play_game(C4.make_env, (bot, RandomPlayer(3)), seed=0, observers=[record])
        return result, record.moves

    (result, moves), again = game_of(5), game_of(5)
    assert result == 1
    assert again == (result, moves)
    assert len(moves) % 2 == 1  # the bot, moving first, made the last (winning) move


def test_mcts_refuses_simulations_below_one():
    with pytest.raises(ValueError, match="simulations"):
        MCTSPlayer(TTT, 0)
