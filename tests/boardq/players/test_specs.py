"""Player specs: the grammar, the checks before TensorFlow loads, and the players built."""

from __future__ import annotations

import argparse

import numpy as np
import pytest

from boardq.config import NetworkConfig
from boardq.errors import AgentFileError, BoardqError
from boardq.players.agentfile import export_agent
from boardq.players.factory import PlayerFactory, check_spec
from boardq.players.opponents import PerfectPlayer, RandomPlayer, WinBlockPlayer
from boardq.players.specs import Kind, PlayerSpec, parse_league_player, parse_spec
from boardq.search.spec import NETWORK, SearchSpec
from boardq_games import get_game

AB3 = SearchSpec.alpha_beta(depth=3)
TTT = get_game("tictactoe")
C4 = get_game("connect_four")


def tiny_agent(path, game, info: dict | None = None) -> str:
    """An agent file with a network of zeros (no TensorFlow needed to write it)."""
    size = int(np.prod(game.obs_shape))
    weights = [np.zeros((size, game.num_actions), np.float32), np.zeros(game.num_actions)]
    net = NetworkConfig(conv_filters=(), hidden_units=())
    export_agent(path, game.name, net, game.obs_shape, game.num_actions, weights, info)
    return str(path)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("random", PlayerSpec(Kind.RANDOM, "random")),
        ("WinBlock", PlayerSpec(Kind.WINBLOCK, "winblock")),
        ("perfect", PlayerSpec(Kind.PERFECT, "perfect")),
        ("mcts:200", PlayerSpec(Kind.MCTS, "mcts:200", simulations=200)),
        ("agent:runs/a b.npz", PlayerSpec(Kind.AGENT, "agent:runs/a b.npz", path="runs/a b.npz")),
        ("search:0", PlayerSpec(Kind.SEARCH, "search:0", search=NETWORK)),
        (
            "search:3:x.npz",
            PlayerSpec(Kind.SEARCH, "search:3:x.npz", search=AB3, path="x.npz"),
        ),
        ("tree:400", PlayerSpec(Kind.TREE, "tree:400", search=SearchSpec.tree_search(400))),
        (
            "tree:0.5s",
            PlayerSpec(Kind.TREE, "tree:0.5s", search=SearchSpec.tree_search(move_time=0.5)),
        ),
        (
            "tree:2s:bundled:go",
            PlayerSpec(
                Kind.TREE,
                "tree:2s:bundled:go",
                search=SearchSpec.tree_search(move_time=2.0),
                path="bundled:go",
            ),
        ),
    ],
)
def test_the_grammar(text, expected):
    assert parse_spec(text) == expected


def test_tree_options_set_how_the_tree_grows():
    spec = parse_spec("tree:400,prior=q,plain:x.npz")
    assert spec.name == "tree:400,prior=q,plain:x.npz" and spec.path == "x.npz"
    assert spec.search.visits == 400
    assert (spec.search.tree.prior, spec.search.tree.compiled) == ("q", False)
    assert parse_spec("tree:1s,prior=policy").search.tree.prior == "policy"
    default = parse_spec("tree:1s").search.tree
    assert (default.prior, default.compiled) == ("auto", True)


@pytest.mark.parametrize(
    "text, message",
    [
        ("bogus", "unknown player 'bogus'; expected one of random, winblock"),
        ("mcts:0", "simulations must be >= 1, got 0"),
        ("mcts:x", "expected a whole number of simulations, got 'x'"),
        ("mcts", "expected a whole number of simulations, got ''"),
        ("search:-1", "search plies must be >= 0, got -1"),
        ("search:two", "expected a whole number of search plies"),
        ("agent:", "needs a path"),
        ("random:3", "takes no ':' argument"),
        ("tree:0", "visits must be >= 1, got 0"),
        ("tree:0s", "expected seconds > 0 as in tree:0.5s, got '0s'"),
        ("tree:nans", "expected seconds > 0"),
        ("tree", "expected a whole number of visits"),
        ("tree:1s,fast", "unknown tree option 'fast': expected prior=q, prior=policy, plain"),
        ("tree:1s,prior=Q", "unknown tree option 'prior=Q'"),
    ],
)
def test_bad_specs_say_why(text, message):
    with pytest.raises(argparse.ArgumentTypeError) as error:
        parse_spec(text)
    assert message in str(error.value)
    assert "\n" not in str(error.value)


def test_league_players_may_be_bare_paths(tmp_path):
    path = tiny_agent(tmp_path / "a.npz", TTT)
    assert parse_league_player(path) == PlayerSpec(Kind.AGENT, f"agent:{path}", path=path)
    assert parse_league_player("mcts:5").simulations == 5
    with pytest.raises(argparse.ArgumentTypeError, match="neither a player"):
        parse_league_player(str(tmp_path / "missing.npz"))
    with pytest.raises(argparse.ArgumentTypeError, match="simulations"):
        parse_league_player("mcts:0")


def test_checks_before_tensorflow(tmp_path):
    check_spec(parse_spec("perfect"), TTT)
    with pytest.raises(BoardqError, match="for tictactoe only: solving Connect Four"):
        check_spec(parse_spec("perfect"), C4)
    with pytest.raises(AgentFileError, match="does not exist"):
        check_spec(parse_spec(f"agent:{tmp_path}/missing.npz"), TTT)
    c4_agent = tiny_agent(tmp_path / "c4.npz", C4)
    with pytest.raises(AgentFileError, match="an agent for 'connect_four', not for 'tictactoe'"):
        check_spec(parse_spec(f"search:2:{c4_agent}"), TTT)
    check_spec(parse_spec("search:2"), TTT)  # the evaluated agent
    with pytest.raises(BoardqError, match="search:D:PATH"):
        check_spec(parse_spec("search:2"), TTT, need_path=True)


def test_a_symmetric_factory_averages_every_agent_it_loads_by_path(tmp_path):
    path = tiny_agent(tmp_path / "a.npz", TTT)
    plain, symmetric = PlayerFactory(TTT), PlayerFactory(TTT, symmetric=True)
    assert plain.make(parse_spec(f"agent:{path}"), 0).symmetries == 1
    agent = symmetric.make(parse_spec(f"agent:{path}"), 0)
    assert agent.symmetries == 8 and agent is symmetric.agent(path, True)
    assert symmetric.make(parse_spec(f"search:2:{path}"), 0) is agent.searcher(2)
    assert plain.make(parse_spec(f"search:2:{path}"), 0) is not agent.searcher(2)


def test_an_undecided_factory_plays_each_agent_as_its_run_chose(tmp_path):
    # A best agent whose run's ladder played it averaged (the Connect Four preset's).
    info = {"ladder": "random,winblock,mcts:100 symmetric", "ladder_score": 0.9}
    chosen = tiny_agent(tmp_path / "chosen.npz", C4, info)
    other = tiny_agent(tmp_path / "other.npz", C4, {"ladder": "random,winblock,mcts:100"})
    undecided = PlayerFactory(C4, symmetric=None)
    assert undecided.make(parse_spec(f"agent:{chosen}"), 0).symmetries == 2
    assert undecided.make(parse_spec(f"search:2:{chosen}"), 0) is undecided.agent(
        chosen, None
    ).searcher(2)
    assert undecided.make(parse_spec(f"agent:{other}"), 0).symmetries == 1
    # A decided factory (the league's) plays every agent its way.
    assert PlayerFactory(C4).make(parse_spec(f"agent:{chosen}"), 0).symmetries == 1
    assert PlayerFactory(C4, symmetric=True).make(parse_spec(f"agent:{other}"), 0).symmetries == 2


def test_the_factory_builds_each_kind(tmp_path):
    factory = PlayerFactory(TTT)
    assert isinstance(factory.make(parse_spec("random"), 0), RandomPlayer)
    assert isinstance(factory.make(parse_spec("winblock"), 0), WinBlockPlayer)
    assert isinstance(factory.make(parse_spec("perfect"), 0), PerfectPlayer)
    pytest.importorskip("pyspiel")
    from boardq.players.openspiel_bot import MCTSPlayer

    bot = factory.make(parse_spec("mcts:7"), 0)
    assert isinstance(bot, MCTSPlayer) and bot.simulations == 7


def test_the_tree_search_is_the_evaluated_agents_or_needs_a_path_in_a_league(tmp_path):
    path = tiny_agent(tmp_path / "a.npz", TTT)
    with pytest.raises(BoardqError, match="as tree:N:PATH"):
        check_spec(parse_spec("tree:50"), TTT, need_path=True)
    factory = PlayerFactory(TTT)
    player = factory.make(parse_spec(f"tree:50:{path}"), 0)
    assert player.describe() == "tree search of 50 visits a move"
    assert factory.make(parse_spec(f"tree:0.25s:{path}"), 0).move_time == 0.25


def test_tree_plain_is_the_python_tree_where_a_compiled_one_exists(tmp_path):
    from boardq.search.fasttree import CompiledTree, PlainTree

    path = tiny_agent(tmp_path / "c4.npz", C4)
    factory = PlayerFactory(C4)
    assert isinstance(factory.make(parse_spec(f"tree:20:{path}"), 0)._tree, CompiledTree)
    assert isinstance(factory.make(parse_spec(f"tree:20,plain:{path}"), 0)._tree, PlainTree)
