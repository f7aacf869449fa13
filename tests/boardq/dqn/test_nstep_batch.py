"""The batched n-step returns (`NStepBatch`): the same transitions as one builder a game."""

from __future__ import annotations

import numpy as np
import pytest

from boardq.dqn.schema import FIELDS, empty_columns
from boardq.dqn.transitions import NStepBatch, NStepBuilder, stack_transitions

GAMMA = 0.9


@pytest.mark.parametrize("n_step", [1, 2, 3, 4])
def test_the_batched_builder_equals_one_builder_per_game(n_step):
    """Random games of random lengths in 5 lock-stepped slots: NStepBatch closes the
    same transitions as NStepBuilder run on each game's own sequence."""
    rng = np.random.default_rng(n_step)
    m, shape, actions = 5, (2, 2, 1), 3
    batch = NStepBatch(n_step, GAMMA, m, shape, actions)
    singles = [NStepBuilder(n_step, GAMMA, shape, actions) for _ in range(m)]
    for step in range(300):
        obs = rng.integers(-5, 5, (m, *shape)).astype(np.int8)
        move_in_both(rng, batch, singles, obs, actions, step)


def move_in_both(rng, batch, singles, obs, actions, step):
    """One random move in every game, recorded and closed by the batch and by each
    game's own builder; the two must close the same transitions."""
    m, shape = len(singles), obs.shape[1:]
    act = rng.integers(0, actions, m)
    reward = rng.choice([-1.0, 0.0, 0.0, 1.0], m)
    done = rng.random(m) < 0.15
    next_obs = rng.integers(-5, 5, (m, *shape)).astype(np.int8)
    next_mask = rng.random((m, actions)) < 0.6
    batch.record(obs, act)
    got = batch.close(reward, done, next_obs, next_mask)
    want = []
    for i in range(m):
        want += singles[i].add(obs[i], act[i], reward[i], next_obs[i], next_mask[i], done[i])
    want = stack_transitions(want) if want else empty_columns(0, shape, actions)
    assert rows(got) == rows(want), step


def rows(chunk):
    return sorted(
        tuple(np.asarray(chunk[k][i]).tobytes() for k in FIELDS)
        for i in range(len(chunk["action"]))
    )


@pytest.mark.parametrize("n_step", [2, 3, 4])
def test_the_batched_cut_equals_one_builder_per_game(n_step):
    """Random cuts among random games: NStepBatch.cut closes what NStepBuilder.cut does."""
    rng = np.random.default_rng(10 + n_step)
    m, shape, actions = 5, (2, 2, 1), 3
    batch = NStepBatch(n_step, GAMMA, m, shape, actions)
    singles = [NStepBuilder(n_step, GAMMA, shape, actions) for _ in range(m)]
    closed = 0
    for step in range(300):
        obs = rng.integers(-5, 5, (m, *shape)).astype(np.int8)
        mask = rng.random((m, actions)) < 0.6
        cuts = rng.random(m) < 0.3
        got = batch.cut(cuts, obs, mask)
        want = []
        for i in np.flatnonzero(cuts):
            want += singles[i].cut(obs[i], mask[i])
        want = stack_transitions(want) if want else empty_columns(0, shape, actions)
        assert rows(got) == rows(want), step
        closed += len(got["action"])
        move_in_both(rng, batch, singles, obs, actions, step)
    assert closed > 100  # the cuts did close returns early


@pytest.mark.parametrize("make", [NStepBuilder, lambda n, g, s, a: NStepBatch(n, g, 2, s, a)])
def test_a_return_of_no_moves_is_refused(make):
    with pytest.raises(ValueError, match="^n_step must be >= 1$"):
        make(0, GAMMA, (2, 2, 1), 3)


def test_the_batched_chunks_are_in_the_schemas_dtypes_whatever_they_are_given():
    shape, actions = (2, 2, 1), 3
    batch = NStepBatch(1, GAMMA, 2, shape, actions)
    batch.record(np.ones((2, *shape), np.int64), np.array([0, 1]))
    # Game 0 ends (terminal rows are made inside), game 1 goes on from planes of int64.
    chunk = batch.close(
        np.array([1.0, 0.0]), np.array([True, False]), np.ones((2, *shape), np.int64),
        np.array([[1, 0, 1], [0, 1, 1]]),
    )  # fmt: skip
    template = empty_columns(2, shape, actions)
    assert {k: v.dtype for k, v in chunk.items()} == {k: v.dtype for k, v in template.items()}
    np.testing.assert_array_equal(chunk["next_mask"], [[0, 1, 1], [0, 0, 0]])  # going on, ended
