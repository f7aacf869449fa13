"""The round robin, the ratings table, the agents a run kept and their plot (no TensorFlow)."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from boardq.config import NetworkConfig
from boardq.errors import BoardqError
from boardq.players.agentfile import export_agent
from boardq.players.league import RoundRobin, kept_agents, plot_ratings, rate, round_robin
from boardq.players.opponents import PerfectPlayer, RandomPlayer, WinBlockPlayer
from boardq_games import get_game

TTT = get_game("tictactoe")


def keep_agents(run_dir, steps: list[int], elapsed: bool = True) -> None:
    """Writes RUN_DIR/agents/agent-<step>.npz as the trainer keeps them (tiny networks)."""
    (run_dir / "agents").mkdir(parents=True)
    size = int(np.prod(TTT.obs_shape))
    net = NetworkConfig(conv_filters=(), hidden_units=())
    for step in steps:
        weights = [np.zeros((size, 9), np.float32), np.full(9, step, np.float32)]
        info = {"train_step": step, "transitions": 16 * step}
        if elapsed:
            info["elapsed_sec"] = 0.5 * step
        path = run_dir / "agents" / f"agent-{step:09d}.npz"
        export_agent(path, TTT.name, net, TTT.obs_shape, 9, weights, info)


def test_round_robin_counts_every_game_once():
    players = [RandomPlayer(0), WinBlockPlayer(TTT.rules, 1), PerfectPlayer(TTT.rules, 2)]
    wins, draws = round_robin(players, TTT.make_env, games_per_seat=6, seed=0)
    games = wins + wins.T + draws
    np.testing.assert_array_equal(games, 12 * (1 - np.eye(3)))
    assert wins[0, 2] == wins[1, 2] == 0  # nobody beats perfect play
    assert wins[2, 0] > 6  # perfect play beats random most of the time
    np.testing.assert_array_equal(draws, draws.T)


def test_rate_anchors_random_and_orders_the_players():
    players = [RandomPlayer(0), WinBlockPlayer(TTT.rules, 1), PerfectPlayer(TTT.rules, 2)]
    wins, draws = round_robin(players, TTT.make_env, games_per_seat=10, seed=0)
    ratings = rate(["random", "winblock", "perfect"], wins, draws, 0, np.random.default_rng(0))
    assert [r.name for r in ratings] == ["random", "winblock", "perfect"]
    assert ratings[0].rating == ratings[0].low == ratings[0].high == 0.0
    assert 0.0 < ratings[1].rating < ratings[2].rating
    for r in ratings:
        assert r.low <= r.rating <= r.high and r.games == 40
    points = wins[2].sum() + 0.5 * draws[2].sum()
    assert ratings[2].score == pytest.approx(points / 40)


class StopsAt:
    """A player that raises KeyboardInterrupt at its `at`-th move, as Ctrl-C would."""

    def __init__(self, player, at: int) -> None:
        self.player, self.at, self.moves = player, at, 0

    def act(self, observation) -> int:
        self.moves += 1
        if self.moves == self.at:
            raise KeyboardInterrupt
        return self.player.act(observation)


def test_a_stopped_round_robin_keeps_its_games_and_plays_on_from_there():
    perfect = PerfectPlayer(TTT.rules, 2)
    stopping = StopsAt(WinBlockPlayer(TTT.rules, 1), at=20)
    robin = RoundRobin([RandomPlayer(0), stopping, perfect], TTT.make_env, games_per_seat=3)
    with pytest.raises(KeyboardInterrupt):
        robin.play()
    # Tic-tac-toe games are 5-9 moves, 2-5 of them winblock's: its 20th is in game 4-10,
    # all of them against random (the pairing's first 6 games).
    assert 3 <= robin.played < 6 + 6
    games = robin.wins + robin.wins.T + robin.draws
    assert games.sum() == 2 * robin.played
    assert games[1, 2] == 0 or robin.played > 6
    assert games[0, 1] == min(robin.played, 6)
    robin.play()  # the rest, from the game that stopped (played again, whole)
    assert robin.played == robin.games == 18
    games = robin.wins + robin.wins.T + robin.draws
    np.testing.assert_array_equal(games, 6 * (1 - np.eye(3)))


def test_players_a_stopped_round_robin_did_not_reach_are_not_rated():
    wins = np.array([[0, 3, 0], [1, 0, 0], [0, 0, 0]])  # random-winblock only
    draws = np.array([[0, 1, 0], [1, 0, 0], [0, 0, 0]])
    ratings = rate(["random", "winblock", "perfect"], wins, draws, 0, np.random.default_rng(0))
    assert ratings[0].rating == 0.0 and ratings[0].games == ratings[1].games == 5
    assert ratings[1].rating < 0.0 and ratings[1].score == pytest.approx(1.5 / 5)
    assert ratings[1].low <= ratings[1].rating <= ratings[1].high
    perfect = ratings[2]
    assert perfect.games == 0
    assert np.isnan([perfect.rating, perfect.low, perfect.high, perfect.score]).all()
    # Rated alone, the two that played get the same figures.
    alone = rate(["random", "winblock"], wins[:2, :2], draws[:2, :2], 0, np.random.default_rng(0))
    assert [r.rating for r in alone] == [r.rating for r in ratings[:2]]
    assert [(r.low, r.high) for r in alone] == [(r.low, r.high) for r in ratings[:2]]


def test_kept_agents_come_in_training_order(tmp_path):
    keep_agents(tmp_path, [300, 5, 40])
    snapshots = kept_agents(tmp_path)
    assert [s.train_step for s in snapshots] == [5, 40, 300]
    assert [s.minutes for s in snapshots] == [pytest.approx(x / 120) for x in (5, 40, 300)]
    assert snapshots[0].path.name == "agent-000000005.npz"


def test_runs_without_kept_agents_say_so(tmp_path):
    with pytest.raises(BoardqError, match="does not exist"):
        kept_agents(tmp_path / "missing")
    with pytest.raises(BoardqError, match="has no agents/ folder"):
        kept_agents(tmp_path)
    (tmp_path / "agents").mkdir()
    with pytest.raises(BoardqError, match="holds no agent-"):
        kept_agents(tmp_path)


def test_plot_is_a_png_by_time_or_by_step(tmp_path):
    pytest.importorskip("matplotlib")
    for elapsed in (True, False):
        run = tmp_path / str(elapsed)
        keep_agents(run, [10, 20], elapsed=elapsed)
        snapshots = kept_agents(run)
        ratings = rate(
            ["random", "a", "b"],
            np.array([[0, 2, 1], [8, 0, 4], [9, 6, 0]]),
            np.zeros((3, 3), int),
            0,
            np.random.default_rng(0),
            rounds=20,
        )
        path = plot_ratings(snapshots, ratings[1:], run / "league.png", "test")
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert path.stat().st_size > 5000


def test_plot_without_matplotlib_raises_import_error(tmp_path, monkeypatch):
    keep_agents(tmp_path, [1])
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as if it were not installed
    with pytest.raises(ImportError):
        plot_ratings(kept_agents(tmp_path), [], tmp_path / "x.png", "t")
