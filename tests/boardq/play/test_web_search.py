"""The web board's agent with the tree search: a server's start, the API's visits, hints."""

from __future__ import annotations

import json

import numpy as np
import pytest

from boardq.catalog import get_game
from boardq.config import NetworkConfig
from boardq.players.agent import Agent
from boardq.players.agentfile import export_agent
from boardq.search.spec import SearchSpec
from boardq.web.app import WebApp


@pytest.fixture(scope="module")
def agent(tmp_path_factory):
    """A tic-tac-toe agent that likes the centre, then the corners."""
    game = get_game("tictactoe")
    bias = np.linspace(0.9, -0.9, 9).astype(np.float32)[np.argsort([4, 0, 2, 6, 8, 1, 3, 5, 7])]
    kernel = np.zeros((int(np.prod(game.obs_shape)), game.num_actions), np.float32)
    network = NetworkConfig(conv_filters=(), hidden_units=())
    path = tmp_path_factory.mktemp("agent") / "a.npz"
    export_agent(path, game.name, network, game.obs_shape, 9, [kernel, bias])
    return Agent.load(path)


def ask(app, method, path, fields=None):
    answer = app.handle(method, path, json.dumps(fields or {}).encode())
    assert answer.status < 300, answer.payload
    return answer.payload


@pytest.mark.parametrize(
    "server, expected",
    [({"visits": 20}, (20, None, 0)), ({"move_time": 0.05}, (None, 0.05, 0))],
)
def test_a_server_started_with_a_tree_search_starts_its_sessions_so(agent, server, expected):
    game = get_game("tictactoe")
    app = WebApp({game.name: game}, lambda _: agent, game.name, SearchSpec.tree_search(**server))
    state = ask(app, "POST", "/api/sessions", {"game": "tictactoe"})
    assert (state["visits"], state["move_time"], state["depth"]) == expected
    session = f"/api/sessions/{state['session']}"
    state = ask(app, "POST", f"{session}/move", {"action": 0})
    assert len(state["moves"]) == 2  # the agent replied
    hints = app.handle("GET", f"{session}/hints").payload
    assert hints["visits"] == expected[0] and len(hints["values"]) == 7
    record = app.handle("GET", f"{session}/record", b"", "format=jsonl").body.decode()
    assert "tree search of" in record


def test_the_api_sets_visits_and_refuses_bad_ones(agent):
    game = get_game("tictactoe")
    app = WebApp({game.name: game}, lambda _: agent, game.name)
    state = ask(app, "POST", "/api/sessions", {"game": "tictactoe", "visits": 30})
    session = f"/api/sessions/{state['session']}"
    assert state["visits"] == 30 and state["depth"] == 0
    state = ask(app, "POST", f"{session}/search", {"depth": 2})
    assert (state["visits"], state["depth"]) == (None, 2)
    for fields, message in (
        ({"visits": 10**6}, "visits must be from 0 to 100000"),
        ({"visits": 2.5}, "visits must be a whole number"),
        ({"visits": 5, "depth": 1}, "not both"),
    ):
        answer = app.handle("POST", f"{session}/search", json.dumps(fields).encode())
        assert answer.status == 400 and message in answer.payload["error"]
