"""Search in self-play (`search_visits`): the searched game's moves and its value targets."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

from boardq.dqn.actor import Actor
from boardq.dqn.builder import Builder
from boardq.dqn.losses import double_q_target
from boardq.search.selfplay import MIN_VISITS, make_search_moves
from boardq.settings import ConfigError
from boardq.training.trainer import Trainer
from boardq_games import get_game

TTT = get_game("tictactoe")


def zeros(planes):
    """A network that values every move 0: what the search finds, it finds by the rules."""
    return np.zeros((len(planes), TTT.num_actions), np.float32)


def position(*moves):
    """Tic-tac-toe after `moves`, as the mover's planes, legal moves and board."""
    board = TTT.rules.board_from_planes(np.zeros(TTT.obs_shape, np.int8))
    for move in moves:
        board = TTT.rules.apply(board, move)
    return TTT.rules.planes_from_board(board), TTT.rules.legal_mask(board)


def searcher(visits=64, games=2):
    config = TTT.preset.replace(search_visits=visits)
    return make_search_moves(config, TTT, zeros, games)


def choose(search, obs, mask, ply=4):
    """One step of a batch of two games whose searched (last) one is at `obs`."""
    obs2 = np.stack([np.zeros_like(obs), obs])
    mask2 = np.stack([np.ones_like(mask), mask])
    q = np.full((2, TTT.num_actions), 0.5, np.float32)
    out, targets = search.choose(obs2, mask2, q, np.array([0, ply]))
    assert search.row == 1
    np.testing.assert_array_equal(out[0], q[0])  # the other game acts on the network's values
    assert out[1].sum() == 1.0  # the searched game's row points at one move
    return int(np.argmax(out[1])), targets


def test_the_searched_game_takes_a_win_and_its_value_becomes_an_exact_target():
    # X 0, O 4, X 1, O 8: X to move wins at 2 (0-1-2 is a line whichever way the
    # board is read); O's 4-8 points at 0, which X holds.
    obs, mask = position(0, 4, 1, 8)
    move, targets = choose(searcher(), obs, mask)
    assert move == 2
    won = targets["action"] == 2
    assert won.sum() == 1 and targets["reward"][won][0] == 1.0  # the exact value of a win
    n = len(targets["action"])
    assert n >= 1 and mask[targets["action"]].all()
    assert (targets["obs"] == obs).all()
    assert (targets["discount"] == 0).all() and not targets["next_mask"].any()
    # So the learner's target for each is the search's value itself, not a bootstrap.
    ones = tf.ones((n, TTT.num_actions))
    columns = (targets["reward"], targets["discount"], ones, ones, targets["next_mask"])
    y = double_q_target(*map(tf.constant, columns))
    np.testing.assert_allclose(y.numpy(), targets["reward"])


def test_the_searched_game_blocks_and_its_targets_are_the_roots_visited_moves():
    # X 0, O 4, X 1: O to move must block at 2; the network (all zeros) cannot see it.
    obs, mask = position(0, 4, 1)
    search = searcher(visits=200)
    move, targets = choose(search, obs, mask, ply=3)
    assert move == 2
    root = search.player.root
    visited = (root.n >= MIN_VISITS) | ~np.isnan(root.exact)
    assert sorted(targets["action"]) == sorted(root.actions[visited])
    np.testing.assert_allclose(targets["reward"], root.means()[visited].astype(np.float32))
    # Not blocking loses: every other move the search proved is a loss for O.
    others = targets["reward"][targets["action"] != 2]
    assert len(others) and (others < 0).all()
    assert -1.0 <= targets["reward"].min() and targets["reward"].max() <= 1.0


def test_the_tree_is_kept_through_a_game_and_dropped_for_a_new_one():
    search = searcher(visits=200)
    move, _ = choose(search, *position(0, 4), ply=2)
    first = search.player.root
    reply = int(first.children[list(first.actions).index(move)].best_edge())
    reply = int(first.children[list(first.actions).index(move)].actions[reply])
    later = position(0, 4, move, reply)
    choose(search, *later, ply=4)  # the same game goes on: the search starts in the kept tree
    assert search.player.stats.reused > 0
    kept = search.player.root
    choose(search, *later, ply=0)  # a new game in that row (same board): a fresh tree
    assert search.player.root is not kept


def test_an_actor_adds_the_search_targets_to_its_chunk_and_plays_the_search_move():
    search = searcher(visits=32, games=4)
    actor = Actor(
        TTT.vector(4),
        lambda obs: (zeros(obs), 0),
        None,
        lambda: 0.0,
        1,
        0.9,
        seed=0,
        search=search,
    )
    targets = 0
    for _ in range(12):
        obs = actor.games.observe()[0].copy()  # the batch's own planes change as it steps
        chunk = actor.step()
        added = actor.stats.search_targets - targets
        targets = actor.stats.search_targets
        assert added >= 1  # 32 visits over at most 9 moves: some move has two
        tail = {k: v[len(v) - added :] for k, v in chunk.items()}
        assert (tail["discount"] == 0).all() and (tail["obs"] == obs[3]).all()
    assert search.searches == 12
    assert actor.stats.games >= 4  # tic-tac-toe ends within 9 moves: games restarted


def test_the_setting_is_refused_where_it_cannot_search():
    config = TTT.preset.replace(search_visits=4)
    assert make_search_moves(config.replace(search_visits=0), TTT, zeros, 4) is None
    with pytest.raises(ConfigError, match="search_visits needs a game with rules"):
        make_search_moves(config, get_game("openspiel:nim"), zeros, 4)
    with pytest.raises(ConfigError, match="has no search"):
        Builder(config, TTT).make_actors(lambda obs: (zeros(obs), 0), None, lambda: 0.0)
    assert (
        Builder(config.replace(search_visits=0), TTT)
        .make_actors(lambda obs: (zeros(obs), 0), None, lambda: 0.0)[0]
        .search
        is None
    )


def test_training_with_search_in_self_play_runs_every_actors_search(tiny_config):
    trainer = Trainer(tiny_config.replace(search_visits=4, budget_steps=30), TTT)
    result = trainer.run()
    assert not result.interrupted and result.metrics["train_steps"] == 30
    for actor in trainer.collection.actors:
        assert actor.search.searches > 0 and actor.stats.search_targets > 0
    m = trainer.collection.metrics()
    assert m["search/targets"] == sum(a.stats.search_targets for a in trainer.collection.actors)
    assert 0 < m["search/sec"] <= m["actor_step_sec"]
