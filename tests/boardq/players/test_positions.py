"""Positions files: reading them, replaying their moves, and the share of best moves.

Hand-made positions check the parts; the Connect Four file that ships is checked for its
form (every position critical, once, its illegal moves where PettingZoo has them) and,
where boardq's own exact solver is quick (late positions), for its labels.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from boardq.catalog import get_game
from boardq.errors import BoardqError
from boardq.players.evaluation import score_interval
from boardq.players.opponents import PerfectPlayer
from boardq.players.positions import (
    Position,
    load_positions,
    measure,
    observations,
    share_metrics,
)
from boardq.search.tree_player import TreeConfig, TreeSearchPlayer

ROOT = Path(__file__).resolve().parents[3]
SHIPPED = ROOT / "games" / "connect_four" / "critical-positions.json"
C4 = get_game("connect_four")
LATE_PLIES = 26
"""From here on (16 empty cells or fewer) boardq's solver takes well under a second."""


def entry(moves, values):
    outcome = max(v for v in values if v is not None)
    best = [a for a, v in enumerate(values) if v == outcome]
    return {"moves": moves, "values": values, "best": best, "outcome": outcome}


def write(path: Path, entries, game="connect_four") -> Path:
    path.write_text(json.dumps({"game": game, "about": "made by hand", "positions": entries}))
    return path


def test_best_moves_and_outcome_follow_from_the_values():
    p = Position((3, 3), (0, -1, 1, 1, None, -1, 0))
    assert p.outcome == 1 and p.best == {2, 3}
    assert Position((), (0, -1, None)).best == {0}
    assert Position((), (-1, -1)).outcome == -1


def test_the_share_counts_best_moves_by_outcome():
    wins = Position((), (1, -1, 1))
    draw = Position((), (0, -1, -1))
    m = share_metrics([wins, wins, draw], [0, 1, 0])
    assert (m["positions"], m["right"], m["share"]) == (3, 2, pytest.approx(2 / 3))
    assert (m["share_low"], m["share_high"]) == pytest.approx(score_interval(2, 3))
    assert (m["win/positions"], m["win/right"], m["draw/right"]) == (2, 1, 1)
    assert "loss/positions" not in m
    with pytest.raises(ValueError, match="a move for each of 3 positions"):
        share_metrics([wins, wins, draw], [0])


def test_a_file_reads_back(tmp_path):
    path = write(tmp_path / "p.json", [entry([0, 6, 1], [1, -1, 0, 0, -1, -1, -1])])
    found = load_positions(path, "connect_four", 7)
    assert found.game == "connect_four" and found.header["about"] == "made by hand"
    assert found.positions == (Position((0, 6, 1), (1, -1, 0, 0, -1, -1, -1)),)


C4_FILE = '{"game": "connect_four", "positions": %s}'


@pytest.mark.parametrize(
    "text, message",
    [
        ("not json", "is not a positions file (not JSON"),
        ('{"game": "tictactoe", "positions": []}', "of 'tictactoe', not 'connect_four'"),
        (C4_FILE % "[]", "holds no positions"),
        ('{"game": "connect_four"}', "no list of positions"),
        (C4_FILE % "[[0]]", "position 1: expected an object with moves"),
        (C4_FILE % json.dumps([entry([-1], [1] * 7)]), "moves must be a list of actions"),
        (C4_FILE % json.dumps([entry([0], [2] * 7)]), "values must list 1, 0, -1 or null"),
        (C4_FILE % json.dumps([entry([0], [1, 0])]), "one entry per action (7)"),
        (
            C4_FILE % json.dumps([{**entry([0], [1] + [0] * 6), "best": [0, 1]}]),
            "position 1: best [0, 1] and outcome 1 do not follow from its values",
        ),
    ],
)
def test_bad_files_are_refused_in_one_line(tmp_path, text, message):
    path = tmp_path / "p.json"
    path.write_text(text)
    with pytest.raises(BoardqError) as e:
        load_positions(path, "connect_four", 7)
    assert message in str(e.value) and "\n" not in str(e.value)


def test_a_missing_file_is_refused_in_one_line(tmp_path):
    with pytest.raises(BoardqError, match="cannot read the positions file .*missing.json"):
        load_positions(tmp_path / "missing.json")


class Ordered:
    """A network that likes the columns in order, 0 best, in every position."""

    def __call__(self, planes: np.ndarray) -> np.ndarray:
        return np.tile(np.linspace(0.5, -0.5, 7), (len(planes), 1))


def test_each_position_is_searched_with_a_fresh_tree():
    # The second position lies two plies below the first: a kept tree would be found there.
    positions = [Position((3, 3), (0,) * 7), Position((3, 3, 0, 0), (0,) * 7)]
    seen = observations(C4.make_env, positions)
    config = TreeConfig(leaves_per_call=1)
    player = TreeSearchPlayer(C4.rules, Ordered(), visits=60, config=config)
    player.act(seen[0])
    player.act(seen[1])
    assert player.stats.reused > 0  # within one game the tree is kept
    player = TreeSearchPlayer(C4.rules, Ordered(), visits=60, config=config)
    measure(player, positions, seen)
    assert player.stats.reused == 0 and player.root.visits == 60
    assert player.stats.visits == 2 * 60  # each position searched from its own valuation
    fresh = TreeSearchPlayer(C4.rules, Ordered(), visits=60, config=config)
    fresh.act(seen[1])
    np.testing.assert_array_equal(player.root.n, fresh.root.n)


def test_replayed_moves_give_pettingzoo_s_observation():
    # First player: columns 0, 1, 2 on the bottom row; second: two in column 6.
    (seen,) = observations(C4.make_env, [Position((0, 6, 1, 6, 2), (0,) * 7)])
    board = C4.rules.board_from_planes(seen["observation"])  # the second player to move: +1
    expected = np.zeros((6, 7), int)
    expected[5, :3] = -1
    expected[4:, 6] = 1
    assert np.array_equal(board, expected)
    assert seen["action_mask"].tolist() == [1] * 7


@pytest.mark.parametrize(
    "moves, message",
    [
        ([0] * 7, "position 1: move 7 (0): it is illegal"),
        ([0, 1] * 3 + [0, 1], "position 1: move 8 (1): the game is over"),
        ([0, 1] * 3 + [0], "position 1: the game is over"),
        ([7], "position 1: move 1 (7): it is illegal"),
    ],
)
def test_moves_that_cannot_be_played_are_named(moves, message):
    with pytest.raises(ValueError) as e:
        observations(C4.make_env, [Position(tuple(moves), (0,) * 7)])
    assert str(e.value) == message


@pytest.fixture(scope="module")
def shipped():
    found = load_positions(SHIPPED, C4.name, C4.num_actions)
    return found, observations(C4.make_env, found.positions)


def test_the_shipped_file_holds_critical_positions_each_once(shipped):
    found, seen = shipped
    assert found.game == "connect_four" and len(found.positions) >= 300
    assert found.header["solver"]["commit"] and found.header["games"]["seed"] is not None
    keys = set()
    for p, o in zip(found.positions, seen, strict=True):
        legal = [v is not None for v in p.values]
        assert o["action_mask"].astype(bool).tolist() == legal, p.moves
        assert 0 < len(p.best) < sum(legal), p.moves  # some moves keep the outcome, not all
        board = C4.rules.board_from_planes(o["observation"])
        keys.add(min(board.tobytes(), board[:, ::-1].tobytes()))
    assert len(keys) == len(found.positions)


def late(found, seen, count=None):
    pairs = [
        (p, o) for p, o in zip(found.positions, seen, strict=True) if len(p.moves) >= LATE_PLIES
    ]
    return pairs[:count]


def test_boardq_s_solver_agrees_with_the_labels_of_some_late_positions(shipped):
    pairs = late(*shipped, count=6)
    assert len(pairs) == 6
    for p, o in pairs:
        values = PerfectPlayer(C4.rules).values(o)
        assert [None if np.isnan(v) else int(v) for v in values] == list(p.values), p.moves
    # A player that knows the answers gets every one right through the measure.
    positions, seen = zip(*pairs, strict=True)
    assert measure(PerfectPlayer(C4.rules, seed=1), positions, seen)["share"] == 1.0


@pytest.mark.slow
def test_boardq_s_solver_agrees_with_the_labels_of_every_late_position(shipped):
    for p, o in late(*shipped):
        values = PerfectPlayer(C4.rules).values(o)
        assert [None if np.isnan(v) else int(v) for v in values] == list(p.values), p.moves
