"""Games built on the fly: names, the adapted observations, rewards, and unfit environments."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from pettingzoo.test import api_test

from boardq.game import GameFitError
from boardq_games import get_game
from boardq_games.env_check import random_games, reward_differences
from boardq_games.generic.spec import is_generic, parse_name, with_args

pyspiel = pytest.importorskip("pyspiel")

BREAKTHROUGH = "openspiel:breakthrough(rows=6,columns=6)"
FITTING = [
    BREAKTHROUGH,
    "openspiel:tic_tac_toe",
    "openspiel:nim",
    "pettingzoo:classic/connect_four_v3",
    "pettingzoo:classic/go_v5(board_size=5)",
]


# --- names -----------------------------------------------------------------------------------
def test_names_are_parsed_and_env_args_join_them():
    spec = parse_name("openspiel:turn_based_simultaneous_game(game=goofspiel(num_cards=4))")
    assert spec.base == "turn_based_simultaneous_game"
    assert spec.params == (("game", "goofspiel(num_cards=4)"),)
    assert with_args("pettingzoo:classic/go_v5", ["board_size=9"]) == (
        "pettingzoo:classic/go_v5(board_size=9)"
    )
    assert with_args("openspiel:hex(board_size=5)", ["board_size=7", "swap=true"]) == (
        "openspiel:hex(board_size=7,swap=true)"
    )
    assert is_generic("openspiel:othello") and not is_generic("othello")
    for bad in ["openspiel:", "openspiel:hex(board_size=7", "openspiel:hex(7)", "chess:x"]:
        with pytest.raises(GameFitError):
            parse_name(bad)
    with pytest.raises(GameFitError, match="--env-arg is for games built"):
        with_args("go", ["board_size=9"])


def test_a_game_is_named_by_its_canonical_spec_and_rebuilt_from_it():
    game = get_game(BREAKTHROUGH)
    assert game.name == "openspiel:breakthrough(columns=6,rows=6)"
    assert get_game(game.name).name == game.name and game.preset.game == game.name
    assert get_game("pettingzoo:classic/go_v5(board_size=05)").name == (
        "pettingzoo:classic/go-v5(board_size=5)"
    )
    assert game.openspiel.name == "breakthrough(columns=6,rows=6)"
    assert game.symmetries == () and game.rules is None and game.players == ()


# --- the adapted environments ----------------------------------------------------------------
@pytest.mark.parametrize("name", FITTING)
def test_pettingzoo_api(name):
    api_test(get_game(name).make_env(), num_cycles=200)


@pytest.mark.parametrize("name", FITTING)
def test_rewards_come_at_the_end_for_both_players(name):
    game = get_game(name)
    assert reward_differences(game, random_games(game, 6, seed=1)) == []


def test_openspiel_tensors_go_channels_last_with_the_observers_seat():
    game = get_game(BREAKTHROUGH)
    env = game.make_env()
    env.reset(seed=0)
    first, second = env.possible_agents
    env.step(int(np.flatnonzero(env.observe(first)["action_mask"])[0]))
    state = env.unwrapped.game_state
    for seat, agent in enumerate((first, second)):
        obs = env.observe(agent)
        tensor = np.asarray(state.observation_tensor(seat)).reshape(3, 6, 6)
        assert obs["observation"].dtype == np.int8 and obs["observation"].shape == (6, 6, 4)
        np.testing.assert_array_equal(obs["observation"][..., :3], tensor.transpose(1, 2, 0))
        assert (obs["observation"][..., 3] == seat).all()
        assert obs["action_mask"].dtype == np.int8 and obs["action_mask"].any() == (seat == 1)


def test_flat_tensors_take_the_board_their_parameters_give():
    assert get_game("openspiel:gomoku(size=7)").obs_shape == (7, 7, 4)  # (3, 49) tensor
    assert get_game("openspiel:nim").obs_shape == (1, 39, 2)  # no board: one row


def test_pettingzoo_planes_gain_the_seat_plane():
    game = get_game("pettingzoo:classic/connect_four_v3")
    assert game.obs_shape == (6, 7, 3) and game.num_actions == 7
    env = game.make_env()
    env.reset(seed=0)
    env.step(3)
    obs = env.observe(env.agent_selection)
    assert np.argwhere(obs["observation"][..., 1]).tolist() == [[5, 3]]  # the opponent's
    assert (obs["observation"][..., 2] == 1).all()  # the second player observes


# --- environments that do not fit: one line, exit code 1 -------------------------------------
def boardq_train(*args: str, prelude: str = "") -> subprocess.CompletedProcess:
    code = f"{prelude}\nimport sys\nfrom boardq.commands import main\nsys.exit(main(sys.argv[1:]))"
    return subprocess.run(
        [sys.executable, "-c", code, "train", *args], capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize(
    "args, words",
    [
        (["openspiel:hearts"], "openspiel:hearts has 4 players; boardq plays two-player games"),
        (["openspiel:oshi_zumo"], "has simultaneous moves"),
        (["openspiel:kuhn_poker"], "hides information from a player"),
        (["openspiel:pig"], "has chance events"),
        (["openspiel:oware"], "observes values that are not whole numbers"),
        (["openspiel:checkers"], "moved twice in a row"),
        (["pettingzoo:butterfly/cooperative_pong_v6"], "has no action mask"),
        (["pettingzoo:classic/rps_v2"], "has simultaneous moves"),
        (["pettingzoo:classic/texas_holdem_v4"], "hides information"),
        (["openspiel:othelo"], "unknown OpenSpiel game 'othelo'; did you mean othello"),
        (["pettingzoo:classic/nope_v1"], "unknown PettingZoo environment 'classic/nope_v1'"),
        (["openspiel:breakthrough(rowz=6)"], "Unknown parameter 'rowz'"),
        (["pettingzoo:classic/go_v5", "--env-arg", "size=9"], "unexpected keyword argument"),
        (["tictactoe", "--env-arg", "size=3"], "--env-arg is for games built from"),
    ],
)
def test_an_unfit_environment_is_one_line_and_exit_1(args, words):
    result = boardq_train(*args)
    assert result.returncode == 1, result.stderr
    assert result.stderr.startswith("boardq train: error: ") and words in result.stderr
    assert result.stderr.count("\n") == 1 and result.stdout == ""


BOX_ACTIONS = """
import numpy as np, pettingzoo
from gymnasium import spaces
from pettingzoo.classic.tictactoe.tictactoe import raw_env

class BoxActions(raw_env):
    def action_space(self, agent):
        return spaces.Box(0, 1, (2,))

pettingzoo.register("aec", "test/box_actions-v0", entry_point=BoxActions)
"""


def test_continuous_actions_are_one_line_and_exit_1():
    result = boardq_train("pettingzoo:test/box_actions_v0", prelude=BOX_ACTIONS)
    assert result.returncode == 1, result.stderr
    assert "actions are not a discrete set" in result.stderr
    assert result.stderr.count("\n") == 1


def test_env_args_become_part_of_the_name_the_run_stores():
    result = boardq_train("pettingzoo:classic/go_v5", "--env-arg", "board_size=5", "--show-config")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["game"] == "pettingzoo:classic/go-v5(board_size=5)"
