"""The agents that come with boardq: they load, play legal moves and beat random."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from boardq.errors import AgentFileError
from boardq.players.agentfile import bundled_agent, read_header
from boardq.players.evaluation import evaluate
from boardq.players.opponents import RandomPlayer
from boardq_games import GAMES, get_game

SHIPPED = sorted(name for name, game in GAMES.items() if game.bundled_agent is not None)


def test_tictactoe_and_connect_four_come_with_an_agent():
    assert {"tictactoe", "connect_four"} <= set(SHIPPED)


@pytest.mark.parametrize("name", SHIPPED)
def test_a_bundled_agent_is_small_and_says_what_it_measured(name):
    path = get_game(name).bundled_agent
    assert path.stat().st_size < 2 * 2**20
    info = read_header(f"bundled:{name}")["info"]
    measured = info["strength"]["opponents"]
    assert "random" in measured and info["strength"]["games_per_seat"] >= 100
    for result in measured.values():
        assert {"first/win", "second/win", "score"} <= set(result)
    assert info["bundled_from"]["run"]


@pytest.mark.parametrize("name", SHIPPED)
def test_a_bundled_agent_plays_legal_moves_and_beats_random(name):
    from boardq.players.agent import Agent

    game = get_game(name)
    agent = Agent.load(f"bundled:{name}")
    assert agent.game == name
    # Legal moves in random positions of a real game.
    env, rng = game.make_env(), np.random.default_rng(0)
    env.reset(seed=0)
    for _ in range(12):
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            break
        assert observation["action_mask"][agent.act(observation)] == 1
        env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    result = evaluate(agent, RandomPlayer(seed=1), game.make_env, games_per_seat=5, seed=3)
    assert result["first/win"] >= 0.8 and result["second/win"] >= 0.6, result


@pytest.mark.parametrize("name", SHIPPED)
def test_every_bundled_agent_searches_alone_and_symmetric(name):
    from boardq.players.agent import Agent

    game = get_game(name)
    plain, symmetric = Agent.load(f"bundled:{name}", symmetric=False), None
    if len(game.symmetries) > 1:
        symmetric = Agent.load(f"bundled:{name}", symmetric=True)
    env, rng = game.make_env(), np.random.default_rng(1)
    env.reset(seed=1)
    for _ in range(int(rng.integers(4, 12))):
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    observation = env.observe(env.agent_selection)
    legal = observation["action_mask"] == 1
    for agent in filter(None, (plain, symmetric)):
        values = agent.q_values(observation, search_depth=2)
        assert np.isnan(values[~legal]).all() and np.isfinite(values[legal]).all()
        assert legal[agent.act(observation, search_depth=2)]
        assert int(np.nanargmax(values)) == agent.act(observation, search_depth=2)


def test_a_game_without_a_bundled_agent_or_no_game_at_all_is_one_clear_error():
    missing = sorted(set(GAMES) - set(SHIPPED)) or None
    if missing:
        with pytest.raises(AgentFileError, match="no agent comes with"):
            bundled_agent(missing[0])
    with pytest.raises(AgentFileError, match="no game called 'chess'"):
        bundled_agent("chess")
    with pytest.raises(AgentFileError, match="no agent comes with"):
        bundled_agent("openspiel:tic_tac_toe")


def test_play_with_no_runs_plays_the_bundled_agent_and_says_so(tmp_path):
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
    r = subprocess.run(
        [sys.executable, "-m", "boardq", "play", "connect_four", "--runs-dir",
         str(tmp_path / "none"), "--first", "human"],
        input="4\nquit\n", capture_output=True, text=True, timeout=240, env=env,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert "the agent that comes with boardq" in r.stdout
    assert "Traceback" not in r.stderr
    named = subprocess.run(
        [sys.executable, "-m", "boardq", "play", "connect_four", "--agent", "bundled",
         "--first", "human"],
        input="quit\n", capture_output=True, text=True, timeout=240, env=env,
    )  # fmt: skip
    assert named.returncode == 0 and "the agent that comes with boardq" in named.stdout
