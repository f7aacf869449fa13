"""The alpha-beta search given a time per move (iterative deepening), with stub networks.

The stubs are numpy functions with the network's interface (planes [B, ...] -> Q [B, A]),
so every choice the network would make is known exactly. No TensorFlow.
"""

from __future__ import annotations

import numpy as np
import pytest
from stub_nets import (
    TTT_FORK,
    FakeClock,
    Linear,
    Preference,
    first_position,
    observation,
    random_position,
)

from boardq.boardtext import board_from_rows as parse
from boardq.search.alphabeta import DEFAULT_DISCOUNT, Search, SearchPlayer
from boardq_games.connect_four.rules import RULES as C4
from boardq_games.go.rules import GoRules
from boardq_games.hex.rules import HexRules
from boardq_games.tictactoe.rules import RULES as TTT

G = DEFAULT_DISCOUNT
GO4 = GoRules(4, 0.5)
HEX4 = HexRules(4)


# --- a time per move --------------------------------------------------------------------------


@pytest.mark.parametrize("rules", [TTT, C4, GO4, HEX4], ids=["ttt", "c4", "go4", "hex4"])
def test_the_root_cut_picks_the_move_and_value_the_exact_search_does(rules):
    # Alpha-beta at the root (only the best move exact) against every root move exact.
    rng = np.random.default_rng(3)
    net = Linear(rules, seed=5)
    for _ in range(8):
        board = random_position(rules, rng, 6)
        for depth in (2, 3):
            exact = Search(rules, net, depth).values(board)
            order = Search(rules, net, 1).values(board)
            cut = Search(rules, net, depth).values(board, exact_root=False, order=order)
            legal = ~np.isnan(exact)
            assert np.array_equal(~np.isnan(cut), legal)
            best = np.nanmax(exact)
            assert np.nanmax(cut) == pytest.approx(best)
            assert exact[int(np.nanargmax(cut))] == pytest.approx(best)
            # The others: upper bounds of their values that do not beat the best.
            assert np.all(exact[legal] <= cut[legal] + 1e-12)
            assert np.all(cut[legal] <= best + 1e-12)


def test_a_time_per_move_goes_deep_enough_for_the_forced_win():
    board = parse(TTT_FORK)
    legal = np.flatnonzero(TTT.legal_mask(board))
    preferred = TTT.cell_action(0, 2)
    net = Preference(9, [preferred] + [a for a in legal if a != preferred])
    player = SearchPlayer(TTT, net, move_time=5.0)
    move = player.act(observation(TTT, board))
    forced = Search(TTT, net, 3).values(board)
    assert forced[move] == pytest.approx(G**2)  # the fork, not the network's favourite
    assert player.depth >= 3 and player.describe() == "search of 5 s a move"
    # Hints from the same search object are exact for every move.
    hints = player.q_values(observation(TTT, board))
    np.testing.assert_allclose(hints[legal], Search(TTT, net, player.depth).values(board)[legal])


def test_a_move_keeps_to_its_time_and_goes_deeper_with_more():
    from boardq.search.alphabeta import TimedSearch

    board = first_position(C4)
    reached = {}
    for seconds in (0.05, 0.5):
        clock = FakeClock(0.001)  # a millisecond a node
        search = TimedSearch(C4, Linear(C4), seconds, clock=clock)
        values = search.values(board)
        # A depth past the time is abandoned at its next node: one reading of the clock.
        assert clock.now <= seconds + 2 * clock.step + 1e-9, (seconds, clock.now)
        assert np.count_nonzero(~np.isnan(values)) == 7
        reached[seconds] = search.last_depth
    assert 1 <= reached[0.05] < reached[0.5]
    # The deepest depth finished is a whole search of that depth.
    search = TimedSearch(C4, Linear(C4), 0.5, clock=FakeClock(0.001))
    values = search.values(board, exact_root=True)
    assert search.last_depth > 1
    np.testing.assert_allclose(values, Search(C4, Linear(C4), search.last_depth).values(board))


@pytest.mark.parametrize("seconds", [0, -1.0, float("nan"), float("inf")])
def test_a_time_per_move_must_be_positive_seconds(seconds):
    with pytest.raises(ValueError, match="time per move"):
        SearchPlayer(TTT, Preference(9, list(range(9))), move_time=seconds)


def test_a_search_takes_a_depth_or_a_time_not_both():
    net = Preference(9, list(range(9)))
    for kwargs in ({}, {"depth": 2, "move_time": 1.0}):
        with pytest.raises(ValueError, match="a depth or a time per move"):
            SearchPlayer(TTT, net, **kwargs)


def test_a_timed_search_stops_once_every_line_ends_the_game():
    from boardq.search.alphabeta import TimedSearch

    # Two empty cells: at depth 2 the network still values the position after the
    # mover's move; at depth 3 every line ends on a full board, and the search stops.
    board = parse(["XOX", "OXO", "O.."])
    net = Preference(9, list(range(9)))
    search = TimedSearch(TTT, net, 10.0)
    values = search.values(board)
    assert search.last_depth == 3
    np.testing.assert_allclose(values, Search(TTT, net, 6).values(board))
