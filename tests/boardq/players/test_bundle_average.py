"""scripts/bundle_agents.py --average N: the mean of the last N agents a run kept, written
so that it plays as the run's own agents do (averaged over the symmetries where the run
chose it), and a clear stop where the run cannot give N.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from agent_files import random_agent
from project_scripts import load_script

from boardq import Agent
from boardq.config import NetworkConfig
from boardq.players.agentfile import SYMMETRIC_KEY, export_agent, read_agent
from boardq.rundir import CONFIG_FILE
from boardq_games import get_game


def _run(tmp_path: Path, steps: list[int], symmetric_entry: bool) -> tuple[Path, list]:
    """A Connect Four run directory keeping agents at `steps`; their weights, oldest first.

    `symmetric_entry`: whether the kept files say `symmetric` (files written before the
    entry existed do not).
    """
    game = get_game("connect_four")
    run = tmp_path / "run"
    (run / "agents").mkdir(parents=True)
    (run / CONFIG_FILE).write_text(game.preset.to_json(), "utf-8")  # eval_symmetric: True
    net, kept = NetworkConfig(hidden_units=(16,)), []
    for i, step in enumerate(steps):
        weights = Agent.load(random_agent(tmp_path / f"r{i}.npz", game.name, seed=i)).weights()
        info = {"train_step": step, "saved": 1.0, "discount": 0.99}
        if symmetric_entry:
            info[SYMMETRIC_KEY] = False
        path = run / "agents" / f"agent-{step:09d}.npz"
        export_agent(path, game.name, net, game.obs_shape, game.num_actions, weights, info)
        kept.append(weights)
    return run, kept


def test_the_mean_of_the_last_kept_agents_plays_as_the_run_chose(tmp_path):
    run, kept = _run(tmp_path, [100, 200, 300], symmetric_entry=False)
    path = load_script("bundle_agents").average_kept(run, 2)
    assert path == run / "mean-last2-300.npz"
    header, weights = read_agent(path)
    for i, w in enumerate(weights):
        np.testing.assert_allclose(w, (kept[1][i] + kept[2][i]) / 2, rtol=1e-6)
    info = header["info"]
    assert (info["averaged_agents"], info["averaged_from_step"]) == (2, 200)
    # The kept files are older than the entry: the run's config says (the preset's True).
    assert info[SYMMETRIC_KEY] is True
    assert Agent.load(path).symmetries == 2


def test_a_kept_file_s_own_entry_wins_over_the_run_s_config(tmp_path):
    run, _ = _run(tmp_path, [100, 200], symmetric_entry=True)
    path = load_script("bundle_agents").average_kept(run, 2)
    assert read_agent(path)[0]["info"][SYMMETRIC_KEY] is False
    assert Agent.load(path).symmetries == 1


def test_too_few_kept_agents_or_no_run_stop_with_what_is_wrong(tmp_path):
    run, _ = _run(tmp_path, [100, 200], symmetric_entry=True)
    script = load_script("bundle_agents")
    with pytest.raises(SystemExit, match="kept 2 agents in agents/; --average 3"):
        script.average_kept(run, 3)
    with pytest.raises(SystemExit, match="is not a run directory"):
        script.average_kept(tmp_path / "agents-only", 2)
    assert not list(run.glob("mean-*.npz"))  # nothing half-made is left behind
