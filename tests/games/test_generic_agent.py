"""Agents of games built on the fly: the file names the game, loading rebuilds it."""

from __future__ import annotations

import json

import numpy as np
import pytest

from boardq.errors import AgentFileError, BoardqError
from boardq_games import get_game

pytest.importorskip("pyspiel")
NAME = "openspiel:breakthrough(columns=6,rows=6)"


@pytest.fixture
def agent_file(tmp_path, preference_agent):
    return preference_agent(tmp_path / "agent.npz", get_game(NAME), [0])


def test_loading_rebuilds_the_game_from_the_header(agent_file):
    from boardq.players.agent import Agent
    from boardq.players.agentfile import read_header

    assert read_header(agent_file)["game"] == NAME
    agent = Agent.load(agent_file, game=get_game("openspiel:breakthrough(rows=6,columns=6)").name)
    game = get_game(agent.game)
    env = game.make_env()
    env.reset(seed=0)
    observation = env.observe(env.agent_selection)
    assert observation["action_mask"][agent.act(observation)]
    assert np.isnan(agent.q_values(observation)[~observation["action_mask"].astype(bool)]).all()
    with pytest.raises(BoardqError, match="no rules"):
        agent.searcher(2)


def test_an_agent_whose_game_cannot_be_rebuilt_is_refused(tmp_path, agent_file):
    from boardq.players.agent import Agent

    data = dict(np.load(agent_file))
    header = json.loads(str(data["header"]))
    header["game"] = "openspiel:hearts"
    data["header"] = np.array(json.dumps(header))
    np.savez(tmp_path / "hearts.npz", **data)
    with pytest.raises(AgentFileError, match="cannot rebuild its game: openspiel:hearts has 4"):
        Agent.load(tmp_path / "hearts.npz")


def test_evaluate_plays_a_generic_game_refereed_by_openspiel(agent_file, boardq_run):
    result = boardq_run(["evaluate", NAME, "--agent", str(agent_file), "--opponent", "random",
                         "--opponent", "mcts:10", "--games", "2", "--json"])  # fmt: skip
    assert result.returncode == 0, result.stderr.decode()
    report = json.loads(result.stdout)
    assert report["rules_checked_by_openspiel"]
    assert set(report["opponents"]) == {"random", "mcts:10"}
    refused = boardq_run(["evaluate", NAME, "--agent", str(agent_file), "--opponent", "winblock"])
    error = refused.stderr.decode()
    assert refused.returncode == 1 and error.count("\n") == 1
    assert "the winblock player plays connect_four, gomoku, tictactoe, not Breakthrough" in error
