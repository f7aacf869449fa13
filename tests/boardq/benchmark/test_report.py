"""The report: ratios and targets, the table, the JSON file and the plot, built from
stage results made up here (no TensorFlow, no GPU)."""

from __future__ import annotations

import io
import json

import pytest
from rich.console import Console

from boardq.benchmark.gpu import UtilizationMonitor
from boardq.benchmark.report import default_paths, render, write_json, write_plot
from boardq.benchmark.result import StageResult
from boardq.benchmark.runner import (
    TARGETS,
    BenchSettings,
    Durations,
    build_report,
    compute_ratios,
    compute_targets,
)
from boardq.benchmark.stats import Window
from games import get_game


def stage(key, rate, unit="updates/s", start=0.0, **figures):
    return StageResult(
        key,
        key.replace("_", " "),
        unit,
        rate,
        dict(figures),
        start,
        start + 2.0,
        [Window(start + 0.5, start + 2.0)],
        {unit: ([0.5, 1.0, 1.5], [rate or 0.0] * 3)},
    )


def made_up_stages():
    return {
        "random_play": stage(
            "random_play",
            20_000.0,
            "moves/s",
            env_steps_per_sec=25_000.0,
            bare_moves_per_sec=70_000.0,
        ),
        "collection": stage(
            "collection",
            25_000.0,
            "transitions/s",
            2.0,
            threads=1,
            games_per_thread=64,
            mean_inference_batch=64.0,
            time_share={"infer": 0.4, "step": 0.5, "queue": 0.0, "other": 0.1},
        ),
        "learner_ceiling": stage(
            "learner_ceiling",
            300.0,
            start=4.0,
            batch_size=256,
            jit_compile=False,
            updates_per_sec_by_segment=[290.0, 310.0],
        ),
        "fed_learner": stage(
            "fed_learner",
            285.0,
            start=4.0,
            share_of_ceiling=0.95,
            data_wait_share=0.04,
            learner_duty=0.93,
            queue_depth_mean=1.0,
            queue_capacity=64,
            iterator_floor_updates_per_sec=290.0,
            floor_share_of_ceiling=0.97,
        ),
        "training": stage(
            "training",
            3_000.0,
            "transitions/s",
            8.0,
            updates_per_sec=190.0,
            learner_duty=0.85,
            data_wait_share=0.1,
            queue_depth_mean=0.8,
            queue_depth_max=2,
            queue_capacity=64,
            policy_lag_mean=5.0,
            replay_ratio_held=16.0,
            replay_ratio=16.0,
        ),
        "baseline_collection": stage("baseline_collection", 20.0, "transitions/s", 11.0),
        "baseline_learner_ceiling": stage("baseline_learner_ceiling", 30.0, start=13.0),
        "baseline_fed_learner": stage(
            "baseline_fed_learner", 10.0, start=15.0, data_wait_share=0.2
        ),
        "baseline_training": stage(
            "baseline_training",
            5.0,
            "transitions/s",
            17.0,
            updates_per_sec=6.0,
            data_wait_share=0.1,
        ),
    }


def test_ratios_and_targets_hand_worked():
    ratios = compute_ratios(made_up_stages())
    assert ratios["collection_vs_baseline"] == pytest.approx(25_000 / 20)
    assert ratios["collection_vs_random_play"] == pytest.approx(1.25)
    assert ratios["collection_vs_random_env_steps"] == pytest.approx(1.0)
    assert ratios["fed_vs_ceiling"] == pytest.approx(0.95)
    assert ratios["ceiling_vs_baseline"] == pytest.approx(10.0)
    assert ratios["fed_vs_baseline"] == pytest.approx(28.5)
    assert ratios["training_transitions_vs_baseline"] == pytest.approx(600.0)
    assert ratios["training_updates_vs_baseline"] == pytest.approx(190 / 6)
    targets = compute_targets(ratios)
    assert set(targets) == set(TARGETS)
    assert all(t["met"] for t in targets.values())


def test_missing_stages_give_no_ratio_and_unmet_targets():
    stages = made_up_stages()
    del stages["baseline_collection"]
    stages["fed_learner"].rate = 200.0
    ratios = compute_ratios(stages)
    assert ratios["collection_vs_baseline"] is None
    targets = compute_targets(ratios)
    assert targets["collection_vs_baseline"]["met"] is False
    assert targets["fed_vs_ceiling"] == {
        "value": pytest.approx(2 / 3),
        "at_least": 0.9,
        "met": False,
    }


def make_report(stages=None):
    game = get_game("tictactoe")
    settings = BenchSettings(
        game="tictactoe",
        config=game.preset,
        threads=(1,),
        games_per_thread=(64,),
        batch_sizes=(256,),
        jit_compile=(False,),
        durations=Durations.quick(),
        quick=True,
    )

    def no_nvml():
        raise ImportError("no pynvml here")

    monitor = UtilizationMonitor(nvml_loader=no_nvml)
    monitor.status = monitor._open_nvml()
    monitor.sample()
    monitor.sample()
    machine = {"cpu_count": 2}
    return build_report(
        "tictactoe",
        settings,
        settings.main_config(),
        stages or made_up_stages(),
        [],
        monitor,
        machine,
        origin=0.0,
        wall_start=0.0,
    )


def test_report_table_says_no_gpu_and_shows_every_stage():
    report = make_report()
    out = io.StringIO()
    render(report, Console(file=out, width=120))
    text = out.getvalue()
    assert "no GPU" in text and "CPU learner" in text
    for label in (
        "random play",
        "self-play collection",
        "learner ceiling",
        "fed learner",
        "full training",
        "seeds: collection",
    ):
        assert label in text
    assert "1,250x" in text  # collection vs the seeds
    assert "95%" in text  # fed learner vs ceiling
    assert report["gpu"]["available"] is False
    assert "utilization.gpu" in report["gpu"]["note"]
    assert report["stages"]["fed_learner"]["utilization"]["gpu"] is False


def test_a_stage_without_a_rate_is_shown_with_its_note():
    stages = made_up_stages()
    stages["training"] = StageResult(
        "training",
        "too short",
        "transitions/s",
        None,
        {"note": "too short to measure"},
        8.0,
        9.0,
        [],
    )
    out = io.StringIO()
    render(make_report(stages), Console(file=out, width=120))
    assert "too short to measure" in out.getvalue()


def test_json_and_plot_are_written(tmp_path):
    report = make_report()
    json_path, png_path = default_paths(tmp_path / "out" / "run.json", "tictactoe")
    assert png_path == tmp_path / "out" / "run.png"
    write_json(report, json_path)
    write_plot(report, png_path)
    loaded = json.loads(json_path.read_text())
    assert loaded["stages"]["collection"]["rate"] == 25_000.0
    assert loaded["targets"]["fed_vs_ceiling"]["met"] is True
    assert png_path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_default_paths_in_a_directory(tmp_path):
    json_path, png_path = default_paths(tmp_path, "connect_four")
    assert json_path.parent == tmp_path and json_path.suffix == ".json"
    assert json_path.name.startswith("connect_four-") and png_path.suffix == ".png"
    assert json_path.stem == png_path.stem
    default_json, _ = default_paths(None, "tictactoe")
    assert default_json.parent.name == "bench-results"


def test_durations():
    quick = Durations.quick()
    seconds = [getattr(quick, name) for name in vars(quick) if name.endswith("_sec")]
    # The stages of --quick (sweeps aside) leave room for start-up within a minute.
    assert sum(seconds) - quick.sweep_sec + quick.fed_sec / 2 < 40
    half = quick.scaled(0.5)
    assert half.training_sec == quick.training_sec / 2
    assert half.learner_rounds == quick.learner_rounds
    with pytest.raises(ValueError):
        quick.scaled(0)


def test_other_processes_on_the_machine_are_reported():
    report = make_report()
    report["machine"]["other_processes_cores_mean"] = 0.9
    out = io.StringIO()
    render(report, Console(file=out, width=120))
    assert "Other processes kept 0.9 of the 2 cores busy" in out.getvalue()
