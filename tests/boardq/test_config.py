"""Typed settings: validation, round trips, presets."""

from __future__ import annotations

import pytest

from boardq.config import ConfigError, NetworkConfig, TrainConfig
from boardq.errors import UnknownGameError
from boardq_games import game_names, get_game


@pytest.mark.parametrize("name", ["tictactoe", "connect_four"])
def test_presets_are_valid_and_round_trip(name):
    preset = get_game(name).preset.validate()
    assert preset.game == name
    assert TrainConfig.from_dict(preset.to_dict()) == preset


@pytest.mark.parametrize(
    ("changes", "word"),
    [
        ({"batch_size": 0}, "batch_size"),
        ({"discount": 1.5}, "discount"),
        ({"tau": 0.0}, "tau"),
        ({"warmup_transitions": 10**9}, "warmup_transitions"),
        ({"budget_steps": 0, "budget_minutes": 0}, "budget"),
        ({"replay_ratio": -1}, "replay_ratio"),
        ({"epsilon_end": 2.0}, "epsilon_end"),
        ({"returns": "retrace"}, "returns"),
        ({"td_lambda": 1.5}, "td_lambda"),
        ({"policy_beta": -0.1}, "policy_beta"),
        ({"policy_head": True, "policy_alpha": 0.0, "policy_beta": 0.0}, "policy_alpha"),
        ({"opening_plies": -1}, "opening_plies"),
        ({"reward_lead": 1.5}, "reward_lead"),
        ({"eval_average_agents": -1}, "eval_average_agents"),
        ({"eval_average_agents": 3, "keep_agent_every_sec": 0}, "keep_agent_every_sec"),
    ],
)
def test_bad_values_name_the_setting(changes, word):
    with pytest.raises(ConfigError, match=word):
        get_game("tictactoe").preset.replace(**changes).validate()


def test_replace_reaches_network_fields():
    cfg = TrainConfig(budget_steps=1).replace(hidden_units=(8, 8), batch_size=4)
    assert cfg.network == NetworkConfig(hidden_units=(8, 8)) and cfg.batch_size == 4


def test_unknown_keys_are_refused():
    with pytest.raises(ConfigError, match="bogus"):
        TrainConfig.from_dict({"bogus": 1})


def test_game_registry():
    assert game_names() == ["connect_four", "go", "gomoku", "hex", "othello", "tictactoe"]
    assert get_game("Connect-Four").name == "connect_four"
    with pytest.raises(UnknownGameError, match="unknown game 'chess'"):
        get_game("chess")
