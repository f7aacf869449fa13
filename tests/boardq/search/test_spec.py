"""One value names a search (`SearchSpec`), and one factory builds every searching player.

Self-play's searched game is built by the same factory as play: over the run's pruned
rules, with the game's pass searched only where it ends the game (before, it searched
Go's mid-game pass like any move, and its targets kept it).
"""

from __future__ import annotations

import argparse

import numpy as np
import pytest
from stub_nets import Preference

from boardq.commands.args import search_spec
from boardq.pruning import PrunedRules
from boardq.search.alphabeta import SearchPlayer
from boardq.search.selfplay import make_search_moves
from boardq.search.spec import (
    NETWORK,
    SearchKind,
    SearchSpec,
    build_player,
    searched_rules,
)
from boardq.search.tree_player import TreeConfig, TreeSearchPlayer
from boardq_games import get_game

GO = get_game("go")
PASS = GO.setup.pass_action


@pytest.mark.parametrize(
    "given, kind, words, settings",
    [
        ((0, None, None), SearchKind.NETWORK, "", {}),
        ((None, None, None), SearchKind.NETWORK, "", {}),
        ((3, None, None), SearchKind.ALPHA_BETA, "depth-3 search", {"search_depth": 3}),
        ((0, 1.5, None), SearchKind.TREE, "tree search of 1.5 s a move", {"move_time_sec": 1.5}),
        ((0, None, 800), SearchKind.TREE, "tree search of 800 visits a move", {"visits": 800}),
    ],
)
def test_the_three_values_of_a_command_line_name_one_search(given, kind, words, settings):
    spec = SearchSpec.of(*given)
    assert spec.kind is kind and spec.words() == words and spec.settings() == settings
    assert spec.searches == (kind is not SearchKind.NETWORK)


def test_the_command_lines_flags_make_the_same_spec():
    args = argparse.Namespace(search=0, move_time=None, visits=200)
    assert search_spec(args) == SearchSpec.tree_search(visits=200)
    assert search_spec(argparse.Namespace(search=2)) == SearchSpec.alpha_beta(depth=2)
    assert search_spec(argparse.Namespace(search=0)) == NETWORK
    assert SearchSpec.tree_search(visits=200).flag() == "--visits"
    assert SearchSpec.tree_search(move_time=1).flag() == "--move-time"


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: SearchSpec.of(2, 1.0, None), "one of a depth, visits or a time"),
        (lambda: SearchSpec.of(0, 1.0, 50), "one of a depth, visits or a time"),
        (lambda: SearchSpec.tree_search(), "needs one of visits or move_time, got none"),
        (lambda: SearchSpec.tree_search(visits=0), "visits must be a whole number >= 1"),
        (lambda: SearchSpec.tree_search(visits=2.5), "visits must be a whole number"),
        (lambda: SearchSpec.tree_search(move_time=-1), "seconds > 0"),
        (lambda: SearchSpec.tree_search(move_time=float("nan")), "seconds > 0"),
        (lambda: SearchSpec(SearchKind.TREE, depth=2), "needs one of visits or move_time"),
        (lambda: SearchSpec(SearchKind.ALPHA_BETA, visits=9), "needs one of depth or move_time"),
        (lambda: SearchSpec(depth=2), "the network alone takes no depth"),
        (lambda: SearchSpec("tree", visits=5), "must be a SearchKind"),
    ],
)
def test_a_bad_search_is_refused_in_one_line(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_equal_specs_are_one_key_so_an_agent_keeps_one_player_of_each():
    a = SearchSpec.tree_search(visits=50, config=TreeConfig(c_puct=2.0))
    b = SearchSpec.tree_search(visits=50, config=TreeConfig(c_puct=2.0))
    assert a == b and hash(a) == hash(b)
    assert a != SearchSpec.tree_search(visits=50)


def test_the_factory_builds_each_kind_with_its_budget_and_settings():
    rules, net = GO.rules, Preference(GO.num_actions, list(range(GO.num_actions)))
    config = TreeConfig(c_puct=2.0, leaves_per_call=4)
    tree = build_player(SearchSpec.tree_search(visits=30, config=config), rules, net, 0.9, PASS)
    assert isinstance(tree, TreeSearchPlayer)
    assert (tree.visits, tree.move_time, tree.discount, tree.config) == (30, None, 0.9, config)
    timed = build_player(SearchSpec.alpha_beta(move_time=0.2), rules, net, 0.9)
    assert isinstance(timed, SearchPlayer) and timed.move_time == 0.2
    with pytest.raises(ValueError, match="network alone"):
        build_player(NETWORK, rules, net, 0.9)


def midgame_observation():
    """A 9x9 Go position in the middle of a game, black to move, nobody just passed."""
    env = GO.make_env()
    env.reset(seed=0)
    for move in (20, 60, 24, 56, 30, 50, 40, 42):
        env.step(move)
    return env.observe(env.agent_selection)


def test_self_plays_searched_game_is_built_as_play_builds_it():
    """The pass that play's search leaves out mid-game is left out of self-play's too.

    A network that likes the pass best of all moves, as Go's does in the middle game:
    self-play's tree searched the pass like any move and played it (its targets kept
    the pass's value); built by the one factory, it plays a stone.
    """
    likes_passing = Preference(GO.num_actions, [PASS, *range(PASS)])
    config = GO.preset.replace(search_visits=64, prune_moves=True)
    search = make_search_moves(config, GO, likes_passing, games=1)
    assert isinstance(search.player.rules.rules, PrunedRules)  # the run's pruning, as at play
    obs = midgame_observation()
    planes = np.asarray(obs["observation"], np.int8)[None]
    mask = np.asarray(obs["action_mask"], bool)[None]
    q = likes_passing(planes)
    chosen, targets = search.choose(planes, mask, q, np.array([8]))
    assert int(np.argmax(chosen[0])) != PASS
    assert PASS not in set(targets["action"].tolist())


def test_searched_rules_leave_the_runs_pruned_moves_out_for_both_sides():
    assert searched_rules(GO.rules, None) is GO.rules
    pruned = searched_rules(GO.rules, GO.pruned_moves)
    assert isinstance(pruned, PrunedRules)
