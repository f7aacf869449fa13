"""Learning curves read off a run directory (`boardq.benchmark.learncurve`)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from boardq.benchmark import learncurve
from boardq.config import NetworkConfig
from boardq.players.agentfile import export_agent
from boardq_games import get_game

C4 = get_game("connect_four")
POSITIONS = Path(__file__).parents[3] / "games" / "connect_four" / "critical-positions.json"


def _run(tmp_path: Path) -> Path:
    run = tmp_path / "out" / "connect_four" / "20260101-000000"
    (run / "agents").mkdir(parents=True)
    rows = [
        {"elapsed_sec": 60.0, "train_steps": 1000},
        {"elapsed_sec": 120.0, "train_steps": 3000, "eval/version": 3000, "eval/x/score": 0.4},
        {"elapsed_sec": 150.0, "train_steps": 4000, "eval/version": 3000, "eval/x/score": 0.4},
        {"elapsed_sec": 240.0, "train_steps": 7000, "eval/version": 7000, "eval/x/score": 0.7},
    ]
    lines = [json.dumps(r) for r in rows] + ['{"elapsed_sec": 250, "train_st']  # cut short
    (run / "metrics.jsonl").write_text("\n".join(lines) + "\n")
    size = int(np.prod(C4.obs_shape))
    zeros = [np.zeros((size, C4.num_actions), np.float32), np.zeros(C4.num_actions, np.float32)]
    net = NetworkConfig(conv_filters=(), hidden_units=())
    for step in (2000, 5500):
        export_agent(run / "agents" / f"agent-{step:09d}.npz", "connect_four", net,
                     C4.obs_shape, C4.num_actions, zeros)  # fmt: skip
    return run


def test_the_run_is_found_under_an_out_dir_and_its_minutes_read_off_its_metrics(tmp_path):
    run = _run(tmp_path)
    assert learncurve.run_dir_of(tmp_path / "out") == run
    assert learncurve.run_dir_of(run) == run
    with pytest.raises(ValueError, match="expected one run directory, found 0"):
        learncurve.run_dir_of(tmp_path)
    # 2,000 steps: halfway from 1,000 (1 min) to 3,000 (2 min); 5,500: 4,000 to 7,000.
    np.testing.assert_allclose(learncurve.minutes_at(run, [2000, 5500]), [1.5, 3.25])
    assert [s for s, _ in learncurve.kept_agents(run)] == [2000, 5500]


def test_a_ladder_figure_is_one_point_a_rating_at_the_minutes_it_was_written(tmp_path):
    run = _run(tmp_path)
    assert learncurve.ladder_curve(run, "eval/x/score") == [(2.0, 0.4), (4.0, 0.7)]
    assert learncurve.ladder_curve(run, "eval/y/score") == []


def test_each_kept_agents_share_of_the_positions_the_network_alone(tmp_path):
    run = _run(tmp_path)
    curve = learncurve.positions_curve(run, C4, POSITIONS)
    # A network of zeros plays the first legal move: the leftmost column not full.
    data = json.loads(POSITIONS.read_text())["positions"]
    first_open = [min(c for c in range(7) if p["moves"].count(c) < 6) for p in data]
    want = np.mean([c in p["best"] for c, p in zip(first_open, data, strict=True)])
    assert 0.05 < want < 0.95  # the figure tells agents apart
    assert [m for m, _ in curve] == pytest.approx([1.5, 3.25])
    assert [s for _, s in curve] == pytest.approx([want, want])


def test_each_kept_agent_plays_the_opponent_through_boardq_evaluate(tmp_path):
    run = tmp_path / "ttt" / "tictactoe" / "20260101-000000"
    (run / "agents").mkdir(parents=True)
    rows = [{"elapsed_sec": 0.0, "train_steps": 0}, {"elapsed_sec": 120.0, "train_steps": 100}]
    (run / "metrics.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    ttt = get_game("tictactoe")
    size = int(np.prod(ttt.obs_shape))
    zeros = [np.zeros((size, ttt.num_actions), np.float32), np.zeros(ttt.num_actions, np.float32)]
    net = NetworkConfig(conv_filters=(), hidden_units=())
    export_agent(run / "agents" / "agent-000000050.npz", "tictactoe", net, ttt.obs_shape,
                 ttt.num_actions, zeros)  # fmt: skip
    curve = learncurve.games_curve(run, "tictactoe", "perfect", games=2, seed=1)
    # One point, at 1 minute; perfect play never loses, so at most draws: score <= 0.5.
    assert len(curve) == 1 and curve[0][0] == pytest.approx(1.0)
    assert 0.0 <= curve[0][1] <= 0.5
    with pytest.raises(ValueError, match="boardq evaluate failed"):
        learncurve.games_curve(run, "tictactoe", "mcts:0", games=1)
