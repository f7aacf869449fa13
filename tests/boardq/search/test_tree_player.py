"""The tree search on positions with known answers, with deterministic stub networks.

The stubs are numpy functions with the network's interface (planes [B, ...] -> Q [B, A]),
so every value the network gives is known. No TensorFlow; the time is a fake clock.
"""

from __future__ import annotations

import numpy as np
import pytest
from stub_nets import TTT_FORK, FakeClock, Linear, Preference, observation
from stub_nets import first_position as start

from boardq.boardtext import board_from_rows as parse
from boardq.players.opponents import PerfectPlayer
from boardq.search.alphabeta import DEFAULT_DISCOUNT
from boardq.search.proven import position_value
from boardq.search.tree_player import TreeConfig, TreeSearchPlayer
from boardq_games.connect_four.rules import RULES as C4
from boardq_games.go.rules import GoRules
from boardq_games.tictactoe.rules import RULES as TTT

G = DEFAULT_DISCOUNT
GO4 = GoRules(4, 0.5)


def disliking(rules, board, liked: list[int], spread: float = 0.8) -> Preference:
    """A network that likes `liked` best, the other legal moves after them."""
    legal = [int(a) for a in np.flatnonzero(rules.legal_mask(board))]
    return Preference(rules.num_actions, liked + [a for a in legal if a not in liked], spread)


def check_tree(node, g: float = G) -> int:
    """Asserts the counts, sums and proofs of `node`'s subtree add up; returns its nodes."""
    assert node.visits == 1 + node.n.sum()
    assert np.all(node.vloss == 0)
    assert -1.0 <= node.value <= 1.0  # the network's within [-g, g]; a scanned win 1
    assert np.all(np.abs(node.means()) <= 1.0)
    assert node.prior.sum() == pytest.approx(1.0)
    partial = getattr(node, "partial", False)  # the pass left out: only a win proven
    np.testing.assert_equal(node.proven, position_value(node.exact, partial))  # NaN: open
    nodes = 1
    for i, child in enumerate(node.children):
        proven = not np.isnan(node.exact[i])
        if proven:
            assert node.means()[i] == node.exact[i]
        if proven and child is None:  # the game ended
            assert node.exact[i] in (-1.0, 0.0, 1.0)
            assert node.w[i] == node.n[i] * node.exact[i]  # exact: no discount, no error
        elif child is not None and child.expanded:
            assert node.n[i] == child.visits
            assert node.w[i] == pytest.approx(-g * (child.value + child.w.sum()))
            assert proven == child.solved
            if proven:
                assert node.exact[i] == -g * child.proven
            nodes += check_tree(child, g)
        else:
            assert node.n[i] == 0 and not proven
    return nodes


# --- known answers ----------------------------------------------------------------------------

# X (to move) forks with middle-left or bottom-left; the network prefers the top-right cell.
# X at the bottom, columns 3-4 (display 2-3): columns 1 or 4 make an open three.
C4_OPEN_THREE = [".......", ".......", ".......", ".......", "..OO...", "..XX..."]


class Neutral(Preference):
    """A network that values every move 0: the search alone finds what is won."""

    def __init__(self, num_actions: int) -> None:
        super().__init__(num_actions, [])


def test_a_forced_win_is_found():
    board = parse(TTT_FORK)
    net = Neutral(9)
    perfect = PerfectPlayer(TTT).values(observation(TTT, board))
    player = TreeSearchPlayer(TTT, net, visits=400)
    move = player.act(observation(TTT, board))
    assert perfect[move] == 1
    assert player.q_values(observation(TTT, board))[move] > 0.9  # won in 3: g^2 along the line


def test_the_connect_four_open_three_is_played():
    board = parse(C4_OPEN_THREE)
    net = Neutral(7)
    move = TreeSearchPlayer(C4, net, visits=1500).act(observation(C4, board))
    assert move in (1, 4)


def test_a_win_now_is_played_whatever_the_network_likes():
    # X wins now on the bottom row (bottom left), or later after blocking O's top row.
    board = parse(["OO.", "...", ".XX"])
    win_now = TTT.cell_action(2, 0)
    net = disliking(TTT, board, [a for a in range(9) if a != win_now])
    player = TreeSearchPlayer(TTT, net, visits=20)  # the root's moves are all tried
    assert player.act(observation(TTT, board)) == win_now
    assert player.q_values(observation(TTT, board))[win_now] == 1.0


@pytest.mark.parametrize(
    "rules, rows, losing",
    [
        # O threatens the middle row; X must block on its right.
        (TTT, ["X..", "OO.", "X.."], None),
        # O holds three in the second row from the bottom: dropping into column 4 (index
        # 4) lets O complete it on top at once.
        (C4, [".......", ".......", ".......", ".......", "XOOO...", "XXXO..."], [4]),
    ],
)
def test_a_move_that_loses_at_once_is_avoided(rules, rows, losing):
    board = parse(rows)
    if losing is None:  # tic-tac-toe: every move but the block loses
        block = TTT.cell_action(1, 2)
        losing = [int(a) for a in np.flatnonzero(rules.legal_mask(board)) if a != block]
    net = disliking(rules, board, losing, spread=0.3)  # the losers the network's favourites
    config = TreeConfig(scan_plies=2)  # the replies' wins known before they are tried
    player = TreeSearchPlayer(rules, net, visits=200, config=config)
    assert player.act(observation(rules, board)) not in losing
    root = player.root
    best = root.means()[root.best_edge()]
    tried = [i for i, a in enumerate(root.actions) if a in losing and root.n[i]]
    assert tried and all(root.means()[i] < best for i in tried)
    neutral = TreeSearchPlayer(rules, Neutral(rules.num_actions), visits=200)
    assert neutral.act(observation(rules, board)) not in losing


def test_a_move_that_ends_the_game_has_its_exact_value():
    # X wins now at the bottom left; the bottom middle... every cell but two is taken.
    board = parse(["XOX", "OOX", ".X."])  # X to move: (2, 0) draws, (2, 2) wins the column
    win, draw = TTT.cell_action(2, 2), TTT.cell_action(2, 0)
    player = TreeSearchPlayer(TTT, Preference(9, [draw, win]), visits=50)
    values = player.q_values(observation(TTT, board))
    assert values[win] == 1.0
    assert player.act(observation(TTT, board)) == win
    # Drawn at once when X takes the other cell: O's reply fills the board... (value known)
    assert -1.0 <= values[draw] <= 1.0
    check_tree(player.root)


def test_a_full_board_is_a_draw_worth_zero():
    board = parse(["XOX", "XOO", "OX."])  # X's last move fills the board without a line
    player = TreeSearchPlayer(TTT, Preference(9, [8]), visits=10)
    assert player.q_values(observation(TTT, board))[8] == 0.0


def test_go_passes_are_moves_like_any_other():
    passing = 16
    black_ahead = GO4.apply(GO4.apply(GO4.start(), 5), passing)  # black's pass ends it, won
    net = Preference(17, list(range(16)) + [passing])  # the network likes passing least
    player = TreeSearchPlayer(GO4, net, visits=100)
    assert player.act(observation(GO4, black_ahead)) == passing
    assert player.q_values(observation(GO4, black_ahead))[passing] == 1.0
    check_tree(player.root)


# --- the tree's counts and values ------------------------------------------------------------


@pytest.mark.parametrize("leaves", [1, 8])
@pytest.mark.parametrize("rules", [TTT, C4, GO4], ids=["ttt", "c4", "go4"])
def test_visits_and_values_add_up(rules, leaves):
    player = TreeSearchPlayer(
        rules, Linear(rules), visits=300, config=TreeConfig(leaves_per_call=leaves)
    )
    player.act(observation(rules, start(rules)))
    assert player.root.visits == 300
    assert player.stats.visits == 300
    assert check_tree(player.root) > 1
    stats = player.move_stats()
    assert sum(s.visits for s in stats) == 299
    assert [s.visits for s in stats] == sorted((s.visits for s in stats), reverse=True)
    assert all(s.pv[0] == s.action for s in stats)
    assert sum(s.prior for s in stats) == pytest.approx(1.0)


class FailsOnce:
    """A network that raises on its `fail_on`-th call, and only then."""

    def __init__(self, net, fail_on: int) -> None:
        self.net, self.fail_on, self.calls = net, fail_on, 0

    def __call__(self, planes: np.ndarray) -> np.ndarray:
        self.calls += 1
        if self.calls == self.fail_on:
            raise RuntimeError("the network failed")
        return self.net(planes)


def pending(node) -> int:
    """The nodes of `node`'s subtree still marked as waiting for the network."""
    count = int(node.pending)
    for child in node.children if node.expanded else ():
        if child is not None:
            count += pending(child)
    return count


@pytest.mark.parametrize("fail_on", [2, 5])
@pytest.mark.parametrize("rules, passing", [(TTT, None), (GO4, 16)], ids=["ttt", "go4-pass-to-end"])
def test_a_failed_network_call_leaves_the_kept_tree_whole(rules, passing, fail_on):
    """The error reaches the caller; the leaves that were waiting give back their virtual
    losses and marks, so the same player searches on with exact counts."""
    net = FailsOnce(Linear(rules), fail_on)
    player = TreeSearchPlayer(rules, net, visits=200, pass_action=passing, clock=FakeClock(0.001))
    obs = observation(rules, start(rules))
    with pytest.raises(RuntimeError, match="the network failed"):
        player.act(obs)
    assert player.root is not None and player.root.visits > 0
    assert pending(player.root) == 0
    check_tree(player.root)
    move = player.act(obs, seconds=10.0)  # the visits first, long before the time
    assert obs["action_mask"][move]
    assert player.root.visits == 200
    assert pending(player.root) == 0
    check_tree(player.root)


def test_leaves_go_to_the_network_in_batches():
    sizes = []
    linear = Linear(C4)

    def net(planes):
        sizes.append(len(planes))
        return linear(planes)

    player = TreeSearchPlayer(C4, net, visits=201, config=TreeConfig(leaves_per_call=8))
    player.act(observation(C4, start(C4)))
    assert sizes[0] == 1 and max(sizes) == 8  # the root alone, then up to 8 leaves a call
    assert sum(sizes) <= 201 and len(sizes) < 40  # a few collisions end a gathering early
    assert player.stats.leaves == sum(sizes) and player.stats.calls == len(sizes)


def test_a_forced_move_is_played_at_once():
    board = parse(["XOX", "OOX", "XX."])  # one empty cell
    player = TreeSearchPlayer(TTT, Neutral(9), move_time=100.0, clock=FakeClock(1.0))
    assert player.act(observation(TTT, board)) == TTT.cell_action(2, 2)
    assert player.stats.calls == 1 and player.root.visits == 1


def test_one_visit_plays_the_networks_choice():
    net = Linear(C4)
    board = start(C4)
    player = TreeSearchPlayer(C4, net, visits=1)
    q = net(C4.planes_from_board(board)[None])[0]
    assert player.act(observation(C4, board)) == int(np.argmax(q))
    assert player.stats.calls == 1


# --- bad settings -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"visits": 0}, "visits must be"),
        ({"visits": -3}, "visits must be"),
        ({"visits": 2.5}, "visits must be"),
        ({"visits": True}, "visits must be"),
        ({"move_time": 0}, "seconds > 0"),
        ({"move_time": -1.0}, "seconds > 0"),
        ({"move_time": float("nan")}, "seconds > 0"),
        ({"move_time": float("inf")}, "seconds > 0"),
        ({}, "visits or a time"),
        ({"visits": 10, "move_time": 1.0}, "visits or a time"),
    ],
)
def test_bad_settings_are_refused_in_one_line(kwargs, message):
    with pytest.raises(ValueError, match=message) as e:
        TreeSearchPlayer(TTT, Preference(9, list(range(9))), **kwargs)
    assert "\n" not in str(e.value)


@pytest.mark.parametrize(
    "kwargs",
    [{"c_puct": 0}, {"temperature": float("nan")}, {"temperature": -1}, {"leaves_per_call": 0}],
)
def test_bad_tree_configs_are_refused(kwargs):
    with pytest.raises(ValueError, match="must be"):
        TreeConfig(**kwargs)


def test_bad_seconds_for_a_move_are_refused():
    player = TreeSearchPlayer(TTT, Preference(9, list(range(9))), visits=5)
    with pytest.raises(ValueError, match="seconds"):
        player.act(observation(TTT, start(TTT)), seconds=float("nan"))
    with pytest.raises(ValueError, match="seconds"):
        player.analyse(observation(TTT, start(TTT)), 0)
