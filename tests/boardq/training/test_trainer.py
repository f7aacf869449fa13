"""Training as a whole: threads, failures, budgets, checkpoints and resume."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import numpy as np
import pytest
from pettingzoo.utils.wrappers import BaseWrapper

from boardq.errors import BoardqError, RunDirError
from boardq.game import Game
from boardq.players.agent import Agent
from boardq.training.trainer import Trainer
from boardq_games import get_game


def test_training_runs_every_actor_and_writes_the_run(tiny_config):
    game = get_game("tictactoe")
    trainer = Trainer(tiny_config, game)
    result = trainer.run()
    assert not result.interrupted
    m = result.metrics
    # The step budget is exact although a call trains up to steps_per_call (8) steps.
    assert tiny_config.budget_steps % tiny_config.steps_per_call != 0
    assert m["train_steps"] == tiny_config.budget_steps == int(trainer.learner.step.numpy())
    # Every actor thread played its own games.
    actors = trainer.collection.actors
    assert len(actors) == 2 and all(a.stats.moves > 0 for a in actors)
    assert sum(a.stats.moves for a in actors) >= m["transitions"]
    # The replay ratio is held: samples trained per transition collected.
    ratio = m["replay_ratio_measured"]
    assert 0.7 * tiny_config.replay_ratio < ratio < 1.3 * tiny_config.replay_ratio
    run = result.run_dir
    assert json.loads((run / "config.json").read_text())["game"] == "tictactoe"
    assert (run / "checkpoints" / "checkpoint").exists()
    assert list((run / "tb").iterdir())
    lines = (run / "metrics.jsonl").read_text().splitlines()
    assert json.loads(lines[-1])["train_steps"] == m["train_steps"]
    assert m["peak_rss_mb"] > 0
    agent = Agent.load(run)
    assert agent.game == "tictactoe"
    assert agent.info["discount"] == tiny_config.discount == 0.95  # what its search uses
    # The final agent is also kept, named by its train step, for the league.
    kept = sorted(p.name for p in (run / "agents").iterdir())
    assert kept[-1] == f"agent-{tiny_config.budget_steps:09d}.npz"
    assert Agent.load(run / "agents" / kept[-1]).info["train_step"] == tiny_config.budget_steps
    np.testing.assert_allclose(
        agent.weights()[0], trainer.learner.online.get_weights()[0], rtol=0, atol=0
    )
    # The run ended its input pipeline itself: the generator returned rather than being
    # left suspended (usually with full prefetch buffers) for the interpreter's exit.
    assert trainer.feed.ended


class BrokenBoard(BaseWrapper):
    """An AEC wrapper whose game breaks after a number of moves."""

    def __init__(self, env, moves: int):
        super().__init__(env)
        self.moves_left = moves

    def step(self, action):
        self.moves_left -= 1
        if self.moves_left < 0:
            raise RuntimeError("the board caught fire")
        super().step(action)


class FailingGame(Game):
    """Tic-tac-toe whose environments break after 40 moves."""

    def make_env(self, **kwargs):
        return BrokenBoard(super().make_env(**kwargs), moves=40)


def test_the_learning_rate_falls_to_its_final_share_over_the_budget(tiny_config):
    cfg = tiny_config.replace(learning_rate=1e-3, lr_final=0.1, budget_steps=40)
    result = Trainer(cfg, get_game("tictactoe")).run()
    assert result.metrics["learning_rate"] == pytest.approx(1e-4)
    constant = Trainer(tiny_config.replace(budget_steps=16), get_game("tictactoe")).run()
    assert constant.metrics["learning_rate"] == pytest.approx(tiny_config.learning_rate)


def test_an_actor_exception_stops_training_and_surfaces(tiny_config):
    base = get_game("tictactoe")
    game = FailingGame(**{f: getattr(base, f) for f in base.__dataclass_fields__})
    # PettingZoo stepping: the vectorized rules would not use the broken environments.
    trainer = Trainer(tiny_config.replace(budget_steps=5_000, vectorized=False), game)
    with pytest.raises(RuntimeError, match="caught fire"):
        trainer.run()
    assert not any(t.is_alive() for t in threading.enumerate() if t.name.startswith("actor"))
    assert trainer.feed.ended


class NoBoardGame(Game):
    """Tic-tac-toe whose environments cannot be made (a game package that is broken)."""

    def make_env(self, **kwargs):
        raise RuntimeError("no board in the box")


def test_a_new_run_whose_build_fails_leaves_no_directory(tiny_config):
    base = get_game("tictactoe")
    game = NoBoardGame(**{f: getattr(base, f) for f in base.__dataclass_fields__})
    trainer = Trainer(tiny_config.replace(vectorized=False), game)
    with pytest.raises(RuntimeError, match="no board in the box"):
        trainer.build()
    assert trainer.run_dir is not None and not trainer.run_dir.exists()
    assert list((trainer.run_dir.parent).iterdir()) == []
    # The out dir itself stays: it is the user's, and may hold other runs.
    assert trainer.run_dir.parent.is_dir()


def test_an_unreachable_ray_address_is_refused_before_a_run_directory(tiny_config):
    import socket

    with socket.socket() as s:  # a port nobody listens on: bound, then let go
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cfg = tiny_config.replace(actor_processes=1, ray_address=f"127.0.0.1:{port}")
    with pytest.raises(BoardqError, match=rf"no Ray cluster answers at 127.0.0.1:{port}"):
        Trainer(cfg, get_game("tictactoe"))
    assert not Path(tiny_config.out_dir).exists()


def test_resume_continues_from_the_checkpoint(tiny_config):
    game = get_game("tictactoe")
    first = Trainer(tiny_config, game).run()
    step = first.metrics["train_steps"]
    weights = Agent.load(first.run_dir).weights()
    resumed = Trainer(tiny_config.replace(budget_steps=step + 40), game, resume_dir=first.run_dir)
    resumed.build()  # restore only, to inspect
    assert int(resumed.learner.step.numpy()) == step
    assert int(resumed.learner.optimizer.iterations.numpy()) == step
    for a, b in zip(weights, resumed.learner.online.get_weights(), strict=True):
        np.testing.assert_array_equal(a, b)
    assert resumed.state.base_transitions == first.metrics["transitions"]
    resumed.close()
    result = Trainer(
        tiny_config.replace(budget_steps=step + 40), game, resume_dir=first.run_dir
    ).run()
    assert result.metrics["train_steps"] >= step + 40
    assert result.metrics["transitions"] > first.metrics["transitions"]


def test_resume_refuses_another_network(tiny_config):
    game = get_game("tictactoe")
    first = Trainer(tiny_config, game).run()
    before = sorted(p.name for p in (first.run_dir / "checkpoints").iterdir())
    other = tiny_config.replace(hidden_units=(64, 64))
    with pytest.raises(RunDirError, match="does not fit"):
        Trainer(other, game, resume_dir=first.run_dir).run()
    assert sorted(p.name for p in (first.run_dir / "checkpoints").iterdir()) == before


def test_resume_needs_a_checkpoint(tiny_config, tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(RunDirError, match="no checkpoint"):
        Trainer(tiny_config, get_game("tictactoe"), resume_dir=tmp_path / "empty").run()


def test_a_second_training_on_a_run_in_use_is_refused(tiny_config):
    game = get_game("tictactoe")
    first = Trainer(tiny_config, game).run()
    holder = Trainer(tiny_config, game, resume_dir=first.run_dir)
    holder.build()
    try:
        with pytest.raises(RunDirError, match="in use by another training"):
            Trainer(tiny_config, game, resume_dir=first.run_dir).build()
    finally:
        holder.close()
    # Released: the run can be resumed again.
    again = Trainer(
        tiny_config.replace(budget_steps=tiny_config.budget_steps + 8), game, first.run_dir
    )
    assert again.run().metrics["train_steps"] == tiny_config.budget_steps + 8


def test_training_with_an_opponent_pool(tiny_config):
    cfg = tiny_config.replace(pool_share=0.5, pool_every_steps=8, pool_size=3, budget_steps=200)
    trainer = Trainer(cfg, get_game("tictactoe"))
    m = trainer.run().metrics
    assert trainer.learner.pool.versions[-1] <= 200 and len(trainer.learner.pool.versions) == 3
    assert m["pool/games"] > 0 and 0.0 <= m["pool/score"] <= 1.0
