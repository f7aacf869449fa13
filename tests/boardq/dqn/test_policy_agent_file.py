"""Agents with a policy head: their files, the policy read back, and self-play that
samples from pi' through the builder's wiring.
"""

from __future__ import annotations

import numpy as np
import pytest

from boardq.config import NetworkConfig
from boardq.dqn.actor import Actor
from boardq.dqn.builder import Builder
from boardq.dqn.networks import build_q_network
from boardq.dqn.sampling import PolicySampling, policy_probabilities, split_heads
from boardq.errors import AgentFileError
from boardq.players.agent import Agent
from boardq.players.agentfile import (
    averaged_weights,
    export_agent,
    q_arrays,
    read_agent,
    read_header,
    read_policy,
)
from boardq.players.forward import policy_pass
from boardq_games import get_game

GAME = get_game("tictactoe")
A = GAME.num_actions
NET = NetworkConfig(hidden_units=(16,), policy_head=True)


def _model(seed: int):
    model = build_q_network(GAME.obs_shape, A, NET)
    rng = np.random.default_rng(seed)
    model.set_weights([rng.normal(0, 0.5, w.shape).astype(np.float32) for w in model.weights])
    return model


def _positions(count=20, seed=0):
    env = GAME.make_env()
    rng = np.random.default_rng(seed)
    planes, masks = [], []
    for _ in range(count):
        env.reset(seed=int(rng.integers(2**31)))
        for _ in range(rng.integers(0, 5)):
            mask = env.observe(env.agent_selection)["action_mask"]
            env.step(int(rng.choice(np.flatnonzero(mask))))
        obs = env.observe(env.agent_selection)
        planes.append(obs["observation"])
        masks.append(obs["action_mask"].astype(bool))
    return np.asarray(planes, np.int8), np.asarray(masks)


def test_a_file_with_a_policy_plays_by_its_q_network_and_gives_its_policy(tmp_path):
    model = _model(0)
    path = export_agent(
        tmp_path / "a.npz", "tictactoe", NET, GAME.obs_shape, A, model.get_weights()
    )
    header, weights = read_agent(path)
    assert header["policy"] == {"arrays": 2} and "policy_head" not in header["network"]
    assert len(weights) == q_arrays(NET) == 4
    planes, masks = _positions()
    q, logits = split_heads(model(planes).numpy(), A)
    # The agent loads as any agent (its Q-network alone) and values as the Q head does.
    agent = Agent.load(path, game="tictactoe", inference="numpy")
    for p, m, row in zip(planes, masks, q, strict=True):
        got = agent.q_values({"observation": p, "action_mask": m.astype(np.int8)})
        np.testing.assert_allclose(got[m], row[m], atol=1e-5)
    # The policy: the policy head's softmax over the legal moves.
    probs = policy_pass(path)(planes, masks)
    np.testing.assert_allclose(probs, policy_probabilities(logits, masks), atol=1e-6)
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, atol=1e-6)
    assert np.all(probs[~masks] == 0.0)
    assert len(read_policy(path)[2]) == 2


def test_a_policy_asked_of_a_file_without_one_is_refused_in_one_line(tmp_path):
    plain = NetworkConfig(hidden_units=(16,))
    model = build_q_network(GAME.obs_shape, A, plain)
    path = export_agent(
        tmp_path / "q.npz", "tictactoe", plain, GAME.obs_shape, A, model.get_weights()
    )
    assert "policy" not in read_header(path)
    for ask in (read_policy, policy_pass):
        with pytest.raises(AgentFileError, match="carries no policy") as e:
            ask(path)
        assert "\n" not in str(e.value)


def test_averaged_agents_keep_their_policy(tmp_path):
    models = [_model(s) for s in (1, 2)]
    paths = [
        export_agent(tmp_path / f"{i}.npz", "tictactoe", NET, GAME.obs_shape, A, m.get_weights())
        for i, m in enumerate(models)
    ]
    weights, _ = averaged_weights(paths)
    assert len(weights) == q_arrays(NET) + 2
    mean = [(a + b) / 2 for a, b in zip(*(m.get_weights() for m in models), strict=True)]
    for got, want in zip(weights, mean, strict=True):
        np.testing.assert_allclose(got, want, atol=1e-6)
    out = export_agent(tmp_path / "avg.npz", "tictactoe", NET, GAME.obs_shape, A, weights)
    assert len(read_policy(out)[2]) == 2


def test_self_play_with_a_policy_head_samples_legal_moves_from_pi_prime():
    cfg = GAME.preset.replace(hidden_units=(16,), policy_head=True, games_per_thread=64)
    builder = Builder(cfg, GAME)
    play = builder.make_play()
    assert isinstance(play, PolicySampling) and (play.alpha, play.beta) == (0.03, 0.1)
    model = _model(3)
    seen = []

    def act(obs):
        out = model(obs).numpy()
        seen.append(out)
        return out, 0

    actor = Actor(
        builder.make_games(64, 0), act, None, lambda: 1.0, 1, cfg.discount, seed=0, play=play
    )
    for _ in range(30):
        chunk = actor.step()
        # The moves closed are legal where they were made (the planes mark taken cells).
        taken = chunk["obs"].reshape(len(chunk["action"]), -1, 2).sum(axis=2)
        assert np.all(taken[np.arange(len(taken)), chunk["action"]] == 0)
    assert all(out.shape == (64, 2 * A) for out in seen)
    assert actor.stats.moves == 30 * 64


def _immediate_wins(rules, count=30, seed=0):
    """Positions where the player to move can win at once: (planes, mask, winning moves)."""
    rng = np.random.default_rng(seed)
    found, seen = [], set()
    while len(found) < count:
        board = np.zeros((rules.rows, rules.cols), np.int8)
        for _ in range(rng.integers(3, 7)):
            after = rules.apply(board, int(rng.choice(np.flatnonzero(rules.legal_mask(board)))))
            if rules.winner(after) != 0 or rules.is_full(after):
                break
            board = after
        legal = np.flatnonzero(rules.legal_mask(board))
        wins = [a for a in legal if rules.winner(rules.apply(board, a)) == -1]  # the mover's
        if wins and rules.key(board) not in seen:
            seen.add(rules.key(board))
            found.append((rules.planes_from_board(board), rules.legal_mask(board), wins))
    return found


@pytest.mark.slow  # about 40 s on two busy cores
@pytest.mark.timeout(600)
def test_tictactoe_learns_with_moves_sampled_from_its_policy(tiny_config):
    """Self-play by pi' alone (no epsilon) still learns tic-tac-toe, and the policy head
    learns too: it puts nearly all its weight on an immediate win."""
    from boardq.players.evaluation import RandomPlayer, evaluate
    from boardq.training.trainer import Trainer

    config = tiny_config.replace(
        policy_head=True,
        actor_threads=1,
        games_per_thread=32,
        warmup_transitions=2_000,
        batch_size=128,
        hidden_units=(128, 128),
        budget_steps=8_000,
    )
    run_dir = Trainer(config, GAME).run().run_dir
    agent = Agent.load(run_dir / "agent.npz", game="tictactoe")
    r = evaluate(agent, RandomPlayer(seed=5), GAME.make_env, games_per_seat=50, seed=5)
    assert r["first/loss"] == 0.0 and r["first/win"] >= 0.9, r
    policy = policy_pass(run_dir / "agent.npz")
    positions = _immediate_wins(GAME.rules)
    planes = np.asarray([p for p, _, _ in positions], np.int8)
    probs = policy(planes, np.asarray([m for _, m, _ in positions], bool))
    on_wins = [probs[i, wins].sum() for i, (_, _, wins) in enumerate(positions)]
    assert np.median(on_wins) >= 0.9, on_wins  # 0.999 in a run here
