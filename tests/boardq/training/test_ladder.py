"""Evaluation during training: the ladder in a low-priority child process."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import numpy as np
import pytest

from boardq.players.agent import Agent
from boardq.records import read_records
from boardq.rundir import BEST_AGENT_FILE, GAMES_DIR
from boardq.training.ladder import GAMES_KEPT, Ladder
from boardq.training.trainer import Trainer
from boardq_games import get_game
from boardq_games.go import HANDICAP


def weights(seed):
    rng = np.random.default_rng(seed)
    return [rng.normal(size=s).astype(np.float32) for s in ((18, 8), (8,), (8, 9), (9,))]


LADDER_HANG_SEC = 240.0
"""How long a test waits for one evaluation: a guard against a hang only, under pytest's 300 s.

The ladder's child runs at nice 19 in a session of nice 10 (`boardq.training.ladder`): on
a busy machine it gets a few percent of a core, and its seconds of work (3.6 s of CPU for
two games against random) take a minute or more.
"""
RUN_HANG_MINUTES = 12.0
"""The time budget of the runs below, which end at their first ladder score: a guard
against a hang only (their pytest timeout is over it), so a slow ladder does not end them."""


def wait(ladder, timeout=LADDER_HANG_SEC):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        result = ladder.poll()
        if result is not None:
            return result
        time.sleep(0.2)
    raise AssertionError("the ladder did not finish")


def test_the_ladder_scores_a_snapshot_and_keeps_the_best(tiny_config, tmp_path):
    cfg = tiny_config.replace(eval_ladder="random,perfect", eval_games=3, hidden_units=(8,))
    ladder = Ladder(cfg, get_game("tictactoe"), tmp_path)
    assert ladder.start(7, weights(0), {"train_step": 7})
    assert not ladder.start(8, weights(1), {})  # one evaluation at a time
    m = wait(ladder)
    for name in ("random", "perfect"):
        assert 0.0 <= m[f"eval/{name}/score"] <= 1.0
        assert m[f"eval/{name}/first/games"] == 3
    # Nobody beats perfect play: a loss or a draw from each seat.
    assert m["eval/perfect/score"] <= 0.5
    mean = (m["eval/random/score"] + m["eval/perfect/score"]) / 2
    assert m["eval/ladder_score"] == pytest.approx(mean)
    assert m["eval/best_ladder_score"] == m["eval/ladder_score"] and m["eval/version"] == 7
    best = Agent.load(tmp_path / BEST_AGENT_FILE)
    assert best.info == {
        "train_step": 7,
        "discount": cfg.discount,  # what its search discounts by
        "prune_moves": False,  # and whether it leaves pruned moves out at play
        "symmetric": False,  # and whether it plays averaged over the symmetries
        "ladder": "random,perfect",
        "ladder_score": m["eval/ladder_score"],
    }
    assert ladder.poll() is None and not ladder.busy
    # The evaluation's games are kept: 3 a seat against each of the 2 opponents.
    games = read_records(tmp_path / GAMES_DIR / "ladder-000000007" / "games.jsonl").records
    assert len(games) == 12 and {g.event for g in games} == {
        "boardq evaluate vs random",
        "boardq evaluate vs perfect",
    }


def test_the_ladder_keeps_the_games_of_its_last_evaluations_only(tiny_config, tmp_path):
    ladder = Ladder(tiny_config.replace(eval_ladder="random"), get_game("tictactoe"), tmp_path)
    games = tmp_path / GAMES_DIR
    for version in range(7):
        folder = games / f"ladder-{version:09d}"
        folder.mkdir(parents=True)
        os.utime(folder, (1000 + version, 1000 + version))
    (games / "notes").mkdir()  # not the ladder's: left alone
    new = ladder._games_folder(7)
    assert new == games / "ladder-000000007"
    kept = sorted(p.name for p in games.iterdir())
    assert kept == ["ladder-000000003", "ladder-000000004", "ladder-000000005", "ladder-000000006",
                    "notes"]  # fmt: skip
    assert GAMES_KEPT == 5  # the four newest and the one about to start
    (new / "games.jsonl").parent.mkdir()
    (new / "games.jsonl").write_text("{}\n")
    assert ladder._games_folder(7) == new and not new.exists()  # the same snapshot again


def test_a_symmetric_ladder_plays_the_averaged_agent_and_keeps_its_own_best(tiny_config, tmp_path):
    cfg = tiny_config.replace(
        eval_ladder="random", eval_games=2, hidden_units=(8,), eval_symmetric=True
    )
    ladder = Ladder(cfg, get_game("tictactoe"), tmp_path)
    assert ladder.start(3, weights(0), {"train_step": 3})
    m = wait(ladder)
    assert m["eval/symmetries"] == 8  # the 8 images of the square, in one forward pass
    assert Agent.load(tmp_path / BEST_AGENT_FILE).info["ladder"] == "random symmetric"
    # A plain ladder's scores do not compare with it: a resume without it starts afresh.
    assert (
        Ladder(cfg.replace(eval_symmetric=False), get_game("tictactoe"), tmp_path).best_score
        == -np.inf
    )
    assert Ladder(cfg, get_game("tictactoe"), tmp_path).best_score == m["eval/ladder_score"]


def test_a_handicap_ladder_gives_the_agent_its_stones_as_black(tiny_config, tmp_path):
    game = get_game("go")
    cfg = game.preset.replace(
        out_dir=str(tmp_path), eval_ladder="random", eval_games=1, eval_handicap=3,
        conv_filters=(), hidden_units=(8,),
    )  # fmt: skip
    rng = np.random.default_rng(0)
    shapes = ((int(np.prod(game.obs_shape)), 8), (8,), (8, game.num_actions), (game.num_actions,))
    ladder = Ladder(cfg, game, tmp_path)
    assert ladder.start(5, [rng.normal(size=s).astype(np.float32) for s in shapes], {})
    wait(ladder)
    assert Agent.load(tmp_path / BEST_AGENT_FILE).info["ladder"] == "random with handicap 3"
    games = read_records(tmp_path / GAMES_DIR / "ladder-000000005" / "games.jsonl").records
    black = [g for g in games if g.players[1].name == "random"]
    white = [g for g in games if g.players[0].name == "random"]
    assert len(black) == len(white) == 1
    # As black the agent's stones go on the fixed points while random passes between them; as white
    # the game is even.
    labels = [m.label for m in black[0].moves[:5]]
    assert labels == [HANDICAP[3][0], "pass", HANDICAP[3][1], "pass", HANDICAP[3][2]]
    # An even ladder's best agent does not compare with it: a resume without it starts afresh.
    assert Ladder(cfg.replace(eval_handicap=0), game, tmp_path).best_score == -np.inf


def report(score):
    """What `boardq evaluate --json` prints, cut to what the ladder reads."""
    return {"opponents": {"random": {"score": score, "games": 4, "seconds": 0.1}}}


def test_the_best_agent_is_kept_over_a_resume_and_a_tie_goes_to_the_later(tiny_config, tmp_path):
    cfg = tiny_config.replace(eval_ladder="random", eval_games=2, hidden_units=(8,))
    game = get_game("tictactoe")

    def scored(ladder, step, score):  # the candidate of `step` came back with `score`
        ladder._candidate = (weights(step), {"train_step": step})
        ladder._version = step
        return ladder._metrics(report(score))

    ladder = Ladder(cfg, game, tmp_path)
    assert scored(ladder, 1, 0.6)["eval/best_ladder_score"] == 0.6
    assert scored(ladder, 2, 0.5)["eval/best_ladder_score"] == 0.6
    assert Agent.load(tmp_path / BEST_AGENT_FILE).info["train_step"] == 1
    resumed = Ladder(cfg, game, tmp_path)  # the run resumed: its best so far still holds
    assert resumed.best_score == 0.6
    assert scored(resumed, 3, 0.55)["eval/best_ladder_score"] == 0.6
    assert Agent.load(tmp_path / BEST_AGENT_FILE).info["train_step"] == 1
    scored(resumed, 4, 0.6)  # as good and trained longer
    assert Agent.load(tmp_path / BEST_AGENT_FILE).info["train_step"] == 4
    other = Ladder(cfg.replace(eval_ladder="random,perfect"), game, tmp_path)
    assert other.best_score == -np.inf  # resumed with other opponents: a fresh start


def test_a_failed_evaluation_stops_with_its_message(tiny_config, tmp_path):
    cfg = tiny_config.replace(
        eval_ladder="agent:/no/such/agent.npz", eval_games=2, hidden_units=(8,)
    )
    ladder = Ladder(cfg, get_game("tictactoe"), tmp_path)
    ladder.start(0, weights(0), {})
    with pytest.raises(RuntimeError, match="the evaluation ladder failed: .*does not exist"):
        wait(ladder)


class StopAtFirstScore:
    """A logger that stops training once the first ladder result has been logged."""

    def __init__(self):
        self.trainer = None
        self.scored = []

    def write(self, metrics):
        if "eval/random/score" in metrics:
            self.scored.append(metrics)
            self.trainer.stop.set()

    def close(self):
        pass


@pytest.mark.timeout(60 * RUN_HANG_MINUTES + 180)  # the run's guard, then building and checks
def test_training_logs_the_ladder_and_refuses_a_ladder_that_cannot_play(tiny_config):
    game = get_game("tictactoe")
    cfg = tiny_config.replace(
        eval_ladder="random", eval_games=2, eval_every_sec=0.5, budget_steps=0,
        budget_minutes=RUN_HANG_MINUTES, log_every_sec=0.25,
    )  # fmt: skip
    trainer, watch = Trainer(cfg, game), StopAtFirstScore()
    watch.trainer = trainer
    trainer.build()
    result = trainer.run([watch])
    assert watch.scored and result.metrics["elapsed_sec"] < 60 * RUN_HANG_MINUTES  # not the budget
    rows = [json.loads(x) for x in (result.run_dir / "metrics.jsonl").read_text().splitlines()]
    scored = [r for r in rows if "eval/random/score" in r]
    assert scored and 0 <= scored[-1]["eval/random/score"] <= 1
    assert (result.run_dir / BEST_AGENT_FILE).exists()
    from boardq.errors import BoardqError

    other = cfg.replace(game="connect_four", eval_ladder="perfect")
    with pytest.raises(BoardqError, match="perfect player is for tictactoe only"):
        Trainer(other, get_game("connect_four")).build()
    generic = get_game("openspiel:breakthrough(rows=6,columns=6)")
    unfit = cfg.replace(game=generic.name, eval_symmetric=True)
    with pytest.raises(BoardqError, match="eval_symmetric needs board symmetries"):
        Trainer(unfit, generic).build()
    with pytest.raises(BoardqError, match="eval_handicap 9: Tic-tac-toe has no handicap stones"):
        Trainer(cfg.replace(eval_handicap=9), game).build()
    go = get_game("go")
    with pytest.raises(
        BoardqError,
        match=r"eval_handicap 10: Go places 2-9 handicap stones, not 10 \(0: even games\)",
    ):
        Trainer(go.preset.replace(out_dir=cfg.out_dir, eval_handicap=10), go).build()
    # Refused before a run directory was made: only the tic-tac-toe run is there.
    assert [p.name for p in Path(cfg.out_dir).iterdir()] == ["tictactoe"]


@pytest.mark.timeout(60 * RUN_HANG_MINUTES + 240)  # the run's guard, a first run and checks
def test_with_averaging_the_ladder_rates_the_mean_of_the_last_kept_agents(tiny_config):
    game = get_game("tictactoe")
    # A run that keeps agents, then its resume with the ladder on the mean of the last 2.
    cfg = tiny_config.replace(keep_agent_every_sec=0.05, budget_steps=200)
    first = Trainer(cfg, game).run()
    assert len(list((first.run_dir / "agents").glob("agent-*.npz"))) >= 2
    cfg = cfg.replace(
        eval_ladder="random", eval_games=2, eval_every_sec=0.2, eval_average_agents=2,
        budget_steps=0, budget_minutes=RUN_HANG_MINUTES, log_every_sec=0.25,
    )  # fmt: skip
    trainer, watch = Trainer(cfg, game, resume_dir=first.run_dir), StopAtFirstScore()
    watch.trainer = trainer
    trainer.build()
    result = trainer.run([watch])
    assert watch.scored and result.metrics["elapsed_sec"] < 60 * RUN_HANG_MINUTES  # not the budget
    best = Agent.load(result.run_dir / BEST_AGENT_FILE)
    kept = sorted((result.run_dir / "agents").glob("agent-*.npz"))
    steps = [Agent.load(p).info["train_step"] for p in kept]
    # Its weights are the mean of the newest 2 kept agents when it was rated; the ladder
    # names it by the newer one's train step.
    newest = steps.index(best.info["train_step"])
    assert best.info["averaged_agents"] == 2
    assert best.info["averaged_from_step"] == steps[newest - 1]
    assert watch.scored[0]["eval/version"] == steps[newest]
    pair = [Agent.load(p).weights() for p in kept[newest - 1 : newest + 1]]
    for got, a, b in zip(best.weights(), *pair, strict=True):
        np.testing.assert_allclose(got, (a + b) / 2, rtol=1e-6)


def test_a_rung_whose_engine_is_missing_is_left_out_in_one_line():
    from boardq.players.factory import ladder_specs

    specs, notes = ladder_specs("random,gtp:no-such-engine --mode gtp,mcts:5", get_game("go"))
    assert [s.name for s in specs] == ["random", "mcts:5"]
    assert notes == [
        "evaluation ladder: gtp:no-such-engine --mode gtp left out: 'no-such-engine' is not "
        "installed (Debian: apt-get install gnugo grhino)"
    ]


def test_the_engine_rung_decides_which_agent_is_best(tmp_path):
    from boardq.gtp.client import find_program

    if find_program("gnugo") is None:
        pytest.skip("GNU Go is not installed (apt-get install gnugo)")
    engine = "gtp:gnugo --mode gtp --level 1 --chinese-rules --capture-all-dead"
    game = get_game("go")
    assert engine in game.preset.eval_ladder  # the preset's ladder has the rung
    ladder = Ladder(game.preset.replace(out_dir=str(tmp_path)), game, tmp_path)
    assert ladder.engines == [engine]

    def report(random_score, engine_score, margin):
        return {
            "opponents": {
                "random": {"score": random_score},
                engine: {"score": engine_score, "engine/opponent_margin": margin},
            }
        }

    strong_vs_random = ladder.key(report(1.0, 0.0, -80.0))
    closer_count = ladder.key(report(0.5, 0.0, -40.0))
    beats_the_engine = ladder.key(report(0.4, 0.05, -60.0))
    assert strong_vs_random < closer_count < beats_the_engine
