"""The shared argument parsers and the options generated from the settings."""

from __future__ import annotations

import argparse

import pytest

from boardq.commands.args import (
    add_config_options,
    config_from_args,
    list_of,
    number,
    parse_bool,
    parse_sizes,
)
from boardq.config import TrainConfig


@pytest.mark.parametrize(("text", "value"), [("true", True), ("OFF", False), (" 1 ", True)])
def test_parse_bool(text, value):
    assert parse_bool(text) is value


@pytest.mark.parametrize("text", ["maybe", "", "2"])
def test_parse_bool_refuses(text):
    with pytest.raises(argparse.ArgumentTypeError, match="true or false"):
        parse_bool(text)


def test_numbers_with_a_minimum():
    assert number(int)("7") == 7 and number(float)("2.5") == 2.5
    for bad, message in (("7.5", "whole number"), ("nan", "number"), ("x", "number")):
        with pytest.raises(argparse.ArgumentTypeError, match=message):
            number(int if bad == "7.5" else float)(bad)
    with pytest.raises(argparse.ArgumentTypeError, match=">= 1"):
        number(int, minimum=1)("0")


@pytest.mark.parametrize(
    ("kind", "text", "message"),
    [
        (int, "9" * 5000, "a number 5,000 characters long"),
        (float, "0." + "1" * 5000, "a number 5,002 characters long"),
        (int, "1" + "0" * 18, "a whole number of at most 18 digits"),
        (float, "1e999", "a finite number"),
        (float, "-inf", "a finite number"),
    ],
)
def test_numbers_of_any_length_are_refused_before_they_are_converted(kind, text, message):
    with pytest.raises(argparse.ArgumentTypeError, match=message):
        number(kind)(text)
    assert number(int)("9" * 18) == int("9" * 18)  # the longest whole number taken


def test_sizes_and_lists():
    assert parse_sizes("256, 128") == (256, 128) and parse_sizes("none") == ()
    with pytest.raises(argparse.ArgumentTypeError, match=">= 1"):
        parse_sizes("64,0")
    parse = list_of(number(int, minimum=1), "counts")
    assert parse("1,2,,3") == (1, 2, 3)
    for bad in ("1,x", ","):
        with pytest.raises(argparse.ArgumentTypeError):
            parse(bad)


def test_every_setting_is_an_option_in_its_group_and_unset_ones_keep_the_base():
    parser = argparse.ArgumentParser()
    add_config_options(parser)
    args = parser.parse_args(["--batch-size", "32", "--hidden-units", "8,8", "--vectorized", "no"])
    base = TrainConfig(budget_steps=1, tau=0.5)
    cfg = config_from_args(base, args)
    assert (cfg.batch_size, cfg.network.hidden_units, cfg.vectorized, cfg.tau) == (
        32, (8, 8), False, 0.5,
    )  # fmt: skip
    titles = [g.title for g in parser._action_groups]
    assert [t.split(" (")[0] for t in titles[2:]] == [
        "algorithm", "replay and input pipeline", "performance", "run",
        "evaluation during training", "network",
    ]  # fmt: skip
    evaluation = next(g for g in parser._action_groups if g.title.startswith("evaluation"))
    assert {a.dest for a in evaluation._group_actions} == {
        "eval_ladder", "eval_every_sec", "eval_games", "eval_handicap", "eval_symmetric",
        "eval_visits", "eval_average_agents",
    }  # fmt: skip
    with pytest.raises(SystemExit):
        parser.parse_args(["--game", "chess"])  # not an option: the game is an argument
