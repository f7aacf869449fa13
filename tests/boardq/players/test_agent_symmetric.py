"""An agent's values averaged over the board's symmetries (`symmetric`): the mirror image in
Connect Four, the eight images of Gomoku's board, by default where the agent's run chose
it, refused for games without symmetries.
"""

from __future__ import annotations

import numpy as np
import pytest
from agent_files import random_agent

from boardq import Agent
from boardq.config import NetworkConfig
from boardq.dqn.networks import build_q_network
from boardq.players.agentfile import SYMMETRIC_KEY, SYMMETRIC_LADDER, export_agent
from boardq_games import get_game


def random_positions(game_name, count, seed):
    """Planes of `count` positions after a few random moves each."""
    from boardq.vector_check import random_legal_actions

    game = get_game(game_name)
    batch, rng = game.vector(count), np.random.default_rng(seed)
    for _ in range(5):
        batch.step(random_legal_actions(batch.observe()[1], rng))
    return batch.observe()[0].copy()


BATCHES = {"rtol": 1e-5, "atol": 1e-6}
"""One position's float32 values computed in batches of other sizes or orders: a CPU's
kernels may sum the products in another order (7e-9 apart between a batch of one and
one of four on an AMD EPYC), a few units in the last place of values near 1."""


def test_symmetric_values_average_the_mirror_image_in_connect_four(tmp_path):
    path = random_agent(tmp_path / "c4.npz", "connect_four")
    plain, symmetric = Agent.load(path), Agent.load(path, symmetric=True)
    assert (plain.symmetries, symmetric.symmetries) == (1, 2)
    planes = random_positions("connect_four", 6, seed=1)
    mirrored = planes[:, :, ::-1, :]  # columns reversed: column c is column 6 - c
    want = (plain.q_batch(planes) + plain.q_batch(mirrored)[:, ::-1]) / 2
    np.testing.assert_allclose(symmetric.q_batch(planes), want, **BATCHES)
    assert not np.allclose(plain.q_batch(planes), want)  # the network alone is not symmetric


def test_an_agent_plays_averaged_by_default_when_its_run_chose_it_so(tmp_path):
    path = random_agent(tmp_path / "c4.npz", "connect_four")
    agent = Agent.load(path)
    assert (agent.chosen_symmetric, agent.symmetries) == (False, 1)
    # The best agent of a run whose ladder played it --symmetric (the preset's).
    marked = tmp_path / "best.npz"
    ladder = {"ladder": "random,winblock,mcts:100" + SYMMETRIC_LADDER}
    net = NetworkConfig(hidden_units=(16,))
    export_agent(marked, "connect_four", net, (6, 7, 2), 7, agent.weights(), ladder)
    best = Agent.load(marked)
    assert (best.chosen_symmetric, best.symmetries) == (True, 2)
    assert Agent.load(marked, symmetric=False).symmetries == 1
    planes = random_positions("connect_four", 4, seed=3)
    np.testing.assert_allclose(
        best.q_batch(planes), Agent.load(path, symmetric=True).q_batch(planes), **BATCHES
    )


def test_an_agent_file_s_symmetric_entry_says_how_it_plays_before_its_ladder(tmp_path):
    weights = Agent.load(random_agent(tmp_path / "c4.npz", "connect_four")).weights()
    net, ladder = NetworkConfig(hidden_units=(16,)), "random,winblock,mcts:100"

    def symmetries(info):
        path = export_agent(tmp_path / "a.npz", "connect_four", net, (6, 7, 2), 7, weights, info)
        agent = Agent.load(path)
        return agent.chosen_symmetric, agent.symmetries

    # A kept agent or an average of them: no ladder played it, its run chose.
    assert symmetries({SYMMETRIC_KEY: True}) == (True, 2)
    assert symmetries({SYMMETRIC_KEY: False, "ladder": ladder + SYMMETRIC_LADDER}) == (False, 1)
    assert symmetries({SYMMETRIC_KEY: True, "ladder": ladder}) == (True, 2)
    # Files written before the entry: the ladder's name says it.
    assert symmetries({"ladder": ladder + SYMMETRIC_LADDER}) == (True, 2)


def test_symmetric_values_turn_with_the_gomoku_board(tmp_path):
    symmetric = Agent.load(random_agent(tmp_path / "g.npz", "gomoku"), symmetric=True)
    assert symmetric.symmetries == 8
    planes = random_positions("gomoku", 4, seed=2)
    q = symmetric.q_batch(planes)
    # The point at (i, j) of the turned board was point grid[i, j] of the board.
    for image, grid in [
        (np.rot90(planes, 1, axes=(1, 2)), np.rot90(np.arange(81).reshape(9, 9))),
        (planes[:, ::-1], np.arange(81).reshape(9, 9)[::-1]),
    ]:
        np.testing.assert_allclose(symmetric.q_batch(image), q[:, grid.ravel()], **BATCHES)
    # q_values and act read the same averaged values.
    observation = {"observation": planes[0], "action_mask": (planes[0].sum(-1) == 0).ravel()}
    values = symmetric.q_values(observation)
    assert symmetric.act(observation) == int(np.nanargmax(values))
    legal = observation["action_mask"]
    np.testing.assert_allclose(values[legal], q[0][legal], **BATCHES)  # one position, four


def test_symmetric_needs_a_game_with_symmetries(tmp_path):
    from boardq.players.agent import NoSymmetriesError

    game = get_game("openspiel:breakthrough(rows=6,columns=6)")
    net = NetworkConfig(hidden_units=(4,))
    model = build_q_network(game.obs_shape, game.num_actions, net)
    path = export_agent(
        tmp_path / "b.npz", game.name, net, game.obs_shape, game.num_actions, model.get_weights()
    )
    assert Agent.load(path).symmetries == 1
    with pytest.raises(NoSymmetriesError, match="boardq knows none"):
        Agent.load(path, symmetric=True)
