"""Board symmetries and augmentation: real positions map to real positions, and the
one-gather fast path gives the same batches as the plain one."""

from __future__ import annotations

import numpy as np
import pettingzoo
import pytest

from boardq.dqn.schema import FIELDS, empty_columns
from boardq.symmetry import (
    DIHEDRAL,
    HALF_TURN,
    PermutationAugment,
    Symmetry,
    augment,
    board_symmetries,
    make_augmenter,
)
from boardq_games import get_game

GAMES = ["tictactoe", "connect_four"]


def chunk(n, obs_shape=(3, 3, 2), num_actions=9):
    batch = empty_columns(n, obs_shape, num_actions)
    batch["action"][:] = np.arange(n) % num_actions
    return batch


@pytest.mark.parametrize("name", ["tictactoe", "connect_four"])
def test_symmetries_map_real_positions_to_real_positions(name):
    """The image of a real position's planes has the image of its legal moves."""
    game = get_game(name)
    env = pettingzoo.make("aec", game.env_id)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for a in [4, 0, 5] if name == "tictactoe" else [3, 3, 2, 6]:
        env.step(a)
    o = env.observe(env.agent_selection)
    assert len(game.symmetries) == (8 if name == "tictactoe" else 2)
    for sym in game.symmetries:
        planes = sym.planes(o["observation"][None])[0]
        mask = game.rules.legal_mask(game.rules.board_from_planes(planes))
        np.testing.assert_array_equal(mask[sym.action_map], o["action_mask"].astype(bool))
        # Playing the mapped move in the image equals mapping the played position.
        a = int(rng.choice(np.flatnonzero(o["action_mask"])))
        after = game.rules.apply(game.rules.board_from_planes(o["observation"]), a)
        after_image = game.rules.apply(game.rules.board_from_planes(planes), sym.action_map[a])
        np.testing.assert_array_equal(
            game.rules.board_from_planes(sym.planes(game.rules.planes_from_board(after)[None])[0]),
            after_image,
        )


def test_augment_maps_actions_and_masks_together():
    game = get_game("tictactoe")
    batch = chunk(64)
    batch["next_mask"][:] = False
    batch["next_mask"][:, 1] = True  # only move 1 is legal next
    batch["next_obs"][:, 1 // 3, 1 % 3, 0] = 1  # and a piece marks square 1
    out = augment(
        {k: v.copy() for k, v in batch.items()}, game.symmetries, np.random.default_rng(3)
    )
    for i in range(64):
        (legal,) = np.flatnonzero(out["next_mask"][i])
        (marked,) = np.flatnonzero(out["next_obs"][i, :, :, 0].ravel())
        assert legal == marked  # the legal move follows the marked square


@pytest.mark.parametrize("game_name", GAMES)
def test_permutation_augment_equals_augment(game_name, random_batch):
    game = get_game(game_name)
    fast = PermutationAugment(game.symmetries, game.obs_shape)
    for seed in range(5):
        rng_a, rng_b = np.random.default_rng(seed), np.random.default_rng(seed)
        want = augment(random_batch(game, 64, seed), game.symmetries, rng_a)
        got = fast(random_batch(game, 64, seed), rng_b)
        for key in FIELDS:
            assert got[key].dtype == want[key].dtype and got[key].shape == want[key].shape
            np.testing.assert_array_equal(got[key], want[key])
        assert rng_a.random() == rng_b.random()  # the same draws were made


def test_board_symmetries_of_a_square_and_of_a_pass():
    """A 2x2 board with a pass action: the quarter turn moves cells, never the pass."""
    grid = np.arange(4).reshape(2, 2)
    syms = board_symmetries(DIHEDRAL, grid, extra_actions=1)
    assert len(syms) == 8
    assert syms[0].action_map.tolist() == [0, 1, 2, 3, 4]
    for sym in syms:
        assert sym.action_map[4] == 4
        planes = np.zeros((1, 2, 2, 1), np.int8)
        planes[0, 0, 1, 0] = 1  # a piece on cell 1
        image = sym.planes(planes)[0, :, :, 0]
        # Where cell 1's piece went, cell 1's move went.
        assert image.ravel()[sym.action_map[1]] == 1
    half = board_symmetries(HALF_TURN, grid)
    assert half[1].action_map.tolist() == [3, 2, 1, 0]


def test_make_augmenter_picks_the_fast_path_where_it_applies(random_batch):
    game = get_game("tictactoe")
    assert isinstance(make_augmenter(game.symmetries, game.obs_shape), PermutationAugment)
    odd = [game.symmetries[0], Symmetry(lambda p: 1 - p, np.arange(9))]
    assert PermutationAugment.try_build(odd, game.obs_shape) is None
    slow = make_augmenter(odd, game.obs_shape)
    rng_a, rng_b = np.random.default_rng(0), np.random.default_rng(0)
    got = slow(random_batch(game, 16, 1), rng_a)
    want = augment(random_batch(game, 16, 1), odd, rng_b)
    for key in FIELDS:
        np.testing.assert_array_equal(got[key], want[key])
    same = make_augmenter(game.symmetries[:1], game.obs_shape)
    batch = random_batch(game, 4, 2)
    assert same(batch, rng_a) is batch
