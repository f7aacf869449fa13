"""The lookahead search on positions with known answers, with deterministic stub networks.

The stubs are numpy functions with the network's interface (planes [B, ...] -> Q [B, A]),
so every choice the network would make is known exactly. No TensorFlow.
"""

from __future__ import annotations

import numpy as np
import pytest
from stub_nets import TTT_FORK, Linear, Preference, observation, random_position

from boardq.boardtext import board_from_rows as parse
from boardq.dqn.policies import masked_argmax
from boardq.players.opponents import PerfectPlayer
from boardq.search.alphabeta import DEFAULT_DISCOUNT, Search, SearchPlayer
from boardq_games.connect_four.rules import RULES as C4
from boardq_games.go.rules import PASSES, GoRules
from boardq_games.hex.rules import HexRules
from boardq_games.tictactoe.rules import RULES as TTT

G = DEFAULT_DISCOUNT
GO4 = GoRules(4, 0.5)  # small boards: the plain definition visits every node
HEX4 = HexRules(4)
GO9 = GoRules(9, 7.5)


def plain_negamax_values(rules, q_batch, board, depth, g=G) -> np.ndarray:
    """The definition in `boardq.search.alphabeta`, written out without pruning or batching."""

    def value(board, action, depth):
        after = rules.apply(board, action)
        if rules.winner(after):  # seen by the next mover: -1 when the move won
            return float(-rules.winner(after))
        if rules.is_full(after):
            return 0.0
        if depth == 1:
            q = q_batch(rules.planes_from_board(board)[None])[0]
            return float(np.clip(q[action], -g, g))
        legal = np.flatnonzero(rules.legal_mask(after))
        return -g * max(value(after, int(b), depth - 1) for b in legal)

    values = np.full(rules.num_actions, np.nan)
    for action in np.flatnonzero(rules.legal_mask(board)):
        values[action] = value(board, int(action), depth)
    return values


# --- known answers ----------------------------------------------------------------------------

# X (to move) forks with middle-left or bottom-left; the network prefers the top-right cell.
# X at the bottom, columns 3-4 (display 2-3): columns 1 or 4 make an open three that O
# can block on one side only. The network prefers column 6.
C4_OPEN_THREE = [".......", ".......", ".......", ".......", "..OO...", "..XX..."]


@pytest.mark.parametrize(
    "rules, rows, preferred",
    [(TTT, TTT_FORK, TTT.cell_action(0, 2)), (C4, C4_OPEN_THREE, 6)],
)
def test_a_forced_win_in_three_plies_is_found_against_the_networks_taste(rules, rows, preferred):
    board = parse(rows)
    legal = np.flatnonzero(rules.legal_mask(board))
    net = Preference(rules.num_actions, [preferred] + [a for a in legal if a != preferred])
    # The forced wins: every reply leaves a winning move.
    forced = set()
    for action in legal:
        after = rules.apply(board, int(action))
        replies = [rules.apply(after, int(r)) for r in np.flatnonzero(rules.legal_mask(after))]
        if all(
            any(rules.winner(rules.apply(r, int(w))) for w in np.flatnonzero(rules.legal_mask(r)))
            for r in replies
        ):
            forced.add(int(action))
    assert forced and preferred not in forced
    assert SearchPlayer(rules, net, 1).act(observation(rules, board)) == preferred
    values = Search(rules, net, 3).values(board)
    assert int(np.nanargmax(values)) in forced
    for action in forced:
        assert values[action] == pytest.approx(G**2)  # a win two moves later
    assert all(values[a] < G**2 for a in legal if a not in forced)


def test_the_fork_search_agrees_with_perfect_play():
    board = parse(TTT_FORK)
    values = Search(TTT, Preference(9, list(range(9))), 3).values(board)
    perfect = PerfectPlayer(TTT).values(observation(TTT, board))
    assert set(np.flatnonzero(values == G**2)) == set(np.flatnonzero(perfect == 1))


@pytest.mark.parametrize(
    "rules, rows, losing",
    [
        # O threatens the middle row; X must block on its right.
        (TTT, ["X..", "OO.", "X.."], None),
        # O holds three in the second row from the bottom: dropping into column 4 (index
        # 4) lets O complete it on top at once. The network likes column 4 best.
        (C4, [".......", ".......", ".......", ".......", "XOOO...", "XXXO..."], 4),
    ],
)
def test_a_move_that_loses_at_once_is_avoided(rules, rows, losing):
    board = parse(rows)
    legal = [int(a) for a in np.flatnonzero(rules.legal_mask(board))]
    if losing is None:  # tic-tac-toe: every move but the block loses
        block = TTT.cell_action(1, 2)
        losers = [a for a in legal if a != block]
    else:
        losers = [losing]
    net = Preference(rules.num_actions, losers + [a for a in legal if a not in losers])
    assert SearchPlayer(rules, net, 1).act(observation(rules, board)) == losers[0]
    for depth in (2, 3):
        values = Search(rules, net, depth).values(board)
        assert int(np.nanargmax(values)) not in losers
        for action in losers:
            assert values[action] == pytest.approx(-G)  # lost on the reply
        assert all(values[a] > -G for a in legal if a not in losers)


def test_an_immediate_win_beats_a_later_one_and_any_network_value():
    # X wins now on the bottom row (bottom left), or later after blocking O's top row at
    # the top right; the network values the top right far beyond any real value.
    board = parse(["OO.", "...", ".XX"])
    win_now, win_later = TTT.cell_action(2, 0), TTT.cell_action(0, 2)
    perfect = PerfectPlayer(TTT).values(observation(TTT, board))
    assert perfect[win_now] == perfect[win_later] == 1
    net = Preference(9, [win_later] + [a for a in range(9) if a not in (win_now, win_later)])
    net.q[win_later] = 5.0
    for depth in (1, 2, 3, 4):
        values = Search(TTT, net, depth).values(board)
        assert values[win_now] == 1.0
        assert SearchPlayer(TTT, net, depth).act(observation(TTT, board)) == win_now
        assert values[win_later] < 1.0
    assert Search(TTT, net, 1).values(board)[win_later] == G  # clipped to the discount


def test_a_loss_comes_as_late_as_possible():
    # O threatens the top row; blocking it at the top right only delays the loss (O then
    # forks through the centre), every other move loses on the reply. The network likes
    # the losing moves best.
    board = parse(["OO.", "X..", "X.."])
    block = TTT.cell_action(0, 2)
    legal = [int(a) for a in np.flatnonzero(TTT.legal_mask(board))]
    assert np.all(PerfectPlayer(TTT).values(observation(TTT, board))[legal] == -1)
    net = Preference(9, [a for a in legal if a != block] + [block])
    values = Search(TTT, net, 4).values(board)
    assert values[block] == pytest.approx(-(G**3))  # lost four moves from now
    assert all(values[a] == pytest.approx(-G) for a in legal if a != block)
    assert SearchPlayer(TTT, net, 4).act(observation(TTT, board)) == block


# --- depth 1 and the plain definition --------------------------------------------------------


@pytest.mark.parametrize("rules", [TTT, C4])
def test_depth_one_is_the_networks_greedy_choice_where_no_move_ends_the_game(rules):
    rng = np.random.default_rng(1)
    net = Linear(rules)
    checked = 0
    for _ in range(150):
        board = random_position(rules, rng, 4 if rules is TTT else 20)
        legal = np.flatnonzero(rules.legal_mask(board))
        ends = [a for a in legal if plain_negamax_values(rules, net, board, 1)[a] in (0.0, 1.0)]
        q = net(rules.planes_from_board(board)[None])[0]
        values = Search(rules, net, 1).values(board)
        if ends:
            assert all(values[a] in (0.0, 1.0) for a in ends)
            continue
        np.testing.assert_allclose(values[legal], q[legal])
        player = SearchPlayer(rules, net, 1)
        assert player.act(observation(rules, board)) == masked_argmax(q, rules.legal_mask(board))
        checked += 1
    assert checked > 50


@pytest.mark.parametrize(
    "rules, depths, count",
    [(TTT, (1, 2, 3, 4), 12), (C4, (1, 2, 3), 12), (GO4, (1, 2, 3), 12), (HEX4, (1, 2, 3), 12),
     (GO9, (1, 2), 2)],
    ids=["tictactoe", "connect_four", "go 4x4", "hex 4x4", "go 9x9"],
)  # fmt: skip
def test_alpha_beta_gives_the_plain_negamax_values(rules, depths, count):
    rng = np.random.default_rng(2)
    net = Linear(rules, seed=3)
    for _ in range(count):
        board = random_position(rules, rng, 12)
        for depth in depths:
            np.testing.assert_allclose(
                Search(rules, net, depth).values(board),
                plain_negamax_values(rules, net, board, depth),
                rtol=0,
                atol=1e-12,
            )


# --- batching, pruning, the player ----------------------------------------------------------


def test_leaves_go_to_the_network_in_batches():
    net = Preference(7, list(range(7)))
    search = Search(C4, net, 3)
    search.values(np.zeros((6, 7), np.int8))
    # Depth 3 from the opening: each of the 7 first moves sends its 7 replies at once.
    assert net.batch_sizes == [7] * 7
    assert search.stats.leaves == 49 and search.stats.batches == 7


def test_alpha_beta_prunes_at_depth_four():
    net = Linear(C4, seed=4)
    search = Search(C4, net, 4)
    search.values(np.zeros((6, 7), np.int8))
    full_tree = 1 + 7 + 49 + 343  # positions expanded without pruning
    assert search.stats.nodes < full_tree
    assert search.stats.batches <= 49 and search.stats.leaves > search.stats.batches


def test_the_player_searches_once_per_position():
    net = Preference(9, list(range(9)))
    player = SearchPlayer(TTT, net, 2)
    obs = observation(TTT, parse(["X..", ".O.", "..."]))
    values = player.q_values(obs)
    calls = len(net.batch_sizes)
    assert player.act(obs) == int(np.nanargmax(values))
    assert len(net.batch_sizes) == calls
    assert np.isnan(values[[0, 4]]).all() and not np.isnan(values[1])


@pytest.mark.parametrize("depth", [0, -1, 1.5, True, "2"])
def test_bad_depths_are_refused(depth):
    with pytest.raises(ValueError, match="search depth"):
        Search(TTT, Preference(9, list(range(9))), depth)


@pytest.mark.parametrize("discount", [0.0, -0.5, 1.5])
def test_bad_discounts_are_refused(discount):
    with pytest.raises(ValueError, match="discount"):
        Search(TTT, Preference(9, list(range(9))), 2, discount)


# --- games where the move that ends the game can lose: Go's second pass --------------------


def test_a_pass_that_ends_a_won_count_is_a_win_and_one_that_lets_it_end_lost_a_loss():
    rules, passing = GO4, 16
    prefers_pass = Preference(17, [passing] + list(range(16)))
    # Black has played a stone and white passed: black's pass ends the game, its one
    # stone holding the whole board.
    black_ahead = rules.apply(rules.apply(rules.start(), 5), passing)
    assert black_ahead[PASSES] == 1
    assert Search(rules, prefers_pass, 1).values(black_ahead)[passing] == 1.0
    assert SearchPlayer(rules, prefers_pass, 2).act(observation(rules, black_ahead)) == passing
    # White to move after black's stone: a pass lets black pass back and win the count,
    # so two plies ahead white's pass is worth -g and any stone more.
    white_behind = rules.apply(rules.start(), 5)
    values = Search(rules, prefers_pass, 2).values(white_behind)
    assert values[passing] == pytest.approx(-G)
    assert int(np.nanargmax(values)) != passing
    assert SearchPlayer(rules, prefers_pass, 1).act(observation(rules, white_behind)) == passing
