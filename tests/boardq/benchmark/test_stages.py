"""The benchmark's stages in-process, at tiny durations: each measures what it says.

(`tests/boardq/commands/test_bench.py` runs the whole command, actor processes included.)
"""

from __future__ import annotations

import pytest

from boardq.benchmark import learning, naive, stages, training
from boardq.dqn.builder import Builder
from boardq_games import get_game


@pytest.fixture(scope="module")
def setup():
    game = get_game("connect_four")
    cfg = game.preset.replace(
        actor_threads=1, games_per_thread=16, batch_size=64, replay_capacity=5_000,
        warmup_transitions=500, hidden_units=(16,), eval_games=0,
    )  # fmt: skip
    return game, cfg, Builder(cfg, game).make_learner()


def _play_rates(game):
    return stages.random_play(game, 0.3, seed=0), stages.vector_play(game, 64, 0.3, seed=0)


def test_random_play_and_the_vectorized_rules(setup):
    slow, fast = _play_rates(setup[0])
    assert slow.unit == fast.unit == "moves/s" and fast.rate > 0 and slow.rate > 0


@pytest.mark.perf
def test_the_vectorized_rules_outrun_one_game_at_a_time(setup):
    slow, fast = _play_rates(setup[0])
    assert fast.rate > slow.rate


def test_collection_compares_both_ways_of_stepping_and_keeps_transitions(setup):
    game, cfg, learner = setup
    results, kept = stages.collection(game, cfg, learner, 0.6, rounds=1, keep=300)
    by_key = {r.key: r for r in results}
    assert set(by_key) == {"collection", "collection_pettingzoo"}
    for r in results:
        assert r.rate > 0 and len(r.windows) == 1 and r.figures["games_per_thread"] == 16
        shares = r.figures["time_share"]
        assert 0 < shares["infer"] < 1 and 0 < shares["step"] < 1
    assert sum(len(c["action"]) for c in kept) >= 300


def test_the_learner_stages_and_the_naive_learning_on_collected_transitions(setup):
    game, cfg, learner = setup
    _, kept = stages.collection(game, cfg, learner, 0.6, rounds=1, keep=2_000)
    ceiling, fed = learning.learner_stages(game, cfg, learner, kept, 0.8, rounds=1)
    assert ceiling.rate > 0 and fed.rate > 0 and ceiling.unit == "train steps/s"
    assert 0 < fed.figures["share_of_ceiling"] and fed.figures["iterator_floor"] > 0
    assert fed.figures["replay_ratio_held"] > 0  # held over long runs: test_trainer.py
    assert naive.naive_learning(game, cfg, kept, 1.5).rate > 0


@pytest.mark.perf
def test_the_naive_learning_trails_the_learners_ceiling(setup):
    game, cfg, learner = setup
    _, kept = stages.collection(game, cfg, learner, 0.6, rounds=1, keep=2_000)
    ceiling, _ = learning.learner_stages(game, cfg, learner, kept, 0.8, rounds=1)
    assert naive.naive_learning(game, cfg, kept, 1.5).rate < ceiling.rate


def _standalone_rate(builder, learner, element, seconds: float) -> float:
    """Train steps/s of a LearnerLoop of its own on the main thread, nothing else running."""
    import functools
    import time

    loop = builder.make_learner_loop(learner, {"x": functools.partial(learner.train_on, element)})
    loop.call()
    t0, s0 = time.perf_counter(), loop.steps
    while time.perf_counter() - t0 < seconds:
        loop.call()
    return (loop.steps - s0) / (time.perf_counter() - t0)


@pytest.mark.perf
def test_the_ceiling_is_the_learner_alone(setup):
    game, cfg, learner = setup
    _, kept = stages.collection(game, cfg, learner, 0.6, rounds=1, keep=2_000)
    builder = Builder(cfg, game)
    ring, _ = builder.make_replay(warmup=0)
    element = learning._fill_and_sample(ring, kept, cfg)
    before = _standalone_rate(builder, learner, element, 1.5)
    ceiling, _ = learning.learner_stages(game, cfg, learner, kept, 1.5, rounds=1)
    after = _standalone_rate(builder, learner, element, 1.5)
    # The stage's segments run on a thread of their own with the same loop; on a shared
    # machine short segments vary by a few percent each way, so within 15%.
    assert ceiling.rate >= 0.85 * max(before, after), (ceiling.rate, before, after)


def test_naive_collection_and_full_training(setup):
    game, cfg, _ = setup
    # One model.predict per move is slow (about 20 a second), and slower on cores other
    # work shares: 2 s counted (after 1 s of settling) give it a few transitions.
    assert naive.naive_collection(game, cfg, 3.0).rate > 0
    result = training.training(game, cfg, 6.0)
    assert result.rate > 0 and result.figures["train_steps_per_sec"] > 0
    assert result.figures["replay_ratio_held"] == pytest.approx(cfg.replay_ratio, rel=0.5)


def test_a_learner_sweep_runs_each_value_side_by_side_with_the_main_learner(setup):
    from boardq.benchmark.roofline import roofline, roofline_ratios
    from boardq.benchmark.sweep import sweep

    game, cfg, learner = setup
    _, kept = stages.collection(game, cfg, learner, 0.6, rounds=1, keep=1_000)
    said = []
    found = sweep(game, cfg, {"precision": ("float32",), "batch_splits": (2,)}, learner, kept,
                  0.6, 1, said.append)  # fmt: skip
    by_key = {r.key: r for r in found}
    assert set(by_key) == {"learner_ceiling[precision=float32]", "learner_ceiling[batch_splits=2]"}
    split = by_key["learner_ceiling[batch_splits=2]"].figures
    assert split["batch_splits"] == 2 and split["sweep"] == {"batch_splits": 2}
    for r in found:  # each timed in the same interleaved segments as the main learner
        assert r.rate > 0 and r.figures["vs_main"] == pytest.approx(r.rate / r.figures["main_rate"])
        assert len(r.windows) == 1
    assert said == ["sweep: the learner's ceiling side by side: main, precision=float32, "
                    "batch_splits=2"]  # fmt: skip
    # The roofline of the same learner: the chip's float32 products at its layers' shapes.
    roof = roofline(learner, 0.05)
    assert roof.unit == "GFLOP/s" and roof.figures["roofline_gflops"]["float32"] > 0
    assert [layer["name"] for layer in roof.figures["layers"]] == ["dense0", "q_values"]
    share = roofline_ratios(roof, 100.0)
    assert share["learner_gflops"] == pytest.approx(100.0 * roof.figures["train_step_flops"] / 1e9)


def test_the_search_stage_times_each_depth_on_the_same_positions(setup):
    from boardq.benchmark.search import search_positions, search_time

    game, cfg, _ = setup
    positions = search_positions(game, 4, seed=1)
    assert len(positions) == 4 and all(p["action_mask"].any() for p in positions)
    found = search_time(game, cfg, (1, 2), seconds=0.0, seed=1, positions=2)
    assert [r.key for r in found] == ["search_d1", "search_d2"]
    for r in found:
        f = r.figures
        assert r.unit == "moves/s" and r.rate == pytest.approx(2 / (2 * f["move_sec_mean"]))
        assert f["positions"] == 2 and f["move_sec_max"] >= f["move_sec_mean"] > 0
    assert found[0].figures["network_calls_per_move"] == 1  # depth 1: one forward pass
    assert found[1].figures["leaves_per_move"] > found[0].figures["leaves_per_move"]
