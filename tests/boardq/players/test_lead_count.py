"""The evaluated agent's final lead by boardq's count, from either colour."""

from __future__ import annotations

import pytest

from boardq.players.evaluation import evaluate, play_game
from boardq.records.count import LeadCount
from boardq_games import get_game

GO = get_game("go")
PASS = 81


class Scripted:
    """Plays its moves in order, then passes."""

    def __init__(self, moves=()):
        self.moves = list(moves)

    def act(self, observation):
        return self.moves.pop(0) if self.moves else PASS


@pytest.mark.parametrize("agent_black", [True, False])
def test_the_lead_is_the_agents_from_its_colour(agent_black):
    """Black's one stone on E5 holds the board: black leads by 81 - 7.5."""
    count = LeadCount(GO)
    black, white = Scripted([40]), Scripted()
    if agent_black:
        black = count.seat(black)
    else:
        white = count.seat(white)
    result = play_game(GO.make_env, [black, white], seed=0, observers=[count])
    assert result == 1
    lead, seat = (73.5, "first") if agent_black else (-73.5, "second")
    assert count.summary() == {"lead/games": 1.0, "lead/mean": lead, f"lead/{seat}/mean": lead}
    assert count.summary() == {"lead/games": 0.0}  # it starts over


def test_a_match_averages_both_seats():
    """Two empty boards, the agent first then second: -7.5 and +7.5 (the komi is white's)."""
    count = LeadCount(GO)
    evaluate(count.seat(Scripted()), Scripted(), GO.make_env, 1, seed=0, observers=[count])
    assert count.summary() == {
        "lead/games": 2.0,
        "lead/mean": 0.0,
        "lead/first/mean": -7.5,
        "lead/second/mean": 7.5,
    }
    # The agent's one stone, played in its first game only (black, +73.5); then white
    # on an empty board (+7.5).
    evaluate(count.seat(Scripted([40])), Scripted(), GO.make_env, 1, seed=0, observers=[count])
    summary = count.summary()
    assert summary["lead/mean"] == (73.5 + 7.5) / 2
    assert (summary["lead/first/mean"], summary["lead/second/mean"]) == (73.5, 7.5)


def test_only_games_that_count_a_margin_are_counted():
    assert LeadCount.counts(GO) and LeadCount.counts(get_game("othello"))
    assert not LeadCount.counts(get_game("connect_four"))
    assert not LeadCount.counts(get_game("hex"))
