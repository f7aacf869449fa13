"""The ladder's agent with a tree search (`eval_visits`)."""

from __future__ import annotations

import time

import numpy as np
import pytest

from boardq.errors import BoardqError
from boardq.players.agent import Agent
from boardq.records import read_records
from boardq.rundir import BEST_AGENT_FILE, GAMES_DIR
from boardq.training.ladder import Ladder
from boardq.training.trainer import Trainer
from boardq_games import get_game


def weights(seed):
    rng = np.random.default_rng(seed)
    return [rng.normal(size=s).astype(np.float32) for s in ((18, 8), (8,), (8, 9), (9,))]


def wait(ladder, timeout=240.0):
    """The evaluation's metrics; the timeout, under pytest's 300 s, only guards against a hang
    (the ladder's child runs at nice 19: a busy machine gives it a few percent of a core)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        result = ladder.poll()
        if result is not None:
            return result
        time.sleep(0.2)
    raise AssertionError("the ladder did not finish")


def test_a_ladder_with_visits_plays_the_searching_agent_and_keeps_its_own_best(
    tiny_config, tmp_path
):
    cfg = tiny_config.replace(eval_ladder="random", eval_games=1, hidden_units=(8,), eval_visits=5)
    ladder = Ladder(cfg, get_game("tictactoe"), tmp_path)
    assert ladder.start(4, weights(0), {"train_step": 4})
    m = wait(ladder)
    games = read_records(tmp_path / GAMES_DIR / "ladder-000000004" / "games.jsonl").records
    names = {p.name for g in games for p in g.players}
    assert any("tree search of 5 visits a move" in name for name in names)
    info = Agent.load(tmp_path / BEST_AGENT_FILE).info
    assert info["ladder"] == "random with a tree search of visits 5"
    # Scores of the network alone do not compare with it: a resume without it starts afresh.
    plain = Ladder(cfg.replace(eval_visits=0), get_game("tictactoe"), tmp_path)
    assert plain.best_score == -np.inf
    assert Ladder(cfg, get_game("tictactoe"), tmp_path).best_score == m["eval/ladder_score"]


def test_visits_for_a_game_without_rules_are_refused_before_a_run(tiny_config):
    generic = get_game("openspiel:tic_tac_toe")
    cfg = tiny_config.replace(game=generic.name, eval_ladder="random", eval_visits=10)
    with pytest.raises(BoardqError, match="eval_visits needs rules"):
        Trainer(cfg, generic)
