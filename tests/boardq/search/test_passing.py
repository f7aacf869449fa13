"""The tree search's pass (`boardq.search.passing`): searched only where it ends the game.

Go on a 4x4 board (komi 0.5), with stub networks whose values are known: one that
likes the pass best of all moves, as Go's agent does in the middle game.
"""

from __future__ import annotations

import numpy as np
import pytest
from agent_files import random_agent
from stub_nets import Linear, Preference, observation

from boardq.players.agent import Agent
from boardq.search.passing import PassToEnd
from boardq.search.tree_player import TreeConfig, TreeSearchPlayer
from boardq_games.go.rules import GoRules

GO4 = GoRules(4, 0.5)
PASS = 16
LIKES_PASSING = Preference(17, [PASS, *range(16)])  # the pass first, then a1, b1...


def position(*moves: int) -> np.ndarray:
    board = GO4.start()
    for move in moves:
        board = GO4.apply(board, move)
    return board


# White to move, two stones a side, no pass just played. White's pass here is not lost
# at once (black cannot end the game by passing back: white leads the count by komi),
# so a tree of 100 visits that searches it follows its prior and passes, though its
# searched value is below a stone's.
MIDDLE_GAME = position(PASS, 4, 9, 8, 14)


def test_the_pass_is_not_searched_while_the_game_goes_on():
    player = TreeSearchPlayer(GO4, LIKES_PASSING, visits=100, pass_action=PASS)
    obs = observation(GO4, MIDDLE_GAME)
    assert player.act(obs) != PASS
    assert np.isnan(player.q_values(obs)[PASS])
    assert PASS not in {s.action for s in player.move_stats()}


def test_searched_like_any_move_the_pass_the_network_likes_is_played():
    """What `pass_to_end` is for: the same tree with the pass searched gives the game away."""
    player = TreeSearchPlayer(
        GO4, LIKES_PASSING, visits=100, config=TreeConfig(pass_to_end=False), pass_action=PASS
    )
    obs = observation(GO4, MIDDLE_GAME)
    assert player.act(obs) == PASS
    best_stone = max(s.value for s in player.move_stats() if s.action != PASS and s.visits > 1)
    assert player.q_values(obs)[PASS] < best_stone


def test_after_the_opponents_pass_a_won_count_ends_the_game():
    black_ahead = position(5, PASS)  # one black stone owns the board; white passed
    player = TreeSearchPlayer(GO4, Preference(17, list(range(17))), visits=50, pass_action=PASS)
    obs = observation(GO4, black_ahead)
    assert player.act(obs) == PASS
    assert player.q_values(obs)[PASS] == 1.0


def test_after_the_opponents_pass_a_lost_count_plays_on():
    # Black captured white's corner stone and passed: 3 stones to white's 2 and komi 0.5.
    white_behind = position(5, 0, 1, 15, 4, 14, PASS)
    player = TreeSearchPlayer(GO4, LIKES_PASSING, visits=50, pass_action=PASS)
    obs = observation(GO4, white_behind)
    assert player.q_values(obs)[PASS] == -1.0  # searched: it ends the game, lost
    assert player.act(obs) != PASS


# Black holds columns a-b (8 points), white c-d (8) and komi 0.5; white to move. Nothing
# is left between the colours, but neither side's groups are unconditionally alive:
# black may still invade white's column d, so white's pass is not searched.
SETTLED = position(1, 2, 5, 6, 9, 10, 13, 14, 0)
# Both sides' groups have two eyes, white to move and ahead by komi: nothing is left to
# play, nothing can be taken.
TWO_EYES_EACH = position(PASS, 1, 8, 3, 9, 4, 10, 5, 11, 6, 13, 7, 15)


def test_on_a_settled_board_the_pass_waits_for_groups_that_cannot_be_taken():
    assert GO4.settled(SETTLED) and not GO4.settled(MIDDLE_GAME)
    assert not GO4.safe_to_pass(SETTLED)
    assert not PassToEnd(GO4, PASS).legal_mask(SETTLED)[PASS]
    player = TreeSearchPlayer(GO4, LIKES_PASSING, visits=100, pass_action=PASS)
    obs = observation(GO4, SETTLED)
    assert player.act(obs) != PASS
    assert np.isnan(player.q_values(obs)[PASS])


def test_where_the_movers_groups_are_unconditionally_alive_the_pass_is_searched():
    assert GO4.safe_to_pass(TWO_EYES_EACH)
    assert PassToEnd(GO4, PASS).legal_mask(TWO_EYES_EACH)[PASS]
    player = TreeSearchPlayer(GO4, LIKES_PASSING, visits=100, pass_action=PASS)
    obs = observation(GO4, TWO_EYES_EACH)
    assert player.act(obs) == PASS  # rather than a stone in its own eye
    assert not np.isnan(player.q_values(obs)[PASS])


def go_position(rules: GoRules, rows: list[str]) -> np.ndarray:
    """Black to move (X), white's stones O, no pass just played."""
    board = rules.start()
    board[: rules.points] = [{"X": 1, "O": -1, ".": 0}[c] for row in rows for c in row]
    return board


def test_a_group_that_can_still_be_taken_is_not_passed_away():
    """Black leads the count by 37.5 with a group in white's corner counted alive; white
    takes it by capturing A8 (B9 is a false eye), so a pass there loses it."""
    rules = GoRules(9, 7.5)
    board = go_position(
        rules,
        [".X.XOX.X.", "XXXOOXXXX", "OOOOOX...", "....OX...", "OOOOOX...", *["XXXXXXXXX"] * 4],
    )
    assert rules.settled(board) and rules.score(board) == 37.5
    likes_passing = Preference(82, [81, *range(81)])
    player = TreeSearchPlayer(rules, likes_passing, visits=200, pass_action=81)
    assert player.act(observation(rules, board)) != 81


def test_in_seki_the_tree_may_pass_rather_than_fill_a_shared_liberty():
    """5x5: black's chain (eye A5) and white's (eye E5) share C3, which neither can fill
    but by putting its own chain in atari; black leads the count by 3.5. The only moves
    besides the pass are C3 and black's own eye, both suicidal."""
    rules = GoRules(5, 0.5)
    board = go_position(rules, [".XXO.", "XXXOO", "XX.OO", "XXXOO", "XXXOO"])
    assert np.flatnonzero(rules.legal_mask(board)).tolist() == [0, 12, 25]
    knows_nothing = Linear(rules)
    knows_nothing.w[:] = knows_nothing.b[:] = 0.0
    player = TreeSearchPlayer(rules, knows_nothing, visits=400, pass_action=25)
    assert player.act(observation(rules, board)) == 25
    assert not rules.settled(board) and rules.safe_to_pass(board)


def test_rules_that_cannot_tell_a_safe_pass_search_it_only_to_end_the_game():
    class Unjudged:  # Go's rules but for the safe passes
        def __init__(self, rules):
            self.rules = rules

        def __getattr__(self, name):
            if name == "safe_to_pass":
                raise AttributeError(name)
            return getattr(self.rules, name)

    assert not PassToEnd(Unjudged(GO4), PASS).legal_mask(TWO_EYES_EACH)[PASS]


def test_a_forced_pass_is_played():
    stones = []
    for point in range(1, 15):  # white fills the board but for two eyes; black passes
        stones += [PASS, point]
    board = position(*stones)
    assert np.flatnonzero(GO4.legal_mask(board)).tolist() == [PASS]  # the eyes are suicide
    assert np.flatnonzero(PassToEnd(GO4, PASS).legal_mask(board)).tolist() == [PASS]
    player = TreeSearchPlayer(GO4, Preference(17, list(range(17))), visits=50, pass_action=PASS)
    assert player.act(observation(GO4, board)) == PASS


@pytest.mark.parametrize(
    "moves, keeps_pass",
    [((), False), ((5,), False), ((5, PASS), True), ((5, PASS, 6), False)],
    ids=["start", "a-stone", "after-a-pass", "stone-after-a-pass"],
)
def test_only_the_pass_differs_from_the_rules_legal_moves(moves, keeps_pass):
    board = position(*moves)
    legal = GO4.legal_mask(board)
    searched = PassToEnd(GO4, PASS).legal_mask(board)
    assert searched[PASS] == keeps_pass
    np.testing.assert_array_equal(searched[:PASS], legal[:PASS])
    assert legal[PASS]  # the rules themselves are not changed
    assert PassToEnd(GO4, PASS).num_actions == GO4.num_actions  # the rest is the rules'


def test_a_bad_setting_is_refused():
    with pytest.raises(ValueError, match="pass_to_end must be true or false"):
        TreeConfig(pass_to_end="no")


@pytest.mark.parametrize("game, passing", [("go", 81), ("connect_four", None)])
def test_an_agents_tree_search_is_told_its_games_pass(tmp_path, game, passing):
    agent = Agent.load(random_agent(tmp_path / "agent.npz", game))
    rules = agent.searcher(visits=8).rules
    assert isinstance(rules, PassToEnd) == (passing is not None)
    assert getattr(rules, "pass_action", None) == passing
