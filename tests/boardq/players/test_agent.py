"""`Agent`: the way other programs, the terminal game and evaluation use trained agents.

Values averaged over a board's symmetries: test_agent_symmetric.py.
"""

from __future__ import annotations

import numpy as np
import pettingzoo
import pytest
from agent_files import random_agent

from boardq import Agent
from boardq.boardtext import board_from_rows
from boardq.config import NetworkConfig
from boardq.dqn.networks import build_q_network
from boardq.errors import AgentFileError
from boardq.players.agentfile import averaged_weights, export_agent
from boardq_games import get_game


def preference_agent(path, game_name="tictactoe", order=None, info=None):
    """An agent whose values are a fixed preference over moves (zero kernels, bias)."""
    game = get_game(game_name)
    net = NetworkConfig(hidden_units=(4,))
    model = build_q_network(game.obs_shape, game.num_actions, net)
    weights = [np.zeros_like(w) for w in model.get_weights()]
    order = list(range(game.num_actions)) if order is None else order
    bias = np.zeros(game.num_actions, np.float32)
    bias[order] = np.linspace(1.0, 0.1, len(order))  # first in `order` is best
    weights[-1] = bias
    return export_agent(path, game.name, net, game.obs_shape, game.num_actions, weights, info)


def test_act_is_greedy_over_legal_moves(tmp_path):
    path = preference_agent(tmp_path / "a.npz", order=[4, 0, 8, 2, 6, 1, 3, 5, 7])
    agent = Agent.load(path, game="tictactoe")
    env = pettingzoo.make("aec", "classic/tictactoe-v3")
    env.reset()
    assert agent.act(env.observe(env.agent_selection)) == 4
    env.step(4)
    assert agent.act(env.observe(env.agent_selection)) == 0  # 4 is taken
    q = agent.q_values(env.observe(env.agent_selection))
    assert q.shape == (9,) and np.isnan(q[4]) and not np.isnan(q[0])
    assert q[0] == pytest.approx(np.nanmax(q))


def test_a_run_directory_stands_for_its_best_agent_else_its_last(tmp_path):
    preference_agent(tmp_path / "agent.npz", info={"train_step": 900})
    assert Agent.load(tmp_path).info["train_step"] == 900
    preference_agent(tmp_path / "best-agent.npz", info={"train_step": 300})
    best = Agent.load(tmp_path)
    assert best.info["train_step"] == 300 and best.path == tmp_path / "best-agent.npz"


def test_bad_observations_are_refused(tmp_path):
    agent = Agent.load(preference_agent(tmp_path / "a.npz"))
    with pytest.raises(ValueError, match="PettingZoo dict"):
        agent.act(np.zeros((3, 3, 2)))
    with pytest.raises(ValueError, match="do not fit"):
        agent.act({"observation": np.zeros((6, 7, 2)), "action_mask": np.ones(7)})


@pytest.mark.parametrize(
    ("make", "match"),
    [
        (lambda d: d / "missing.npz", "does not exist"),
        (lambda d: d, "no exported agent"),
        (lambda d: (d / "x.npz").write_bytes(b"garbage") and d / "x.npz", "not a boardq agent"),
        (lambda d: preference_agent(d / "c4.npz", "connect_four"), "not for 'tictactoe'"),
    ],
)
def test_bad_agent_files_raise_one_clear_error(tmp_path, make, match):
    path = make(tmp_path)
    with pytest.raises(AgentFileError, match=match):
        Agent.load(path, game="tictactoe")


def test_truncated_file_is_refused(tmp_path):
    data = preference_agent(tmp_path / "a.npz").read_bytes()
    (tmp_path / "cut.npz").write_bytes(data[: len(data) // 2])
    with pytest.raises(AgentFileError):
        Agent.load(tmp_path / "cut.npz")


def test_shapes_of_another_game_are_refused(tmp_path):
    game = get_game("connect_four")
    net = NetworkConfig(hidden_units=(4,))
    model = build_q_network(game.obs_shape, game.num_actions, net)
    path = export_agent(tmp_path / "odd.npz", "tictactoe", net, game.obs_shape, 7,
                        model.get_weights())  # fmt: skip
    with pytest.raises(AgentFileError, match="planes"):
        Agent.load(path)


def test_export_is_atomic_and_leaves_no_temporary_files(tmp_path):
    preference_agent(tmp_path / "a.npz")
    preference_agent(tmp_path / "a.npz")
    assert [p.name for p in tmp_path.iterdir()] == ["a.npz"]


def test_exported_files_get_the_usual_permissions(tmp_path):
    import os

    umask = os.umask(0o022)
    try:
        path = preference_agent(tmp_path / "a.npz")
    finally:
        os.umask(umask)
    assert (path.stat().st_mode & 0o777) == 0o644


# --- batches, lookahead and headers -------------------------------------------------------


def test_q_batch_matches_q_values_row_by_row(tmp_path):
    agent = Agent.load(preference_agent(tmp_path / "a.npz", order=[4, 0, 8, 2, 6, 1, 3, 5, 7]))
    env = pettingzoo.make("aec", "classic/tictactoe-v3")
    env.reset()
    observations = []
    for action in (4, 0, 8):
        observations.append(env.observe(env.agent_selection))
        env.step(action)
    q = agent.q_batch(np.stack([o["observation"] for o in observations]))
    assert q.shape == (3, 9)
    for row, obs in zip(q, observations, strict=True):
        legal = obs["action_mask"].astype(bool)
        np.testing.assert_allclose(row[legal], agent.q_values(obs)[legal], rtol=1e-6)
    with pytest.raises(ValueError, match="do not fit"):
        agent.q_batch(np.zeros((1, 6, 7, 2), np.int8))


# The network prefers the top-right cell (action 6) everywhere.
TOP_RIGHT_FIRST = [6, 0, 1, 2, 3, 4, 5, 7, 8]


def fork_position() -> dict[str, np.ndarray]:
    """A tic-tac-toe observation where X, to move, can fork: a win two of its moves ahead."""
    rules = get_game("tictactoe").rules
    board = board_from_rows(["XO.", ".X.", "..O"])
    return {
        "observation": rules.planes_from_board(board),
        "action_mask": rules.legal_mask(board).astype(np.int8),
    }


def test_search_depth_one_is_greedy_and_depth_three_finds_the_fork(tmp_path):
    game = get_game("tictactoe")
    agent = Agent.load(preference_agent(tmp_path / "a.npz", order=TOP_RIGHT_FIRST))
    obs = fork_position()
    assert agent.act(obs) == agent.act(obs, search_depth=1) == 6
    fork = agent.act(obs, search_depth=3)
    assert fork in (game.rules.cell_action(1, 0), game.rules.cell_action(2, 0))
    values = agent.q_values(obs, search_depth=3)
    assert values[fork] == pytest.approx(0.99**2)
    assert np.isnan(values[~obs["action_mask"].astype(bool)]).all()
    with pytest.raises(ValueError, match="search depth"):
        agent.act(obs, search_depth=-1)


def test_search_discounts_by_the_discount_the_agent_trained_with(tmp_path):
    # The fork wins two of X's moves ahead: the search values it g^2.
    plain = preference_agent(tmp_path / "plain.npz", order=TOP_RIGHT_FIRST)
    trained = preference_agent(tmp_path / "t.npz", order=TOP_RIGHT_FIRST, info={"discount": 0.95})
    obs = fork_position()
    assert np.nanmax(Agent.load(trained).q_values(obs, search_depth=3)) == pytest.approx(0.95**2)
    assert np.nanmax(Agent.load(plain).q_values(obs, search_depth=3)) == pytest.approx(0.99**2)


def test_read_header_reads_the_game_and_info_without_the_network(tmp_path):
    from boardq.players.agentfile import read_header

    game = get_game("tictactoe")
    net = NetworkConfig(hidden_units=(4,))
    model = build_q_network(game.obs_shape, game.num_actions, net)
    info = {"train_step": 12, "transitions": 345, "elapsed_sec": 6.5}
    export_agent(
        tmp_path / "agent.npz", game.name, net, game.obs_shape, 9, model.get_weights(), info
    )
    header = read_header(tmp_path)  # a run directory works too
    assert header["game"] == "tictactoe" and header["info"] == info
    with pytest.raises(AgentFileError, match="does not exist"):
        read_header(tmp_path / "missing.npz")


def test_averaged_weights_are_the_mean_of_the_files_and_say_what_they_average(tmp_path):
    paths = [random_agent(tmp_path / f"a{i}.npz", "connect_four", seed=i) for i in range(3)]
    game, net = get_game("connect_four"), NetworkConfig(hidden_units=(16,))
    steps = [100, 200, 300]
    for path, step in zip(paths, steps, strict=True):  # as a run keeps them
        weights = Agent.load(path).weights()
        info = {"train_step": step, "elapsed_sec": step / 10, "saved": 1.0, "discount": 0.9}
        export_agent(path, game.name, net, game.obs_shape, game.num_actions, weights, info)
    mean, info = averaged_weights(paths)
    each = [Agent.load(p).weights() for p in paths]
    for i, w in enumerate(mean):
        assert w.dtype == np.float32
        np.testing.assert_allclose(w, (each[0][i] + each[1][i] + each[2][i]) / 3, rtol=1e-6)
    # The newest file's info, less its save time, and what was averaged.
    assert info == {
        "train_step": 300,
        "elapsed_sec": 30.0,
        "discount": 0.9,
        "averaged_agents": 3,
        "averaged_from_step": 100,
    }
    # The mean plays: it loads as an agent of the same network.
    out = export_agent(tmp_path / "mean.npz", game.name, net, game.obs_shape, 7, mean, info)
    assert Agent.load(out).info["averaged_agents"] == 3
    other = random_agent(tmp_path / "ttt.npz", "tictactoe")
    with pytest.raises(AgentFileError, match="not the same game and network"):
        averaged_weights([*paths, other])
    with pytest.raises(AgentFileError, match="no agent files"):
        averaged_weights([])
    with pytest.raises(AgentFileError, match="does not exist"):
        averaged_weights([paths[0], tmp_path / "missing.npz"])


def test_visits_or_a_time_give_the_tree_search_a_depth_the_alpha_beta(tmp_path):
    from boardq.search.alphabeta import SearchPlayer
    from boardq.search.tree_player import TreeSearchPlayer

    info = {"discount": 0.95}
    agent = Agent.load(preference_agent(tmp_path / "a.npz", order=TOP_RIGHT_FIRST, info=info))
    tree = agent.searcher(visits=50)
    assert isinstance(tree, TreeSearchPlayer) and tree is agent.searcher(visits=50)
    assert tree.discount == 0.95 and tree.describe() == "tree search of 50 visits a move"
    assert isinstance(agent.searcher(move_time=0.5), TreeSearchPlayer)
    assert isinstance(agent.searcher(2), SearchPlayer) and agent.searcher(2) is agent.alpha_beta(2)
    timed = agent.alpha_beta(move_time=0.5)
    assert isinstance(timed, SearchPlayer) and timed.describe() == "search of 0.5 s a move"
    obs = fork_position()
    assert agent.act(obs, visits=50) == tree.act(obs)
    np.testing.assert_array_equal(agent.q_values(obs, visits=50), tree.q_values(obs))
    for bad in ({}, {"depth": 2, "visits": 5}, {"move_time": 1.0, "visits": 5}):
        with pytest.raises(ValueError, match="one of a depth, visits or a time"):
            agent.searcher(**bad)
