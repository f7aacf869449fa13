"""Games by name through the installed catalogs (the `boardq.games` entry points)."""

from __future__ import annotations

import pytest

import boardq_games
from boardq.catalog import catalogs, find_game, game_names, get_game
from boardq.errors import UnknownGameError
from boardq.game import GameFitError


def test_this_projects_games_are_an_installed_catalog():
    assert boardq_games.CATALOG in catalogs()
    assert game_names() == ["connect_four", "go", "gomoku", "hex", "othello", "tictactoe"]
    assert get_game("Connect-Four") is boardq_games.GAMES["connect_four"]


def test_games_built_from_a_name_come_through_the_catalog_too():
    game = get_game("openspiel:tic_tac_toe")
    assert (game.name, game.num_actions) == ("openspiel:tic_tac_toe", 9)
    with pytest.raises(GameFitError):
        find_game("openspiel:kuhn_poker")  # a game boardq cannot train: said, not hidden


def test_an_unknown_name_is_none_or_one_error_listing_what_there_is():
    assert find_game("chess") is None
    with pytest.raises(UnknownGameError) as e:
        get_game("chess")
    assert "tictactoe" in str(e.value) and "openspiel:NAME" in str(e.value)


def test_the_public_api_names_the_catalog_and_the_trainer():
    import boardq
    from boardq.training.trainer import Trainer

    assert boardq.get_game is get_game
    assert boardq.Trainer is Trainer
