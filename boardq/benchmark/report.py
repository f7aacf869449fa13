"""The benchmark's outputs: a terminal table, a JSON file, a PNG plot."""

from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from boardq.checkpointing import atomic_write_bytes, atomic_write_text

__all__ = ["default_paths", "render", "write_json", "write_plot"]

# (key, label, baseline key) in the order of the table.
_ROWS = [
    ("random_play", "1 game alone (random play)", None),
    ("collection", "2 self-play collection", "baseline_collection"),
    ("learner_ceiling", "3 learner ceiling", "baseline_learner_ceiling"),
    ("fed_learner", "4 fed learner", "baseline_fed_learner"),
    ("training", "5 full training", "baseline_training"),
]
_BASELINE_ROWS = [
    ("baseline_collection", "7 seeds: collection"),
    ("baseline_learner_ceiling", "7 seeds: learner ceiling"),
    ("baseline_fed_learner", "7 seeds: fed learner"),
    ("baseline_training", "7 seeds: full training"),
]
_TARGET_LABELS = {
    "collection_vs_baseline": "collection / seeds' collection (same threads)",
    "collection_vs_random_play": "collection / random-play moves (1 thread)",
    "fed_vs_ceiling": "fed learner / learner ceiling",
}


def default_paths(out: str | Path | None, game: str) -> tuple[Path, Path]:
    """(json, png) paths: `out` as a .json file, or a directory (default bench-results)."""
    path = Path(out) if out else Path("bench-results")
    if path.suffix.lower() == ".json":
        return path, path.with_suffix(".png")
    stamp = time.strftime("%Y%m%d-%H%M%S")
    return path / f"{game}-{stamp}.json", path / f"{game}-{stamp}.png"


def _num(value: float | None, fmt: str = "{:,.0f}") -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "-"
    return fmt.format(value)


def _pct(value: float | None) -> str:
    return _num(None if value is None else 100 * value, "{:.0f}%")


def _times(x: float | None) -> str:
    return _num(x, "{:,.1f}x" if x is not None and x < 100 else "{:,.0f}x")


def _utilization(fig: dict[str, Any]) -> str:
    """Cores busy in this process (on the whole machine); GPU utilization if any."""
    util = fig.get("utilization") or {}
    text = _num(util.get("process_cores"), "{:.2f}")
    machine = util.get("machine_cores")
    if machine is not None:
        text += f" ({machine:.2f})"
    if util.get("gpu"):
        text += f" / {_num(util.get('gpu_util_mean'), '{:.0f}')}%"
    return text


def _details(key: str, fig: dict[str, Any]) -> str:
    if key == "random_play":
        return (
            f"env steps {_num(fig.get('env_steps_per_sec'))}/s; "
            f"bare game {_num(fig.get('bare_moves_per_sec'))} moves/s"
        )
    if key == "collection":
        share = fig.get("time_share", {})
        return (
            f"{fig['threads']} x {fig['games_per_thread']} games, mean batch "
            f"{_num(fig.get('mean_inference_batch'), '{:.0f}')}; time: game "
            f"{_pct(share.get('step'))}, inference {_pct(share.get('infer'))}, queue "
            f"{_pct(share.get('queue'))}, other {_pct(share.get('other'))}"
        )
    if key == "learner_ceiling":
        return (
            f"batch {fig['batch_size']}, jit_compile {fig['jit_compile']}; "
            f"{_num(fig.get('samples_per_sec'))} samples/s; by segment "
            + ", ".join(_num(r) for r in fig.get("updates_per_sec_by_segment", []))
        )
    if key == "fed_learner":
        return (
            f"{_pct(fig.get('share_of_ceiling'))} of the ceiling; data wait "
            f"{_pct(fig.get('data_wait_share'))}; duty {_pct(fig.get('learner_duty'))}; "
            f"queue {_num(fig.get('queue_depth_mean'), '{:.1f}')}/{fig.get('queue_capacity')}; "
            f"ratio held {_num(fig.get('replay_ratio_held'), '{:.1f}')}; a tf.data iterator "
            f"that only repeats one batch reaches "
            f"{_num(fig.get('iterator_floor_updates_per_sec'))} updates/s "
            f"({_pct(fig.get('floor_share_of_ceiling'))} of the ceiling)"
        )
    if key == "training":
        return (
            f"{_num(fig.get('updates_per_sec'), '{:,.1f}')} updates/s; duty "
            f"{_pct(fig.get('learner_duty'))}; data wait {_pct(fig.get('data_wait_share'))}; "
            f"queue {_num(fig.get('queue_depth_mean'), '{:.1f}')} (max "
            f"{_num(fig.get('queue_depth_max'))})/{fig.get('queue_capacity')}; lag "
            f"{_num(fig.get('policy_lag_mean'), '{:.1f}')}; ratio held "
            f"{_num(fig.get('replay_ratio_held'), '{:.1f}')}/{fig.get('replay_ratio'):g}"
        )
    if key == "baseline_training":
        return (
            f"{_num(fig.get('updates_per_sec'), '{:,.2f}')} updates/s; "
            f"data wait {_pct(fig.get('data_wait_share'))}"
        )
    if key in ("baseline_fed_learner",):
        return f"data wait {_pct(fig.get('data_wait_share'))}"
    return ""


def render(report: dict[str, Any], console: Console | None = None) -> None:
    """Prints the stage table, the required figures and the sweep."""
    console = console or Console()
    stages = report["stages"]
    ratios = report["ratios"]
    ratio_of = {
        "collection": ratios.get("collection_vs_baseline"),
        "learner_ceiling": ratios.get("ceiling_vs_baseline"),
        "fed_learner": ratios.get("fed_vs_baseline"),
        "training": ratios.get("training_transitions_vs_baseline"),
    }
    s = report["settings"]
    table = Table(
        title=f"boardq bench {report['game']}: {s['threads']} thread(s) x "
        f"{s['games_per_thread']} games, batch {s['batch_size']}, "
        f"{report['duration_sec']:.0f}s"
    )
    table.add_column("stage")
    table.add_column("rate", justify="right")
    table.add_column("unit")
    table.add_column("vs seeds", justify="right")
    table.add_column("CPU cores / GPU", justify="right")
    rows = [(k, label, True) for k, label, _ in _ROWS]
    rows += [(k, label, False) for k, label in _BASELINE_ROWS]
    details = []
    for key, label, ours in rows:
        if key not in stages:
            continue
        st = stages[key]
        table.add_row(
            label,
            _num(st["rate"], "{:,.1f}" if (st["rate"] or 0) < 100 else "{:,.0f}"),
            st["unit"],
            _times(ratio_of.get(key)) if ours else "",
            _utilization(st),
        )
        text = st.get("note") if st["rate"] is None else _details(key, st)
        if text:
            details.append(f"[bold]{label}[/]: {text}")
    console.print(table)
    for line in details:
        console.print(line, highlight=False)

    gpu = report["gpu"]
    if gpu["available"]:
        names = ", ".join(d["name"] for d in gpu["devices"])
        console.print(f"GPU: {names} (driver {gpu['driver']}). {gpu['note']}")
    else:
        console.print(
            f"{gpu['reason']}. Every figure above is measured on the CPU; the learner "
            "duty cycle is the CPU learner's. CPU cores: busy in this process (in the "
            "whole machine)."
        )

    targets = Table(title="required figures")
    targets.add_column("figure")
    targets.add_column("measured", justify="right")
    targets.add_column("required", justify="right")
    targets.add_column("met")
    for name, t in report["targets"].items():
        value, bound = t["value"], t["at_least"]
        fmt = _times if bound >= 1 else _pct
        targets.add_row(
            _TARGET_LABELS.get(name, name),
            fmt(value),
            ">= " + fmt(bound),
            "[green]yes[/]" if t["met"] else ("[red]no[/]" if value is not None else "-"),
        )
    console.print(targets)

    if report["sweep"]:
        sweep = Table(title="sweep (each setting measured on its own, after the main run)")
        sweep.add_column("stage")
        sweep.add_column("setting")
        sweep.add_column("rate", justify="right")
        sweep.add_column("unit")
        sweep.add_column("details")
        for row in report["sweep"]:
            fig = row["figures"]
            if row["stage"] == "collection":
                setting = f"{row['threads']} x {row['games_per_thread']} games"
                details = f"mean batch {_num(fig.get('mean_inference_batch'))}"
            else:
                setting = f"batch {row['batch_size']}, jit {row['jit_compile']}"
                details = f"{_num(fig.get('samples_per_sec'))} samples/s"
                if row["stage"] == "fed_learner":
                    details += f"; {_pct(fig.get('share_of_ceiling'))} of ceiling"
            if row.get("gpu_util_mean") is not None:
                details += f"; GPU {row['gpu_util_mean']:.0f}%"
            sweep.add_row(
                row["stage"].replace("_", " "), setting, _num(row["rate"]), row["unit"], details
            )
        console.print(sweep)

    others = report["machine"].get("other_processes_cores_mean")
    cores = report["machine"].get("cpu_count") or 1
    if others is not None and others >= 0.2:
        console.print(
            f"Other processes kept {others:.1f} of the {cores} cores busy on average "
            "during the run: the rates are lower, and noisier, than on an idle machine."
        )


def write_json(report: dict[str, Any], path: Path) -> None:
    """Writes the report as indented JSON (atomically)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, json.dumps(report, indent=2, allow_nan=False, default=str) + "\n")


def _gaps(values: list[float | None]) -> list[float]:
    return [math.nan if v is None else v for v in values]


def _shade(ax, stage: dict[str, Any]) -> None:
    origin = stage["start_sec"]
    for w in stage["windows"]:
        ax.axvspan(w["start"] - origin, w["end"] - origin, color="0.92", zorder=0)


def write_plot(report: dict[str, Any], path: Path) -> None:
    """Rate over time of every stage (seeds' recipe dashed), and utilization."""
    import io

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    stages = report["stages"]
    panels = [(k, label, b) for k, label, b in _ROWS if k in stages]
    fig, axes = plt.subplots(
        len(panels) + 1, 1, figsize=(9, 2.8 * (len(panels) + 1)), layout="constrained"
    )
    for ax, (key, label, base_key) in zip(axes, panels, strict=False):
        stage = stages[key]
        _shade(ax, stage)
        for name, s in stage["series"].items():
            ax.plot(_gaps(s["t_sec"]), _gaps(s["rate"]), ".-", label=f"boardq {name}")
        if base_key and base_key in stages:
            for name, s in stages[base_key]["series"].items():
                ax.plot(_gaps(s["t_sec"]), _gaps(s["rate"]), "--", label=f"seeds {name}")
            ax.set_yscale("log")
        ax.set_title(f"{label}: {stage['title']}", fontsize=9)
        ax.set_xlabel("seconds since the stage began (grey: steady window)", fontsize=8)
        units = {name.split()[-1] for name in stage["series"]}
        ax.set_ylabel(stage["unit"] if len(units) <= 1 else "per second", fontsize=8)
        ax.legend(fontsize=7, loc="best")
        ax.grid(alpha=0.3)

    ax = axes[-1]
    util = report["utilization_series"]
    t = util["t_sec"]
    ax.plot(t, _gaps(util["process_cores"]), label="CPU cores busy (this process)")
    if any(v is not None for v in util["machine_cores"]):
        ax.plot(t, _gaps(util["machine_cores"]), ":", label="CPU cores busy (whole machine)")
    ax.set_ylabel("cores", fontsize=8)
    gpu_rows = util["gpu_util"]
    if report["gpu"]["available"] and gpu_rows:
        twin = ax.twinx()
        for i in range(len(report["gpu"]["devices"])):
            values = [r[i] if i < len(r) else None for r in gpu_rows]
            twin.plot(t, _gaps(values), label=f"GPU {i} %")
        twin.set_ylim(0, 105)
        twin.set_ylabel("GPU utilization %", fontsize=8)
        twin.legend(fontsize=7, loc="upper right")
        title = "utilization (NVML: time busy, not share of the chip)"
    else:
        title = f"utilization ({report['gpu']['reason']})"
    labels: dict[float, list[str]] = {}
    for key, stage in stages.items():
        ax.axvspan(stage["start_sec"], stage["end_sec"], color="0.95", zorder=0)
        labels.setdefault(round(stage["start_sec"], 1), []).append(key.replace("_", " "))
    for start, names in labels.items():
        ax.text(
            start,
            0.02,
            " + ".join(names),
            fontsize=6,
            rotation=90,
            va="bottom",
            transform=ax.get_xaxis_transform(),  # x in seconds, y in axes height
        )
    ax.set_title(title, fontsize=9)
    ax.set_xlabel("seconds since the benchmark began", fontsize=8)
    ax.legend(fontsize=7, loc="upper left")
    ax.grid(alpha=0.3)
    fig.suptitle(f"boardq bench {report['game']} ({report['started']})", fontsize=10)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110)
    plt.close(fig)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(path, buffer.getvalue())
