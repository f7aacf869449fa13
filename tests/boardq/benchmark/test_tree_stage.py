"""The benchmark's tree-search stage: the searcher play uses, its leaves beside the network's."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize("name", ["tictactoe"])
def test_the_tree_stage_counts_leaves_against_the_forward_pass(name):
    from boardq.benchmark.report import _details
    from boardq.benchmark.search import tree_search_rate
    from boardq.catalog import get_game

    game = get_game(name)
    stage = tree_search_rate(game, game.preset, seconds=0.0, seed=1, positions=2, move_time=0.05)
    f = stage.figures
    assert stage.key == "tree_search" and stage.unit == "leaves/s"
    assert f["positions"] == 2 * 2  # two turns of each inference, 2 positions a turn
    assert stage.rate > 0 and f["forward_rows_per_sec"] > 0
    assert f["share_of_forward"] == pytest.approx(stage.rate / f["forward_rows_per_sec"])
    assert 1 <= f["leaves_per_call_mean"] <= 16  # the default, TreeConfig.leaves_per_call
    assert f["leaves_per_call"] == max(1, round(f["leaves_per_call_mean"]))
    line = _details("tree_search", {**f, "rate": stage.rate})
    assert f"the network alone at batch {f['leaves_per_call']}" in line
    # numpy and TensorFlow took turns on the same positions; the rate is the one play uses.
    assert f["inference"] in ("numpy", "tensorflow")
    assert stage.rate == f[f"leaves_per_sec_{f['inference']}"]
    assert f["numpy_over_tensorflow"] == pytest.approx(
        f["leaves_per_sec_numpy"] / f["leaves_per_sec_tensorflow"]
    )
    assert "numpy" in line and "tensorflow" in line


@pytest.mark.parametrize("name, compiled", [("connect_four", True), ("tictactoe", False)])
def test_the_visits_stage_times_both_trees_beside_the_network(name, compiled):
    from boardq.benchmark.report import _details
    from boardq.benchmark.runner import compute_ratios
    from boardq.benchmark.tree_visits import tree_visits_rate
    from boardq.catalog import get_game

    game = get_game(name)
    stage = tree_visits_rate(game, game.preset, seed=1, positions=2, visits=30, rounds=2)
    f = stage.figures
    assert stage.key == "tree_visits" and stage.unit == "visits/s"
    assert f["compiled"] is compiled  # tic-tac-toe has no compiled form: both trees plain
    assert f["same_moves"] == 2  # the compiled tree plays the plain tree's moves
    assert stage.rate == f["visits_per_sec"] > 0 and f["visits_per_sec_plain"] > 0
    assert f["visits_over_forward"] == pytest.approx(stage.rate / f["forward_rows_per_sec"])
    assert f["compiled_over_plain"] == pytest.approx(stage.rate / f["visits_per_sec_plain"])
    ratios = compute_ratios({"tree_visits": stage}, game.preset)
    # The required figure is the compiled tree's: not measured without one.
    assert ratios["tree_visits_vs_forward"] == (f["visits_over_forward"] if compiled else None)
    assert ratios["tree_visits_vs_forward_plain"] == f["visits_over_forward_plain"]
    assert "same moves 2 of 2" in _details("tree_visits", {**f, "rate": stage.rate})
