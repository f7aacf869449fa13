"""The report: comparisons and required figures, the table, the JSON file and the plot,
built from stage results made up here (no TensorFlow, no GPU)."""

from __future__ import annotations

import builtins
import io
import json
import time

import pytest
from rich.console import Console

from boardq.benchmark.gpu import UtilizationMonitor
from boardq.benchmark.measure import StageResult, Window
from boardq.benchmark.report import default_paths, render, write_json, write_plot
from boardq.benchmark.runner import TARGETS, BenchSettings, Durations, build_report
from boardq_games import get_game


def stage(key, rate, unit="train steps/s", **figures):
    t = time.monotonic()
    windows = [Window(t + 2 * i, t + 2 * i + 1) for i in range(len(figures.get("by_segment", [0])))]
    return StageResult(
        key=key,
        title=key.replace("_", " "),
        unit=unit,
        rate=rate,
        figures=dict(figures),
        windows=windows,
    )


def made_up_results():
    collection = {"actor_threads": 1, "games_per_thread": 64, "by_segment": [60_000.0, 70_000.0]}
    collection["time_share"] = {"infer": 0.7, "step": 0.2, "queue": 0.05}
    return [
        stage("random_play", 20_000.0, "moves/s"),
        stage("vector_play", 2_000_000.0, "moves/s"),
        stage("collection", 65_000.0, "transitions/s", **collection),
        stage("collection_pettingzoo", 20_000.0, "transitions/s", **collection),
        stage(
            "processes",
            90_000.0,
            "transitions/s",
            by_processes={1: 50_000.0, 2: 90_000.0},
            scaling=1.8,
            actor_threads_per_process=1,
            games_per_thread=64,
        ),  # fmt: skip
        stage(
            "learner_ceiling",
            500.0,
            batch_size=256,
            jit_compile=False,
            precision="float32",
            batch_splits=1,
            by_segment=[480, 520],
        ),
        stage(
            "roofline",
            200.0,
            "GFLOP/s",
            roofline_gflops={"float32": 200.0, "bfloat16": 320.0},
            peak_gflops={"float32": 250.0, "bfloat16": 400.0},
            peak_shape=[1024, 1024, 1024],
            learner_precision="float32",
            train_step_flops=200_000_000,
        ),
        stage("fed_learner", 470.0, share_of_ceiling=0.94, by_segment=[460, 480]),
        stage(
            "training",
            7_360.0,
            "transitions/s",
            train_steps_per_sec=460.0,
            learner_duty=0.97,
            data_wait_share=0.01,
            policy_lag_mean=2.0,
            replay_ratio=16.0,
            replay_ratio_held=16.0,
        ),  # fmt: skip
        stage("naive_collection", 20.0, "transitions/s"),
        stage("naive_learning", 8.0),
        stage(
            "tree_visits",
            30_000.0,
            "visits/s",
            positions=12,
            visits_per_move=400,
            batch=16,
            compiled=True,
            visits_per_sec=30_000.0,
            visits_per_sec_plain=6_000.0,
            forward_rows_per_sec=50_000.0,
            visits_over_forward=0.6,
            visits_over_forward_plain=0.12,
            compiled_over_plain=5.0,
            same_moves=12,
            agent="the bundled agent",
        ),  # fmt: skip
        stage("collection[games_per_thread=256]", 180_000.0, "transitions/s", **collection),
    ]


def made_up_report(skip: tuple[str, ...] = (), extra: tuple[StageResult, ...] = ()):
    config = get_game("tictactoe").preset.replace(replay_ratio=16.0, batch_size=256)
    monitor = UtilizationMonitor(nvml_loader=lambda: (_ for _ in ()).throw(ImportError("no")))
    monitor.status = monitor._open_nvml()
    monitor.sample()
    settings = BenchSettings(config=config, durations=Durations.quick())
    results = [r for r in made_up_results() if r.key not in skip] + list(extra)
    return build_report("tictactoe", settings, results, monitor, {}, 0.0, time.time())


def test_comparisons_targets_and_the_feed_figure():
    report = made_up_report()
    r = report["ratios"]
    assert r["collection_vs_naive"] == pytest.approx(65_000 / 20)
    assert r["vector_play_vs_random_play"] == pytest.approx(100.0)
    assert r["fed_vs_ceiling"] == pytest.approx(0.94)
    assert r["processes_scaling"] == pytest.approx(1.8)
    # The learner eats 500 steps/s x 256 samples / ratio 16 = 8,000 transitions/s;
    # the best collection (processes, 90,000/s) is 11.25 times that.
    assert r["learner_demand_transitions_per_sec"] == pytest.approx(8_000.0)
    assert r["feed"] == pytest.approx(90_000 / 8_000)
    assert set(report["targets"]) == set(TARGETS)
    # 500 train steps/s of 200 MFLOP: 100 GFLOP/s, half the roofline, 40% of the peak.
    assert r["learner_gflops"] == pytest.approx(100.0)
    assert r["learner_vs_roofline"] == pytest.approx(0.5)
    assert r["learner_vs_peak"] == pytest.approx(0.4)
    # Side by side: the chip at the learner's shapes, the learner alone, full training.
    assert (r["roofline_gflops"], r["learner_ceiling"], r["training_steps"]) == (200, 500, 460)
    assert r["training_vs_ceiling"] == pytest.approx(0.92)
    assert (r["tree_visits_vs_forward"], r["tree_visits_vs_forward_plain"]) == (0.6, 0.12)
    assert all(t["met"] for t in report["targets"].values())
    json.dumps(report, allow_nan=False)  # JSON-ready


def test_render_shows_every_stage_sweeps_and_the_no_gpu_reason():
    buffer = io.StringIO()
    render(made_up_report(), Console(file=buffer, width=160))
    text = buffer.getvalue()
    for words in ("vector play", "collection pettingzoo", "naive learning",
                  "collection[games per thread=256]", "no GPU", "feed: collection capacity",
                  "learner demand 8,000 transitions/s",
                  "side by side: the chip at the learner's shapes 200 GFLOP/s | the learner "
                  "alone 500.0 train steps/s, 100 GFLOP/s (50% of the chip) | full training "
                  "460.0 train steps/s (92% of the learner alone)",
                  "float32 200, bfloat16 320", "200 MFLOP a train step",
                  "batch 256, float32, batch_splits 1",
                  "compiled tree 60% of it", "same moves 12 of 12"):  # fmt: skip
        assert words in text, words


def test_a_figure_of_skipped_stages_is_not_measured_rather_than_missed():
    report = made_up_report(skip=("vector_play", "processes"))
    targets = report["targets"]
    assert targets["vector_play_vs_random_play"]["met"] is None
    assert targets["processes_scaling"]["met"] is None
    assert targets["fed_vs_ceiling"]["met"] is True
    buffer = io.StringIO()
    render(report, Console(file=buffer, width=160))
    rows = [line for line in buffer.getvalue().splitlines() if "vectorized random play" in line]
    assert len(rows) == 1 and "not measured" in rows[0] and " no " not in rows[0], rows


def test_a_stage_that_measured_nothing_shows_its_note_and_no_rate():
    # On a busy machine a short full-training stage may not train for a second.
    note = "training had not run for a second when the stage ended"
    report = made_up_report(extra=(stage("training", None, "transitions/s", note=note),))
    buffer = io.StringIO()
    render(report, Console(file=buffer, width=160))
    text = buffer.getvalue()
    assert note in text


def test_json_and_plot_files(tmp_path):
    report = made_up_report()
    json_path, png_path = default_paths(tmp_path / "out", "tictactoe")
    assert json_path.parent == tmp_path / "out" and png_path.suffix == ".png"
    write_json(report, json_path)
    assert json.loads(json_path.read_text())["game"] == "tictactoe"
    assert write_plot(report, png_path) is None
    assert png_path.read_bytes()[:4] == b"\x89PNG"
    explicit, beside = default_paths(tmp_path / "r.json", "tictactoe")
    assert (explicit, beside) == (tmp_path / "r.json", tmp_path / "r.png")


def test_a_missing_plotting_library_is_one_line(tmp_path, monkeypatch):
    real_import = builtins.__import__

    def no_matplotlib(name, *args, **kwargs):
        if name == "matplotlib" or name.startswith("matplotlib."):
            raise ImportError("No module named 'matplotlib'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    why = write_plot(made_up_report(), tmp_path / "p.png")
    assert why.startswith("no plot: matplotlib is not installed") and "\n" not in why
    assert not (tmp_path / "p.png").exists()
