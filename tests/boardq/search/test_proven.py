"""Proven values in the tree search: the rules by hand, then positions with known values.

Tic-tac-toe's and Connect Four's real rules; networks are numpy stubs whose calls are
counted, so where the search stops calling them is known. The exact values of the
tic-tac-toe positions come from a plain discounted negamax written here.
"""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest

from boardq.boardtext import board_from_rows as parse
from boardq.search.alphabeta import DEFAULT_DISCOUNT
from boardq.search.proven import position_value, ranked
from boardq.search.tree_player import TreeConfig, TreeSearchPlayer
from boardq_games.connect_four.rules import RULES as C4
from boardq_games.tictactoe.rules import RULES as TTT

G = DEFAULT_DISCOUNT
NAN = math.nan


class Counting:
    """A network that gives every move the same value and counts the positions it values."""

    def __init__(self, num_actions: int, value: float = 0.0, liked: tuple[int, ...] = ()):
        self.q = np.full(num_actions, value)
        self.q[list(liked)] = 0.5  # the moves it likes (a trap, where they lose)
        self.calls = 0
        self.positions = 0

    def __call__(self, planes: np.ndarray) -> np.ndarray:
        self.calls += 1
        self.positions += len(planes)
        return np.tile(self.q, (len(planes), 1))


def observation(rules, board: np.ndarray) -> dict[str, np.ndarray]:
    return {
        "observation": rules.planes_from_board(board),
        "action_mask": rules.legal_mask(board).astype(np.int8),
    }


@functools.cache
def _value(key: bytes) -> float:
    board = np.frombuffer(key, np.int8).reshape(3, 3)
    return max(exact_values(board).values())


def exact_values(board: np.ndarray) -> dict[int, float]:
    """Each legal move's discounted negamax value in tic-tac-toe (a win in k: g^(k-1))."""
    out = {}
    for a in np.flatnonzero(TTT.legal_mask(board)):
        after = TTT.apply(board, int(a))
        winner = TTT.winner(after)
        if winner != 0 or TTT.is_full(after):
            out[int(a)] = float(-winner)
        else:
            out[int(a)] = -G * _value(after.astype(np.int8).tobytes())
    return out


def check_tree(node) -> None:
    """Visits add up, no virtual loss is left, and every proof follows from the edges'."""
    assert node.visits == 1 + node.n.sum()
    assert np.all(node.vloss == 0)
    np.testing.assert_equal(node.proven, position_value(node.exact, node.partial))
    for i, child in enumerate(node.children):
        if child is not None and child.expanded:
            assert node.n[i] == child.visits
            assert node.w[i] == pytest.approx(-G * (child.value + child.w.sum()))
            assert np.isnan(node.exact[i]) != child.solved
            check_tree(child)


# --- the rules, by hand -------------------------------------------------------------------


@pytest.mark.parametrize(
    "exact, value",
    [
        ([NAN, 1.0, -1.0], 1.0),  # a win now proves a win, whatever is open
        ([G**2, NAN, G**4], G**2),  # the quickest of the wins proven
        ([-1.0, NAN], NAN),  # a loss and an open move: not proven
        ([0.0, NAN], NAN),  # a draw and an open move: not proven (the open one may win)
        ([-1.0, -G], -G),  # all lost: the slowest loss
        ([-1.0, 0.0, -(G**2)], 0.0),  # all proven, the best a draw
        ([NAN, NAN], NAN),
    ],
)
def test_a_position_s_proven_value(exact, value):
    np.testing.assert_equal(position_value(np.array(exact)), value)


def test_a_draw_one_step_up_is_zero_not_minus_zero():
    assert math.copysign(1.0, position_value(np.array([-G * 0.0, -1.0]))) == 1.0


def test_the_order_of_play():
    n = np.array([10, 3, 5, 2])
    # Proven won: the quickest win, whatever the visits; open moves before losses.
    exact = np.array([NAN, G**2, 1.0, -1.0])
    means = np.array([0.1, G**2, 1.0, -1.0])
    assert ranked(exact, n, means, solved=True).tolist() == [2, 1, 0, 3]
    # Open: the most visited not proven lost; proven losses last.
    exact = np.array([-G, NAN, NAN, NAN])
    means = np.array([-G, 0.2, 0.1, 0.3])
    assert ranked(exact, n, means, solved=False).tolist() == [2, 1, 3, 0]
    # A proven draw beside open moves: those expected to do worse than 0 go after it.
    exact = np.array([NAN, 0.0, NAN, -1.0])
    means = np.array([-0.3, 0.0, 0.1, -1.0])
    assert ranked(exact, n, means, solved=False).tolist() == [2, 1, 0, 3]


# --- positions with known values ----------------------------------------------------------

C4_WIN_NOW = [".......", ".......", ".......", ".......", "OOO....", "XXX...."]
C4_OPEN_THREE = [".......", ".......", ".......", ".......", "..OO...", "..XX..."]
TTT_FORK = ["XO.", ".X.", "..O"]  # X wins in 3 with the middle left or the bottom left
TTT_LOST = ["...", "..O", "XXO"]  # O threatens the right column; a block only delays
TTT_DRAWN = ["...", ".O.", "XXO"]  # X must block the diagonal at the top left
TTT_OPENING = ["X..", ".O.", "..."]  # drawn; about 1,200 visits prove it


def test_a_win_now_is_proven_with_one_call_of_the_network():
    board = parse(C4_WIN_NOW)
    net = Counting(7, liked=(4, 5, 6))  # it likes every move but the win
    player = TreeSearchPlayer(C4, net, visits=800)
    assert player.act(observation(C4, board)) == 3
    assert net.calls == 1 and player.root.visits == 1  # the root's scan proved it
    assert player.root.proven == 1.0 and player.stats.solved == 1
    (best, *_) = player.move_stats()
    assert (best.action, best.value, best.proven, best.pv) == (3, 1.0, True, (3,))


@pytest.mark.parametrize(
    "rules, rows, wins, value",
    [(TTT, TTT_FORK, {TTT.cell_action(1, 0), TTT.cell_action(2, 0)}, G**2)]
    + [(C4, C4_OPEN_THREE, {1, 4}, G**2)],
    ids=["ttt-fork", "c4-open-three"],
)
def test_a_win_in_three_is_proven_and_the_search_stops(rules, rows, wins, value):
    board = parse(rows)
    net = Counting(rules.num_actions)
    player = TreeSearchPlayer(rules, net, visits=100_000)
    move = player.act(observation(rules, board))
    assert move in wins
    root = player.root
    assert root.solved and root.proven == pytest.approx(value)
    assert root.visits < 1_000  # proven long before its visits were spent
    assert player.stats.solved == 1
    best = player.move_stats()[0]
    assert best.action == move and best.proven and best.value == pytest.approx(value)
    assert len(best.pv) == 3  # the win, a reply, the winning move
    check_tree(root)
    # Proven: more time adds no call of the network and no visit.
    calls, visits = net.calls, root.visits
    player.analyse(observation(rules, board), 10.0)
    assert net.calls == calls and root.visits == visits


def test_a_lost_position_plays_the_slowest_loss():
    board = parse(TTT_LOST)
    exact = exact_values(board)
    assert max(exact.values()) < 0  # every move loses
    block = max(exact, key=exact.get)
    net = Counting(9, liked=tuple(a for a in exact if a != block))  # the quick losses liked
    player = TreeSearchPlayer(TTT, net, visits=5_000)
    move = player.act(observation(TTT, board))
    assert TTT.legal_mask(board)[move] and move == block
    root = player.root
    assert root.solved and root.proven == pytest.approx(exact[block])  # -g^3: lost in 4
    values = player.q_values(observation(TTT, board))
    for a, v in exact.items():
        assert values[a] == pytest.approx(v)
    assert all(s.proven for s in player.move_stats())
    check_tree(root)


@pytest.mark.parametrize("visits", [10, 15, 20, 25])
def test_a_proven_loss_is_not_played_while_another_move_is_open(visits):
    # O threatens the middle row; the network likes the bottom right, which loses at once.
    board = parse(["X..", "OO.", "X.."])
    player = TreeSearchPlayer(TTT, Counting(9, liked=(TTT.cell_action(2, 2),)), visits=visits)
    move = player.act(observation(TTT, board))
    root = player.root
    played = int(np.flatnonzero(root.actions == move)[0])
    assert not root.solved and not root.exact[played] < 0
    # The liked move had its visits before its loss was proven: more than the move played.
    lost = root.exact < 0
    assert lost.any() and root.n[lost].max() >= root.n[played]
    assert [s.proven for s in player.move_stats()][-int(lost.sum()) :] == [True] * lost.sum()


def test_a_draw_is_proven_in_tic_tac_toe():
    board = parse(TTT_DRAWN)
    exact = exact_values(board)
    net = Counting(9, liked=tuple(a for a, v in exact.items() if v < 0))
    player = TreeSearchPlayer(TTT, net, visits=100_000, config=TreeConfig(leaves_per_call=4))
    move = player.act(observation(TTT, board))
    assert exact[move] == 0.0
    root = player.root
    assert root.solved and root.proven == 0.0 and root.visits < 1_000
    values = player.q_values(observation(TTT, board))
    for a, v in exact.items():
        assert values[a] == pytest.approx(v)
    check_tree(root)


@pytest.mark.parametrize("leaves", [1, 8])
def test_visits_add_up_while_lines_are_proven(leaves):
    # A drawn opening: 600 visits prove many lines (about 200 nodes), not the whole game.
    net = Counting(9)
    config = TreeConfig(leaves_per_call=leaves)
    player = TreeSearchPlayer(TTT, net, visits=600, config=config)
    player.act(observation(TTT, parse(TTT_OPENING)))
    root = player.root
    assert root.visits == 600 and player.stats.visits == 600
    assert not root.solved and proven_nodes(root) > 100
    check_tree(root)


def proven_edges(node) -> list[tuple[object, int, int]]:
    """(node, edge, visits) of every proven edge in the subtree."""
    out = [(node, i, int(node.n[i])) for i in np.flatnonzero(~np.isnan(node.exact))]
    for child in node.children:
        if child is not None and child.expanded:
            out += proven_edges(child)
    return out


def test_proven_edges_draw_no_more_visits():
    ticks = iter(range(10**6))
    player = TreeSearchPlayer(
        TTT, Counting(9), visits=300, clock=lambda: next(ticks) / 64, config=TreeConfig()
    )
    obs = observation(TTT, parse(TTT_OPENING))
    player.act(obs)
    before = proven_edges(player.root)
    assert len(before) > 20 and not player.root.solved
    visits = player.root.visits
    player.analyse(obs, 0.25)  # 16 more calls of the network
    assert player.root.visits > visits + 50
    assert all(node.n[edge] == n for node, edge, n in before)


def proven_nodes(node) -> int:
    below = [c for c in node.children if c is not None and c.expanded]
    return int(node.solved) + sum(proven_nodes(c) for c in below)


def test_the_kept_tree_matches_a_fresh_one_with_proofs():
    # Without a scan (a kept root is scanned only once it is the root), one leaf a call.
    config = TreeConfig(leaves_per_call=1, scan_plies=0)
    board = parse(TTT_OPENING)
    kept = TreeSearchPlayer(TTT, Counting(9), visits=600, config=config)
    kept.act(observation(TTT, board))
    root = kept.root
    child = root.children[root.best_edge()]
    node = child.children[child.best_edge()]
    assert 1 < node.visits < 600 and proven_nodes(node) > 0
    kept.act(observation(TTT, node.board))
    fresh = TreeSearchPlayer(TTT, Counting(9), visits=600, config=config)
    fresh.act(observation(TTT, node.board))
    assert_same_tree(kept.root, fresh.root)


def assert_same_tree(a, b) -> None:
    np.testing.assert_array_equal(a.n, b.n)
    np.testing.assert_allclose(a.w, b.w, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(a.exact, b.exact)
    np.testing.assert_equal(a.proven, b.proven)
    for x, y in zip(a.children, b.children, strict=True):
        assert (x is None or not x.expanded) == (y is None or not y.expanded)
        if x is not None and x.expanded:
            assert_same_tree(x, y)


class PassLast:
    """A game whose pass the tree leaves out where it neither ends the game nor is forced.

    A position is [stage, passes, result] (result: +1 if the next mover has won, -1 lost).
    At the start the mover (A) plays 0, into B's turn, or loses at once by 1 or the pass.
    There B loses by 0 or 1, but B's pass wins: A then loses by 0 or 1, and by passing
    back (the second pass loses). So A's 0 is a loss, and the start is lost for A.
    """

    num_actions = 3
    PASS = 2

    def start(self) -> np.ndarray:
        return np.zeros(3, np.int8)

    def apply(self, board: np.ndarray, action: int) -> np.ndarray:
        stage, passes, _ = board.tolist()
        if stage == 0:
            return np.array([1, 0, 0] if action == 0 else [0, 0, 1], np.int8)
        if action == self.PASS and passes == 0:
            return np.array([1, 1, 0], np.int8)
        return np.array([1, passes, 1], np.int8)  # the mover lost

    def legal_mask(self, board: np.ndarray) -> np.ndarray:
        return np.ones(3, bool)

    def winner(self, board: np.ndarray) -> int:
        return int(board[2])

    def is_full(self, board: np.ndarray) -> bool:
        return False

    def planes_from_board(self, board: np.ndarray) -> np.ndarray:
        return np.asarray(board, np.int8)

    def board_from_planes(self, planes: np.ndarray, legal=None) -> np.ndarray:
        return np.asarray(planes, np.int8).copy()

    def key(self, board: np.ndarray) -> bytes:
        return np.asarray(board, np.int8).tobytes()


def test_a_position_whose_pass_was_left_out_is_not_proven_lost():
    """B's 0 and 1 lose, and the tree left B's pass out: that is no proof of B's loss, nor
    of A's win by 0 (the pass wins for B)."""
    rules = PassLast()
    player = TreeSearchPlayer(rules, Counting(3), visits=60, pass_action=PassLast.PASS)
    player.act(observation(rules, rules.start()))
    root = player.root
    b_turn = root.children[0]
    assert b_turn.expanded and list(b_turn.actions) == [0, 1]  # the pass left out
    assert np.all(b_turn.exact == -1.0)  # both of B's searched moves lose
    assert not b_turn.solved
    assert not root.solved and player.stats.solved == 0
    assert math.isnan(root.exact[0])
    assert not any(s.proven and s.value > 0 for s in player.move_stats())
    check_tree(root)


def test_a_position_whose_pass_was_left_out_is_still_proven_won():
    """A win among the searched moves is a win, whatever the pass left out would do."""
    assert position_value(np.array([1.0, NAN]), partial=True) == 1.0
    assert math.isnan(position_value(np.array([-1.0, 0.0]), partial=True))
    assert position_value(np.array([-1.0, 0.0])) == 0.0
