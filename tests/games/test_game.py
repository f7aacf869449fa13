"""The Game record: run folders, and the default opponents each game gets."""

from __future__ import annotations

from boardq.commands.evaluate import default_opponents
from boardq_games import get_game


def test_run_folders_are_plain_names():
    assert get_game("connect_four").dir_name == "connect_four"
    generic = get_game("openspiel:breakthrough(rows=6,columns=6)")
    assert generic.dir_name == "openspiel_breakthrough_columns=6_rows=6"
    assert "/" not in get_game("pettingzoo:classic/tictactoe-v3").dir_name


def test_each_game_is_evaluated_against_opponents_that_fit_it():
    names = {g: [s.name for s in default_opponents(get_game(g))] for g in
             ("tictactoe", "connect_four", "othello", "gomoku", "hex", "go")}  # fmt: skip
    assert names["tictactoe"] == ["random", "winblock", "perfect"]
    assert names["connect_four"] == ["random", "winblock"]
    assert names["othello"] == ["random", "greedy"]
    assert names["gomoku"] == ["random", "winblock", "line"]
    assert names["hex"] == names["go"] == ["random", "mcts:100"]
