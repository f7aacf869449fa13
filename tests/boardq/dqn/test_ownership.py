"""Ownership and score targets (boardq/dqn/ownership.py): the final owners and lead of a
known Go game, the view that flips with the mover, the actor's hold that leaves the
n-step and lambda bookkeeping as it was, the symmetries, and the lever refused where
the count names no owners."""

from __future__ import annotations

import numpy as np
import pytest

from boardq.config import ConfigError
from boardq.dqn.builder import Builder
from boardq.dqn.ownership import batch_columns, make_ownership, mover_targets
from boardq.dqn.schema import FIELDS, SCHEMA, empty_columns
from boardq.gamebatch import EnvGames
from boardq.symmetry import PermutationAugment, augment
from boardq_games import get_game

GO = get_game("go")
PASS = 81


def point(row: int, col: int) -> int:
    return 9 * row + col


# Black builds a wall on column C and white one on D, black then plays G5 inside
# white's side, white passes and black passes: black made the last move (ply 20).
MOVES = [m for r in range(9) for m in (point(r, 2), point(r, 3))] + [point(4, 6), PASS, PASS]
# Black's view of the end, by hand: A-C black's (27 points), D white's (9), the stone
# at G5 black's, and the empty E-J, which touches both colours, no one's.
BLACK = np.zeros((9, 9), np.int8)
BLACK[:, :3] = 1
BLACK[:, 3] = -1
BLACK[4, 6] = 1
BLACK_LEAD = (28 - 9 - 7.5) / 81


def _go_envs(count: int) -> EnvGames:
    envs = [GO.make_env() for _ in range(count)]
    return EnvGames(envs, range(count), score=GO.setup.score, points=81, owners=GO.setup.owners)


@pytest.mark.parametrize("vectorized", [True, False])
def test_a_known_go_game_ends_with_each_points_owner_and_the_lead(vectorized):
    games = GO.vector(2, owners=True) if vectorized else _go_envs(2)
    assert games.counts_owners
    outcomes = [games.step(np.full(2, move)) for move in MOVES]
    assert all(not o.owner.any() and not o.done.any() for o in outcomes[:-1])
    last = outcomes[-1]
    assert last.done.all() and last.first_mover.all()  # black ended it
    np.testing.assert_array_equal(last.owner, np.stack([BLACK.reshape(-1)] * 2))
    np.testing.assert_allclose(last.lead, BLACK_LEAD, rtol=1e-6)
    assert BLACK_LEAD > 0 and (last.reward == 1.0).all()  # the lead's sign is the result's


def test_the_targets_view_flips_with_the_mover():
    owner = np.array([1, -1, 0], np.int8)  # the last mover's view
    ownership, score = mover_targets(owner, 0.25, final_ply=4, ply=np.array([0, 1, 3, 4]))
    np.testing.assert_array_equal(ownership, [[1, -1, 0], [-1, 1, 0], [-1, 1, 0], [1, -1, 0]])
    np.testing.assert_allclose(score, [0.25, -0.25, -0.25, 0.25])
    assert ownership.dtype == np.int8 and score.dtype == np.float32


def _settings(ownership: bool):
    return GO.preset.replace(
        actor_threads=1, games_per_thread=2, n_step=3, td_lambda=0.8, returns="plain",
        prune_moves=False, opening_plies=0, search_visits=0, pool_share=0.0,
        ownership_targets=ownership,
    )  # fmt: skip


def _play(ownership: bool):
    """The chunks of 21 moves: game 0 plays MOVES, game 1 passes twice over and over."""
    t = [0]

    def act(obs):
        q = np.zeros((2, 82), np.float32)
        q[0, MOVES[t[0]]] = 1.0
        q[1, PASS] = 1.0
        q[1, :PASS] = np.linspace(-0.5, 0.5, PASS)  # values for the lambda-return
        t[0] += 1
        return q, 0

    (actor,) = Builder(_settings(ownership), GO).make_actors(act, None, lambda: 0.0)
    chunks = [actor.step() for _ in MOVES]
    return chunks, actor


def _rows(chunks: list[dict]) -> list[tuple]:
    rows = []
    for c in chunks:
        for i in range(len(c["action"])):
            rows.append(tuple(np.asarray(c[k][i]).tobytes() for k in FIELDS))
    return sorted(rows)


def test_the_actor_labels_a_games_transitions_when_it_ends_and_changes_nothing_else():
    plain, _ = _play(ownership=False)
    held, actor = _play(ownership=True)
    assert all(set(c) == set(FIELDS) for c in plain)
    assert all(set(c) == set(FIELDS) | {"ownership", "score"} for c in held)
    # The same transitions, returns and discounts (n-step 3, lambda 0.8), arriving later:
    # game 0's 21 all with the move that ended it.
    assert _rows(held) == _rows(plain)
    assert len(held[-1]["action"]) == 21
    assert sum(len(c["action"]) for c in held[:-1]) == 10 * 2  # game 1's ten games
    assert actor._ownership.held() == 0  # game 1's newest pass is still open (n-step 3)
    last = held[-1]
    long_game = last["obs"][..., :2].any(axis=(1, 2, 3)) | (last["action"] != PASS)
    white = last["obs"][:, 0, 0, 2] == 1  # the colour plane: the mover plays white
    for i in np.flatnonzero(long_game):
        sign = -1 if white[i] else 1
        np.testing.assert_array_equal(last["ownership"][i], sign * BLACK.reshape(-1))
        assert last["score"][i] == pytest.approx(sign * BLACK_LEAD)
    assert long_game.sum() == 21 and white[long_game].sum() == 10
    # Game 1's empty board: no one's points; white, who passed last, leads by the komi.
    for c in [*held[:-1], last]:
        rows = ~long_game if c is last else np.ones(len(c["action"]), bool)
        assert not c["ownership"][rows].any()
        white_c = c["obs"][rows, 0, 0, 2] == 1
        np.testing.assert_allclose(c["score"][rows], np.where(white_c, 7.5, -7.5) / 81)


def test_without_the_lever_nothing_is_held_or_added():
    assert not GO.vector(2).counts_owners
    assert GO.vector(2).step(np.full(2, PASS)).owner is None
    hold = make_ownership(False, 4)
    chunk = empty_columns(3, GO.obs_shape, GO.num_actions)
    assert hold.hold(chunk, None, np.zeros(4)) is chunk and not hold.tags_moves
    assert batch_columns(False) == SCHEMA
    assert [c.name for c in batch_columns(True)] == [*FIELDS, "ownership", "score"]


def test_the_symmetries_move_the_owners_with_the_points():
    rng = np.random.default_rng(0)
    n = 64
    batch = empty_columns(n, GO.obs_shape, GO.num_actions, batch_columns(True))
    stones = rng.random((n, 9, 9)) < 0.3
    batch["obs"][..., 0] = stones
    batch["ownership"][:] = np.where(stones, 1, -1).reshape(n, 81)
    before = batch["ownership"].copy()
    plain = augment({k: v.copy() for k, v in batch.items()}, GO.symmetries,
                    np.random.default_rng(1), ("ownership",))  # fmt: skip
    fast = PermutationAugment(GO.symmetries, GO.obs_shape, ("ownership",))(
        {k: v.copy() for k, v in batch.items()}, np.random.default_rng(1)
    )
    for out in (plain, fast):
        owned = np.where(out["obs"][..., 0] == 1, 1, -1).reshape(n, 81)
        np.testing.assert_array_equal(out["ownership"], owned)
        assert (out["ownership"] != before).any(axis=1).sum() > n // 2  # most rows moved
    np.testing.assert_array_equal(plain["ownership"], fast["ownership"])


@pytest.mark.parametrize("name", ["connect_four", "othello"])
def test_the_lever_is_refused_in_one_line_where_the_count_names_no_owners(name):
    game = get_game(name)
    with pytest.raises(ConfigError) as error:
        Builder(game.preset.replace(ownership_targets=True), game)
    message = str(error.value)
    assert "ownership_targets" in message and name in message and "\n" not in message
