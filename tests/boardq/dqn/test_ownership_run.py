"""`boardq train go --ownership-targets true` as a user runs it: half a minute of
training that logs the heads' losses, an agent that `Agent.load` and `boardq evaluate`
play as any other, and a resume that goes on with the replay's ownership columns."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from cli_runs import FAST, boardq

from boardq.players.agent import Agent
from boardq.players.agentfile import network_of, q_arrays, read_agent


@pytest.mark.slow
def test_a_go_run_with_ownership_targets_trains_plays_and_resumes(tmp_path):
    first = boardq(
        "train", "go", *FAST, "--ownership-targets", "true", "--budget-minutes", "0.5",
        "--out-dir", str(tmp_path),
    )  # fmt: skip
    assert first.returncode == 0, first.stderr
    (run,) = (tmp_path / "go").iterdir()
    last = json.loads((run / "metrics.jsonl").read_text().splitlines()[-1])
    assert last["train_steps"] > 0 and last["transitions"] > 0 and last["games"] > 0
    for key in ("ownership_loss", "score_loss"):
        assert math.isfinite(last[key]) and 0.0 < last[key] < 2.0
    # The agent file holds the Q-network alone; it loads and plays.
    header, weights = read_agent(run / "agent.npz")
    config = json.loads((run / "config.json").read_text())
    assert config["ownership_targets"] is True
    assert "policy" not in header and len(weights) == 2 * (2 + 1 + 1)  # 2 convs, 1 dense, Q
    assert len(weights) == q_arrays(network_of(header))
    agent = Agent.load(run, game="go")
    planes = np.zeros((1, 9, 9, 8), np.int8)
    assert agent.q_batch(planes).shape == (1, 82)
    played = boardq("evaluate", "go", "--agent", str(run), "--opponent", "random", "--games", "1")
    assert played.returncode == 0, played.stderr
    assert "random" in played.stdout
    # Resumed: the replay comes back with its ownership columns, and training goes on.
    again = boardq("train", "go", "--resume", str(run), "--budget-minutes", "0.75")
    assert again.returncode == 0, again.stderr
    assert "replay restored" in again.stdout
    lines = (run / "metrics.jsonl").read_text().splitlines()
    resumed = [json.loads(x) for x in lines if json.loads(x)["train_steps"] > last["train_steps"]]
    assert resumed and "ownership_loss" in resumed[-1]
