"""Lambda-returns: hand-computed weights and games, the batched bookkeeping against the
plain recursion, the actor's values, and a tic-tac-toe run that still learns.
"""

from __future__ import annotations

import numpy as np
import pytest

from boardq.dqn.actor import Actor
from boardq.dqn.lambda_returns import LambdaReturn, lambda_return_reference, make_lambda_return
from boardq.dqn.transitions import NStepBatch
from boardq.gamebatch import Outcome

GAMMA, LAM = 0.9, 0.5
# A five-move game: the fifth move wins (+1 to its mover); the movers' values of the
# positions after the first move, as the acting network gave them.
REWARDS = [0.0, 0.0, 0.0, 0.0, 1.0]
VALUES = [0.3, 0.5, -0.2, 0.4, -0.8]  # V(s_0) .. V(s_4); V(s_0) is never used


def test_the_weights_are_the_unrolled_recursion_by_hand():
    reward, value, tail = LambdaReturn(LAM, GAMMA).weights(3)
    # (-gamma lambda)^k; (-gamma)^k lambda^(k-1) (1 - lambda); lambda^2 (-gamma)^3
    np.testing.assert_allclose(reward, [1.0, -0.45, 0.2025], rtol=1e-12)
    np.testing.assert_allclose(value, [0.0, -0.45, 0.2025], rtol=1e-12)
    assert tail == pytest.approx(-0.18225, rel=1e-12)


def test_lambda_one_is_the_plain_n_step_return_bit_for_bit():
    reward, value, tail = LambdaReturn(1.0, GAMMA).weights(4)
    assert reward.tolist() == [(-GAMMA) ** k for k in range(4)]
    assert value.tolist() == [0.0, 0.0, 0.0, 0.0]
    assert tail == (-GAMMA) ** 4
    assert LambdaReturn(1.0, GAMMA).values(np.ones((2, 3)), np.ones((2, 3), bool)) is None


def test_the_values_are_the_best_legal_q_and_zero_without_a_move():
    q = np.array([[0.9, -0.5, 0.2], [0.1, 0.7, 0.3], [5.0, 5.0, 5.0]], np.float32)
    mask = np.array([[False, True, True], [True, False, True], [False, False, False]])
    np.testing.assert_allclose(make_lambda_return(0.5, GAMMA).values(q, mask), [0.2, 0.3, 0.0])


def _first_move_of_the_game(lam: float, n_step: int):
    """The transition of the game's first move, from NStepBatch over the whole game."""
    batch = NStepBatch(n_step, GAMMA, 1, (1,), 2, LambdaReturn(lam, GAMMA))
    chunks = []
    for t, r in enumerate(REWARDS):
        batch.record(np.full((1, 1), t, np.int8), np.array([t % 2]), np.array([VALUES[t]]))
        done = np.array([t == len(REWARDS) - 1])
        nxt = np.full((1, 1), t + 1, np.int8)
        chunks.append(batch.close(np.array([r]), done, nxt, np.ones((1, 2), bool)))
    rows = {k: np.concatenate([c[k] for c in chunks]) for k in chunks[0]}
    first = np.flatnonzero(rows["obs"][:, 0] == 0)
    assert first.size == 1
    return float(rows["reward"][first[0]]), float(rows["discount"][first[0]])


def test_a_known_game_by_hand():
    # Backwards: G4 = 1; G3 = -0.9 (0.5 V4 + 0.5 G4) = -0.09; G2 = -0.9 (0.5 V3 + 0.5 G3)
    # = -0.1395; G1 = -0.9 (0.5 V2 + 0.5 G2) = 0.152775; G0 = -0.9 (0.5 V1 + 0.5 G1).
    g, discount = _first_move_of_the_game(LAM, 5)
    assert g == pytest.approx(-0.29374875, abs=1e-7) and discount == 0.0
    # lambda 1: the Monte Carlo return, the win four moves on seen from the first mover.
    g, discount = _first_move_of_the_game(1.0, 5)
    assert g == pytest.approx(0.6561, abs=1e-7) and discount == 0.0
    # lambda 0: the one-step target r_0 - gamma V(s_1), whatever the window.
    g, discount = _first_move_of_the_game(0.0, 5)
    assert g == pytest.approx(-0.45, abs=1e-7) and discount == 0.0


def test_a_window_cut_before_the_end_bootstraps_with_the_tail_weight():
    # Three moves open, the game goes on: G = r-weights . r + -0.45 V1 + 0.2025 V2, and
    # the target network's value of s_3 enters at lambda^2 (-gamma)^3.
    g, discount = _first_move_of_the_game(LAM, 3)
    assert g == pytest.approx(-0.45 * 0.5 + 0.2025 * -0.2, abs=1e-7)
    assert discount == pytest.approx(-0.18225, abs=1e-7)


def _ids_as_planes(ids):
    return np.stack([ids // 100, ids % 100], axis=1).astype(np.int8)


def _random_play(n_step, lam, steps=60, games=6, seed=0):
    """NStepBatch over random games with cuts, and the plain recursion game by game.

    Returns the chunks it closed and, by each move's id (its planes), the reference
    lambda-return and the value its stored bootstrap stands for.
    """
    rng = np.random.default_rng(seed)
    batch = NStepBatch(n_step, GAMMA, games, (2,), 3, LambdaReturn(lam, GAMMA))
    history = [[] for _ in range(games)]  # each game's open moves: (id, reward, value)
    expected, got = {}, []
    values = rng.uniform(-1, 1, games)  # V(s) of the positions to move from now

    def close(i, moves, bootstrap):
        rs, vs = [r for _, r, _ in moves], [v for _, _, v in moves]
        g = lambda_return_reference(rs, vs, bootstrap, lam, GAMMA)
        expected[moves[0][0]] = (g, 0.0 if bootstrap is None else bootstrap)

    for step in range(steps):
        cuts = rng.random(games) < 0.15
        if cuts.any():
            got.append(batch.cut(cuts, np.zeros((games, 2), np.int8), np.ones((games, 3), bool)))
            for i in np.flatnonzero(cuts):
                for j in range(len(history[i])):
                    close(i, history[i][j:], values[i])
                history[i] = []
        ids = np.arange(step * games, (step + 1) * games)
        batch.record(_ids_as_planes(ids), ids % 3, values)
        reward = rng.choice([-1.0, 0.0, 1.0], games)
        done = rng.random(games) < 0.2
        new_values = rng.uniform(-1, 1, games)
        mask = np.ones((games, 3), bool)
        got.append(batch.close(reward, done, np.zeros((games, 2), np.int8), mask))
        for i in range(games):
            history[i].append((int(ids[i]), reward[i], values[i]))
            if done[i]:
                for j in range(len(history[i])):
                    close(i, history[i][j:], None)
                history[i] = []
            elif len(history[i]) == n_step:  # the oldest move's window is full
                close(i, history[i], new_values[i])
                history[i] = history[i][1:]
        values = new_values
    return got, expected


@pytest.mark.parametrize(("n_step", "lam"), [(1, 0.5), (3, 0.0), (4, 0.7), (5, 1.0)])
def test_the_batched_returns_are_the_recursion(n_step, lam):
    """Each closed move's stored reward + discount * (the value its bootstrap stands
    for) is its lambda-return by the recursion, through windows, game ends and cuts."""
    got, expected = _random_play(n_step, lam)
    closed = 0
    for chunk in got:
        rows = zip(chunk["obs"], chunk["reward"], chunk["discount"], strict=True)
        for obs, reward, discount in rows:
            g, bootstrap = expected[int(obs[0]) * 100 + int(obs[1])]
            assert reward + discount * bootstrap == pytest.approx(g, abs=1e-5)
            closed += 1
    assert closed == len(expected) and closed > 200


class _ChainGames:
    """M copies of a five-move game whose planes are the ply; its last move wins."""

    obs_shape, num_actions = (1,), 2

    def __init__(self, size):
        self.size = size
        self.ply = np.zeros(size, np.int64)

    def observe(self):
        return self.ply.reshape(-1, 1).astype(np.int8), np.ones((self.size, 2), bool)

    def step(self, actions):
        first = self.ply % 2 == 0
        self.ply += 1
        done = self.ply == len(REWARDS)
        self.ply[done] = 0
        return Outcome(done.astype(np.float32), done, first)


def _values_net(obs):
    """Q of each ply's position: its best move worth VALUES[ply], the other 1 less."""
    v = np.asarray(VALUES, np.float32)[obs[:, 0]]
    return np.stack([v - 1.0, v], axis=1), 0


@pytest.mark.parametrize(("lam", "first_move"), [(LAM, -0.29374875), (0.0, -0.45), (1.0, 0.6561)])
def test_the_actor_values_positions_by_its_networks_best_move(lam, first_move):
    actor = Actor(
        _ChainGames(2),
        _values_net,
        out_queue=None,
        epsilon_fn=lambda: 0.0,
        n_step=5,
        discount=GAMMA,
        seed=0,
        trace=make_lambda_return(lam, GAMMA),
    )
    chunks = [actor.step() for _ in REWARDS]
    firsts = [c["reward"][c["obs"][:, 0] == 0] for c in chunks]
    np.testing.assert_allclose(np.concatenate(firsts), [first_move] * 2, atol=1e-7)


@pytest.mark.slow  # about 35 s on two busy cores
@pytest.mark.timeout(600)
def test_tictactoe_still_learns_with_lambda_returns(tiny_config):
    """A short run on lambda-returns over four moves learns what one-step targets do
    (tests/test_learning.py): it takes immediate wins and beats random play."""
    from boardq.players.agent import Agent
    from boardq.players.evaluation import PerfectPlayer, RandomPlayer, evaluate
    from boardq.training.trainer import Trainer
    from boardq_games import get_game

    game = get_game("tictactoe")
    config = tiny_config.replace(
        n_step=4,
        td_lambda=0.8,
        actor_threads=1,
        games_per_thread=32,
        warmup_transitions=2_000,
        batch_size=128,
        hidden_units=(128, 128),
        epsilon_decay_transitions=40_000,
        budget_steps=8_000,
    )
    agent = Agent.load(Trainer(config, game).run().run_dir, game="tictactoe")
    r = evaluate(agent, RandomPlayer(seed=5), game.make_env, games_per_seat=50, seed=5)
    assert r["first/loss"] == 0.0 and r["first/win"] >= 0.9, r
    assert r["second/win"] >= 0.6, r
    # Against perfect play a draw is the best there is: a short run keeps most of them.
    r = evaluate(agent, PerfectPlayer(game.rules, seed=1), game.make_env, 20, seed=1)
    assert r["first/loss"] <= 0.2, r
