"""The tree search over an agent with a policy head: the policy as the priors, its
expectation of Q as a leaf's value (`TreeConfig.prior`, `boardq.search.tree`)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from boardq.config import NetworkConfig
from boardq.dqn.networks import build_q_network
from boardq.dqn.sampling import policy_probabilities, split_heads
from boardq.players.agent import Agent
from boardq.players.agentfile import export_agent
from boardq.search.searchers import NoPolicyError
from boardq.search.spec import SearchSpec
from boardq.search.tree import Node, TreeConfig, grow
from boardq_games import get_game

GAME = get_game("tictactoe")
A = GAME.num_actions


def test_a_policys_logits_give_the_priors_and_the_value_is_their_expectation_of_q():
    q = np.array([0.5, -0.2, 2.0, 0.1])
    legal = np.array([True, True, True, False])
    logits = np.array([0.0, math.log(2.0), 0.0, 100.0])  # the illegal move's counts nowhere
    node = Node(np.zeros(4))
    node.expand(q, legal, TreeConfig(), 0.9, logits)
    np.testing.assert_allclose(node.prior, [0.25, 0.5, 0.25], rtol=1e-12)
    np.testing.assert_allclose(node.q0, [0.5, -0.2, 0.9])  # clipped to the discount
    # 0.25 * 0.5 + 0.5 * (-0.2) + 0.25 * 0.9, by hand
    assert node.value == pytest.approx(0.25, abs=1e-12)
    # Without a policy: softmax(Q / T) and the best Q, as before.
    plain = Node(np.zeros(4))
    plain.expand(q, legal, TreeConfig(temperature=0.5), 0.9)
    want = np.exp(np.array([0.5, -0.2, 0.9]) / 0.5)
    np.testing.assert_allclose(plain.prior, want / want.sum(), rtol=1e-12)
    assert plain.value == 0.9


def test_with_a_policy_a_win_found_by_the_scan_is_the_positions_value():
    rules = GAME.rules
    board = np.zeros((3, 3), np.int8)
    for move in (0, 3, 1, 4):  # the mover (X) wins at 2
        board = rules.apply(board, move)

    def uniform(planes):
        n = len(planes)
        return np.full((n, A), -0.5), np.zeros((n, A))  # Q says lost, the policy is flat

    root = Node(board)
    grow(root, rules, uniform, TreeConfig(), 0.9, leaves=1)
    assert root.value == 1.0 and root.solved
    assert root.best_edge() == int(np.flatnonzero(root.actions == 2)[0])


def _model(network: NetworkConfig, seed: int):
    model = build_q_network(GAME.obs_shape, A, network)
    rng = np.random.default_rng(seed)
    model.set_weights([rng.normal(0, 0.5, w.shape).astype(np.float32) for w in model.weights])
    return model


def _start():
    env = GAME.make_env()
    env.reset(seed=0)
    env.step(4)
    obs = env.observe(env.agent_selection)
    return {"observation": obs["observation"], "action_mask": obs["action_mask"]}


def test_an_agent_with_a_policy_head_searches_with_its_policy_as_the_trees_priors(tmp_path):
    network = NetworkConfig(hidden_units=(16,), policy_head=True)
    model = _model(network, 0)
    path = export_agent(tmp_path / "p.npz", "tictactoe", network, GAME.obs_shape, A,
                        model.get_weights())  # fmt: skip
    agent = Agent.load(path, inference="numpy")
    assert agent.has_policy
    seen = _start()
    planes, mask = seen["observation"][None], seen["action_mask"][None].astype(bool)
    q, logits = split_heads(model(planes).numpy(), A)
    pi = policy_probabilities(logits, mask)[0]
    got_q, got_logits = agent.policy_batch(planes)
    np.testing.assert_allclose(got_q, q, atol=1e-5)
    np.testing.assert_allclose(got_logits, logits, atol=1e-5)

    tree = agent.player(SearchSpec.tree_search(visits=40))
    tree.act(seen)
    priors = {m.action: m.prior for m in tree.move_stats()}
    assert set(priors) == set(np.flatnonzero(mask[0]))
    for action, prior in priors.items():
        assert prior == pytest.approx(pi[action], abs=1e-5)
    # prior="q" keeps the old priors, softmax(Q / T), for the same agent.
    config = TreeConfig(prior="q")
    old = agent.player(SearchSpec.tree_search(visits=40, config=config))
    old.act(seen)
    legal = np.flatnonzero(mask[0])
    q0 = np.clip(q[0, legal].astype(np.float64), -agent_discount(agent), agent_discount(agent))
    want = np.exp((q0 - q0.max()) / config.temperature)
    want = dict(zip(legal.tolist(), want / want.sum(), strict=True))
    for m in old.move_stats():
        assert m.prior == pytest.approx(want[m.action], abs=1e-4)


def agent_discount(agent: Agent) -> float:
    return agent._searchers.discount


def test_the_policy_asked_of_an_agent_without_one_is_refused_in_one_line(tmp_path):
    network = NetworkConfig(hidden_units=(16,))
    model = _model(network, 1)
    path = export_agent(tmp_path / "q.npz", "tictactoe", network, GAME.obs_shape, A,
                        model.get_weights())  # fmt: skip
    agent = Agent.load(path, inference="numpy")
    assert not agent.has_policy
    with pytest.raises(NoPolicyError, match="--policy-head") as e:
        agent.player(SearchSpec.tree_search(visits=10, config=TreeConfig(prior="policy")))
    assert "\n" not in str(e.value)
    # "auto" (the default) plays as before: priors from Q.
    assert agent.player(SearchSpec.tree_search(visits=10)).act(_start()) in range(A)
    with pytest.raises(ValueError, match="prior must be one of"):
        TreeConfig(prior="network")


def test_a_symmetric_agents_policy_is_the_same_in_every_image_of_the_position(tmp_path):
    network = NetworkConfig(hidden_units=(16,), policy_head=True)
    path = export_agent(tmp_path / "s.npz", "tictactoe", network, GAME.obs_shape, A,
                        _model(network, 2).get_weights())  # fmt: skip
    agent = Agent.load(path, symmetric=True, inference="numpy")
    assert agent.symmetries == 8
    planes = _start()["observation"][None].astype(np.int8)
    q, logits = agent.policy_batch(planes)
    for s in GAME.symmetries:
        q_image, logits_image = agent.policy_batch(s.planes(planes))
        # Move a of the position is move action_map[a] of its image.
        np.testing.assert_allclose(logits_image[:, s.action_map], logits, atol=1e-5)
        np.testing.assert_allclose(q_image[:, s.action_map], q, atol=1e-5)
