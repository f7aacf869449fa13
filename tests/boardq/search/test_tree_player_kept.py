"""The tree search kept from move to move, and its time, with stub networks.

The stubs are numpy functions with the network's interface (planes [B, ...] -> Q [B, A]),
so every value the network gives is known. No TensorFlow; the time is a fake clock.
"""

from __future__ import annotations

import numpy as np
import pytest
from stub_nets import FakeClock, Linear, observation
from stub_nets import first_position as start

from boardq.boardtext import board_from_rows as parse
from boardq.search.alphabeta import DEFAULT_DISCOUNT
from boardq.search.tree_player import MoveStats, TreeConfig, TreeSearchPlayer
from boardq_games.connect_four.rules import RULES as C4
from boardq_games.go.rules import GoRules

G = DEFAULT_DISCOUNT
GO4 = GoRules(4, 0.5)


# --- the kept tree ----------------------------------------------------------------------------


def grandchild(player, rules):
    """The position two plies down the kept tree's best line, and its visits there."""
    root = player.root
    child = root.children[root.best_edge()]
    node = child.children[child.best_edge()]
    return node.board, node.visits


@pytest.mark.parametrize("rules", [C4, GO4], ids=["c4", "go4"])
def test_the_kept_tree_matches_a_fresh_one(rules):
    config = TreeConfig(leaves_per_call=1)  # one leaf a call: the order is the same
    kept = TreeSearchPlayer(rules, Linear(rules), visits=400, config=config)
    kept.act(observation(rules, start(rules)))
    board, visits = grandchild(kept, rules)
    assert 1 < visits < 400
    kept.act(observation(rules, board))
    assert kept.stats.reused == visits
    fresh = TreeSearchPlayer(rules, Linear(rules), visits=400, config=config)
    fresh.act(observation(rules, board))
    assert_same_tree(kept.root, fresh.root)


def assert_same_tree(a, b) -> None:
    np.testing.assert_array_equal(a.actions, b.actions)
    np.testing.assert_array_equal(a.n, b.n)
    np.testing.assert_allclose(a.w, b.w, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(np.isnan(a.exact), np.isnan(b.exact))
    for x, y in zip(a.children, b.children, strict=True):
        assert (x is None or not x.expanded) == (y is None or not y.expanded)
        if x is not None and x.expanded:
            assert_same_tree(x, y)


def test_a_hint_then_a_move_on_one_position_searches_once():
    net = Linear(C4)
    player = TreeSearchPlayer(C4, net, visits=100)
    obs = observation(C4, start(C4))
    values = player.q_values(obs)
    calls = player.stats.calls
    move = player.act(obs)
    assert player.stats.calls == calls
    assert player.value_of(obs, move) == values[move]


def test_a_position_not_in_the_kept_tree_starts_afresh():
    player = TreeSearchPlayer(C4, Linear(C4), visits=50)
    player.act(observation(C4, start(C4)))
    far = parse([".......", ".......", ".......", "...X...", "...O...", "..XOX.O"])
    player.act(observation(C4, far))
    assert player.stats.reused == 0 and player.root.visits == 50


def test_analyse_grows_the_kept_tree_for_the_seconds_given():
    clock = FakeClock(1 / 64)
    player = TreeSearchPlayer(C4, Linear(C4), visits=64, clock=clock)
    obs = observation(C4, start(C4))
    player.act(obs)
    before = player.root.visits
    stats = player.analyse(obs, 0.25)  # 16 reads of the clock, then it stops
    assert all(isinstance(s, MoveStats) for s in stats)
    assert player.root.visits > before
    assert sum(s.visits for s in stats) == player.root.visits - 1
    assert player.stats.reused == 0  # the same root: nothing found again


# --- time --------------------------------------------------------------------------------------


def test_a_time_per_move_is_kept_by_the_clock():
    clock = FakeClock(1 / 64)
    net = Linear(C4)
    player = TreeSearchPlayer(C4, net, move_time=0.25, clock=clock)
    player.act(observation(C4, start(C4)))
    # The deadline is read at 1/64; the root's call needs no reading; each later call
    # is preceded by one reading, the last one (at 17/64) stopping the search.
    assert clock.now == pytest.approx(17 / 64)
    assert player.stats.calls == 1 + 15


def test_seconds_given_to_a_move_replace_its_budget():
    clock = FakeClock(1 / 64)
    player = TreeSearchPlayer(C4, Linear(C4), visits=10**9, clock=clock)
    player.act(observation(C4, start(C4)), seconds=0.125)
    assert player.stats.calls == 1 + 7
