"""`prune_moves`: the game's pruned moves out of training's and the agent's legal moves."""

from __future__ import annotations

import numpy as np
import pytest

from boardq.catalog import get_game
from boardq.config import TrainConfig
from boardq.pruning import PrunedGames, PrunedRules, check_pruning, pruned_mask
from boardq.settings import ConfigError
from boardq_games.go.planes import own_eyes
from boardq_games.go.rules import KO

GO = get_game("go")


def test_pruned_moves_go_unless_they_are_all_there_is():
    pruned = lambda planes: np.array([[True, False, False], [True, True, False]])  # noqa: E731
    mask = np.array([[True, True, False], [True, True, False]])
    kept = pruned_mask(pruned, np.zeros((2, 1)), mask)
    assert kept.tolist() == [[False, True, False], [True, True, False]]


def test_the_actors_games_never_offer_an_own_eye_and_play_on():
    games = PrunedGames(GO.vector(64), own_eyes)
    rng = np.random.default_rng(0)
    offered_eyes = pruned = 0
    for _ in range(400):
        planes, legal = games.observe()
        raw = games.games.observe()[1]
        eyes = own_eyes(planes)
        assert not (legal & eyes).any()
        assert (legal == (raw & ~eyes)).all()  # the pass keeps every mask non-empty
        assert legal[:, 81].all()
        offered_eyes += int((raw & eyes).sum())
        pruned += int((raw & ~legal).sum())
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in legal])
        games.step(actions)
    assert offered_eyes > 0 and pruned == offered_eyes  # eyes did come up, and only they went


def test_a_game_without_pruned_moves_refuses_the_setting():
    check_pruning(True, GO)
    check_pruning(False, get_game("connect_four"))
    with pytest.raises(ConfigError, match="connect_four declares none"):
        check_pruning(True, get_game("connect_four"))


def test_the_builder_prunes_only_when_asked():
    from boardq.dqn.builder import Builder

    config = TrainConfig(game="go")
    assert not isinstance(Builder(config, GO).make_games(2, 0), PrunedGames)
    games = Builder(config.replace(prune_moves=True), GO).make_games(2, 0)
    assert isinstance(games, PrunedGames) and games.counts_lead


EYE_BOARD = [
    # The mover (black, to move) holds the left of the board with two eyes, A9 and A7.
    ". X O . . . . . .",
    "X X O . . . . . .",
    ". X O . . . . . .",
    "X X O . . . . . .",
]


def eye_observation():
    """The position above as black's observation; white passed last."""
    rules = GO.rules
    position = rules.start()
    cells = np.zeros((9, 9), np.int16)
    for r, row in enumerate(EYE_BOARD):
        for c, cell in enumerate(row.split()):
            cells[r, c] = {"X": 1, "O": -1}.get(cell, 0)
    position[:81] = cells.ravel()
    return {
        "observation": rules.planes_from_board(position),
        "action_mask": rules.legal_mask(position),
    }, position


@pytest.fixture(scope="module")
def agent_files(tmp_path_factory):
    """The bundled Go network in two files: its run pruned moves, or did not."""
    from boardq.players.agentfile import agent_file, export_agent, network_of, read_agent

    header, weights = read_agent(agent_file("bundled:go"))
    folder = tmp_path_factory.mktemp("agents")
    files = {}
    for prune in (False, True):
        info = {**header["info"], "prune_moves": prune}
        files[prune] = export_agent(
            folder / f"prune-{prune}.npz",
            "go",
            network_of(header),
            header["obs_shape"],
            82,
            weights,
            info=info,
        )
    return files


@pytest.mark.parametrize("search", [0, 2])
def test_an_agent_whose_run_pruned_never_fills_its_eye(agent_files, search):
    from boardq.players.agent import Agent

    observation, _ = eye_observation()
    assert observation["action_mask"][[0, 18]].all()  # legal, both eyes
    plain, pruning = Agent.load(agent_files[False]), Agent.load(agent_files[True])
    assert not np.isnan(plain.q_values(observation)[[0, 18]]).any()
    q = pruning.q_values(observation)
    assert np.isnan(q[[0, 18]]).all() and not np.isnan(q[81])
    assert pruning.act(observation, search) not in (0, 18)
    if search:
        assert isinstance(pruning.searcher(search).rules, PrunedRules)
        assert not isinstance(plain.searcher(search).rules, PrunedRules)


def test_pruned_rules_expand_no_eye():
    _, position = eye_observation()
    rules = PrunedRules(GO.rules, own_eyes)
    assert GO.rules.legal_mask(position)[[0, 18]].all()
    assert not rules.legal_mask(position)[[0, 18]].any()
    assert rules.legal_mask(position)[81] and rules.num_actions == 82


def test_pruned_rules_compute_a_positions_planes_once_and_by_its_contents(monkeypatch):
    import boardq.pruning as pruning

    monkeypatch.setattr(pruning, "PLANES_KEPT", 8)  # the oldest are let go
    rules = PrunedRules(GO.rules, own_eyes)
    rng = np.random.default_rng(3)
    position = GO.rules.start()
    positions = []
    for _ in range(40):  # a random game's positions
        positions.append(position)
        legal = np.flatnonzero(GO.rules.legal_mask(position)[:81])
        if not len(legal):
            break
        position = GO.rules.apply(position, int(rng.choice(legal)))
    for position in positions:
        planes = rules.planes_from_board(position)
        np.testing.assert_array_equal(planes, GO.rules.planes_from_board(position))
        assert rules.planes_from_board(position.copy()) is planes  # same contents: kept
        assert not planes.flags.writeable  # shared: nobody may change it
        np.testing.assert_array_equal(
            rules.legal_mask(position),
            pruned_mask(own_eyes, planes[None], GO.rules.legal_mask(position)[None])[0],
        )
    changed = positions[-1].copy()
    changed[:81] = 0  # a position changed in place is another position
    np.testing.assert_array_equal(
        rules.planes_from_board(changed), GO.rules.planes_from_board(changed)
    )
    assert len(rules._planes) == 8


def test_a_search_reads_a_position_from_the_actors_pruned_legal_moves_with_its_ko():
    """Self-play's searched game gives the tree the actor's legal moves, own eyes left
    out; the rules read a ko from the legal moves' gaps, so the eyes are put back."""
    rules = GO.rules
    searched = PrunedRules(rules, own_eyes)
    rng = np.random.default_rng(3)
    eyes = kos = 0
    for _ in range(12):
        board = rules.start()
        for _ in range(int(rng.integers(40, 160))):
            legal = rules.legal_mask(board)
            if rules.winner(board) != 0 or rules.is_full(board):
                break
            planes = rules.planes_from_board(board)
            offered = pruned_mask(own_eyes, planes[None], legal[None])[0]
            eyes += int((legal & ~offered).any())
            kos += int(board[KO] >= 0)
            read = searched.board_from_planes(planes, offered)
            assert np.array_equal(read, rules.board_from_planes(planes, legal))
            moves = np.flatnonzero(legal[:-1]) if legal[:-1].any() else [rules.pass_action]
            board = rules.apply(board, int(rng.choice(moves)))
    assert eyes > 20 and kos > 0, (eyes, kos)  # own eyes left out; kos read back
