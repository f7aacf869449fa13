"""`boardq league` end to end: a run's kept agents rated over time, and one-line refusals.

The kept agents are written here as the trainer writes them (tiny networks whose output
bias ranks the moves). Refusals happen before TensorFlow loads.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from boardq.config import NetworkConfig
from boardq.players.agentfile import export_agent

ROOT = Path(__file__).resolve().parents[3]  # the checkout under test, not an installed copy
STEPS = [2000, 10, 500]  # written out of order on purpose


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    """A run directory with agents/agent-<step>.npz for STEPS."""
    run = tmp_path_factory.mktemp("league") / "run"
    (run / "agents").mkdir(parents=True)
    net = NetworkConfig(conv_filters=(), hidden_units=())
    rng = np.random.default_rng(0)
    for step in STEPS:
        weights = [np.zeros((18, 9), np.float32), rng.permutation(9).astype(np.float32)]
        info = {"train_step": step, "transitions": 16 * step, "elapsed_sec": 0.06 * step}
        path = run / "agents" / f"agent-{step:09d}.npz"
        export_agent(path, "tictactoe", net, (3, 3, 2), 9, weights, info)
    export_agent(run.parent / "c4.npz", "connect_four", net, (6, 7, 2), 7,
                 [np.zeros((84, 7), np.float32), np.zeros(7, np.float32)])  # fmt: skip
    return run


def league(args: list[str], cwd: Path, block_matplotlib: bool = False):
    code = "import sys\n"
    if block_matplotlib:
        code += "sys.modules['matplotlib'] = None  # as if it were not installed\n"
    code += "from boardq.commands import main\nsys.exit(main(['league', *sys.argv[1:]]))\n"
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=300,
        check=False,
    )


@pytest.mark.parametrize(
    "args, code, message",
    [
        (["tictactoe", "bogus"], 2, "'bogus' is neither a player (random, winblock"),
        (["tictactoe", "mcts:0"], 2, "simulations must be >= 1"),
        (["tictactoe", "search:2"], 1, "search:2: name the agent to search with"),
        (["tictactoe"], 1, "a league needs at least one player besides random"),
        (["connect_four", "perfect"], 1, "the perfect player is for tictactoe only"),
        (["tictactoe", "c4.npz"], 1, "c4.npz is an agent for 'connect_four'"),
        (["tictactoe", "--run", "."], 1, "has no agents/ folder"),
        (["tictactoe", "--run", "nowhere"], 1, "run directory nowhere does not exist"),
        (["tictactoe", "random", "--games", "0"], 2, "expected a whole number >= 1"),
        (
            ["openspiel:breakthrough(rows=6,columns=6)", "winblock", "--symmetric"],
            1,
            "--symmetric needs board symmetries, and Breakthrough(columns=6,rows=6) has none",
        ),
    ],
)
def test_bad_players_and_runs_are_one_line(run_dir, args, code, message):
    result = league(args, run_dir.parent)
    assert result.returncode == code, result.stderr
    assert result.stdout == ""
    assert result.stderr.startswith("boardq league: error: ")
    assert message in result.stderr and result.stderr.count("\n") == 1


def test_run_agents_rated_in_training_order_as_json_with_a_plot(run_dir):
    args = ["tictactoe", "winblock", "--run", str(run_dir), "--games", "4", "--json"]
    result = league(args, run_dir.parent)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    names = [p["name"] for p in report["players"]]
    assert names == ["random", "winblock"] + [f"agent-{s:09d}" for s in sorted(STEPS)]
    players = {p["name"]: p for p in report["players"]}
    assert players["random"]["elo"] == players["random"]["elo_low"] == 0.0
    for p in report["players"]:
        assert p["games"] == 4 * 2 * 4  # four opponents, four games from each seat
        assert p["elo_low"] <= p["elo"] <= p["elo_high"]
    kept = [players[f"agent-{s:09d}"] for s in sorted(STEPS)]
    assert [p["train_step"] for p in kept] == sorted(STEPS)
    assert [p["minutes"] for p in kept] == pytest.approx([0.001 * s for s in sorted(STEPS)])
    assert report["plot"] == str(run_dir / "league.png")
    assert report["symmetries"] == 1
    assert (run_dir / "league.png").read_bytes()[:4] == b"\x89PNG"
    wins, draws = np.array(report["matrix"]["wins"]), np.array(report["matrix"]["draws"])
    np.testing.assert_array_equal(wins + wins.T + draws, 8 * (1 - np.eye(5)))


def test_table_without_matplotlib_says_so_in_one_line(run_dir, tmp_path):
    plot = tmp_path / "elo.png"
    args = ["tictactoe", "--run", str(run_dir), "--games", "2", "--plot", str(plot)]
    result = league(args, run_dir.parent, block_matplotlib=True)
    assert result.returncode == 0, result.stderr
    assert result.stderr == "no plot: matplotlib is not installed (pip install matplotlib)\n"
    assert not plot.exists()
    lines = result.stdout.splitlines()
    assert lines[0].startswith("Tic-tac-toe league: 4 players, 2 games per seat per pairing")
    assert lines[1].startswith("Elo: Bradley-Terry fit over all games")
    assert lines[2].split() == ["player", "step", "min", "Elo", "interval", "games", "score"]
    rows = [line.split() for line in lines[3:]]
    assert [row[0] for row in rows] == ["random"] + [f"agent-{s:09d}" for s in sorted(STEPS)]
    assert rows[0][1:5] == ["0", "0", "to", "0"]
    assert [row[1] for row in rows[1:]] == [str(s) for s in sorted(STEPS)]


def test_symmetric_agents_say_so_in_the_table_and_json(run_dir, tmp_path):
    args = ["tictactoe", "--run", str(run_dir), "--games", "2", "--plot", str(tmp_path / "p.png")]
    table = league([*args, "--symmetric"], run_dir.parent)
    assert table.returncode == 0, table.stderr
    assert table.stdout.splitlines()[0].startswith(
        "Tic-tac-toe league: 4 players, 2 games per seat per pairing, "
        "agents' values averaged over 8 symmetries ("
    )
    report = json.loads(league([*args, "--symmetric", "--json"], run_dir.parent).stdout)
    assert report["symmetries"] == 8
