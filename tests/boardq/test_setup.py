"""A game's count and setup in one home: `Game.setup`, checked against its other parts."""

from __future__ import annotations

import math

import pytest

from boardq.catalog import game_names, get_game
from boardq.setup import MAX_KOMI, Setup


@pytest.mark.parametrize("name", game_names())
def test_each_games_setup_agrees_with_its_moves(name):
    game = get_game(name)
    setup = game.setup
    if game.gtp is not None:  # the pass GTP names is the game's pass
        assert game.gtp.pass_action == setup.pass_action
    if setup.pass_action is not None:
        assert setup.pass_action == game.num_actions - 1
    for stones, points in setup.handicap.items():
        assert len(set(points)) == stones and setup.pass_action not in points


def test_go_is_counted_with_its_komi_and_set_up_with_its_stones():
    go = get_game("go").setup
    assert go.komi == 7.5 and go.score is not None and sorted(go.handicap) == list(range(2, 10))
    assert go.handicap_points(2) == (
        get_game("go").gtp.action("G7"),
        get_game("go").gtp.action("C3"),
    )
    go.check("Go", komi=0.5, handicap=9)
    go.check("Go", komi=-MAX_KOMI)
    for komi, message in [(math.nan, "a number"), (MAX_KOMI + 1, "within 1000")]:
        with pytest.raises(ValueError, match=message):
            go.check("Go", komi=komi)
    with pytest.raises(ValueError, match="Go places 2-9 handicap stones, not 1"):
        go.check("Go", handicap=1)


def test_games_without_komi_or_stones_say_so():
    othello = get_game("othello").setup
    assert othello.komi is None and othello.score is not None and not othello.handicap
    with pytest.raises(ValueError, match="Othello has no komi"):
        othello.check("Othello", komi=6.5)
    with pytest.raises(ValueError, match="Hex has no handicap stones"):
        get_game("hex").setup.check("Hex", handicap=2)
    assert Setup() == get_game("tictactoe").setup


def test_go_set_up_with_another_komi_counts_and_records_with_it():
    from boardq.play.match import Match
    from boardq.records import GameLog, to_sgf
    from boardq.records.count import LeadCount

    go = get_game("go")
    half = go.with_komi(0.5)
    assert go.with_komi(None) is go and go.with_komi(7.5) is go
    assert half.setup.komi == 0.5 and go.setup.komi == 7.5 and "komi=0.5" in half.openspiel.name
    match, log, lead = Match(half), GameLog(half), LeadCount(half)
    lead.new_game()
    lead.agent_moves()  # the agent is black
    for action in (40, 81, 81):  # E5, then both pass: black's 81 points against komi 0.5
        match.play(action)
        log.add(action)
        lead.moved(action, match.result())
    assert half.setup.score(match.env) == 80.5 and match.result() == 1
    record = log.record(match.result())
    assert record.settings["komi"] == 0.5 and record.result_text == "B+80.5"
    assert b"KM[0.5]" in to_sgf(record) and lead.leads == [80.5]
    with pytest.raises(ValueError, match="Othello has no komi"):
        get_game("othello").with_komi(6.5)


def test_the_note_of_another_komi_names_both():
    note = get_game("go").setup.komi_note("Go", 0.5)
    assert note == "the agent learnt Go with komi 7.5; it plays on, the games counted with komi 0.5"
