"""The benchmark's outputs: a terminal table, a JSON file, a PNG plot."""

from __future__ import annotations

import io
import json
import math
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from boardq.rundir import atomic_write_bytes, atomic_write_text

__all__ = ["default_paths", "render", "write_json", "write_plot"]

_RATIO_LABELS = {
    "collection_vs_naive": "collection / naive collection (same threads)",
    "collection_vs_pettingzoo_collection": "collection / collection through PettingZoo",
    "vector_play_vs_random_play": "vectorized random play / PettingZoo random play",
    "fed_vs_ceiling": "fed learner / learner ceiling",
    "learner_vs_roofline": "learner ceiling / roofline at its shapes (GFLOP/s)",
    "training_vs_ceiling": "full training / learner alone (train steps/s)",
    "learner_vs_peak": "learner ceiling / the chip's peak product (GFLOP/s)",
    "fed_vs_naive": "fed learner / naive learning",
    "processes_scaling": "most actor processes / fewest",
    "feed": "feed: collection capacity / learner demand",
    "tree_visits_vs_forward": "tree search's visits/s / the network's positions/s",
    "tree_visits_vs_forward_plain": "the same, the plain tree",
}
_SHARES = {"fed_vs_ceiling", "learner_vs_roofline", "learner_vs_peak", "training_vs_ceiling"}
_SHARES |= {"tree_visits_vs_forward", "tree_visits_vs_forward_plain"}
_MET = {True: "[green]yes[/]", False: "[red]no[/]", None: "not measured"}


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
    return _num(x, "{:,.2f}x" if x is not None and x < 10 else "{:,.0f}x")


def _details(key: str, f: dict[str, Any]) -> str:
    """The second line of a stage: what else it measured."""
    base = key.split("[")[0]
    if f.get("rate") is None:  # a stage that measured nothing says why, if anything
        return f.get("note", "")
    share = f.get("time_share") or f.get("actor_time_share") or {}
    if base.startswith("collection"):
        return (
            f"{f['actor_threads']} x {f['games_per_thread']} games; time: game and policy "
            f"{_pct(share.get('step'))}, inference {_pct(share.get('infer'))}, queue "
            f"{_pct(share.get('queue'))}"
        )
    if base == "processes":
        by = ", ".join(f"{p}: {_num(r)}" for p, r in f["by_processes"].items())
        return f"by processes {by}; each {f['actor_threads_per_process']} x {f['games_per_thread']}"
    if base == "roofline":
        roof = ", ".join(f"{p} {_num(r)}" for p, r in f["roofline_gflops"].items())
        peak = ", ".join(f"{p} {_num(r)}" for p, r in f["peak_gflops"].items())
        return (
            f"GFLOP/s at the learner's shapes: {roof}; peak ({'x'.join(map(str, f['peak_shape']))}"
            f"): {peak}; the learner computes in {f['learner_precision']}, "
            f"{f['train_step_flops'] / 1e6:,.0f} MFLOP a train step"
        )
    if base == "learner_ceiling":
        return (
            f"batch {f['batch_size']}, {f['precision']}, batch_splits {f['batch_splits']}, "
            f"jit_compile {f['jit_compile']}; "
            f"{_num(f.get('samples_per_sec'))} samples/s; segments "
            + ", ".join(_num(r) for r in f.get("by_segment", []))
            + (f"; {_times(f['vs_main'])} the main learner's" if "vs_main" in f else "")
        )
    if base == "fed_learner":
        return (
            f"{_pct(f.get('share_of_ceiling'))} of the ceiling; data wait "
            f"{_pct(f.get('data_wait_share'))}; ratio held "
            f"{_num(f.get('replay_ratio_held'), '{:.1f}')}; iterator floor "
            f"{_num(f.get('iterator_floor'))} ({_pct(f.get('floor_share_of_ceiling'))})"
        )
    if base.startswith("search_d"):
        return (
            f"{f['positions']} positions of random play, {f['agent']}; "
            f"{_num(f['move_sec_mean'], '{:.3f}')} s a move, at most "
            f"{_num(f['move_sec_max'], '{:.3f}')} s; {_num(f['leaves_per_move'])} leaves in "
            f"{_num(f['network_calls_per_move'], '{:,.1f}')} network calls a move"
        )
    if base == "tree_search":
        return (
            f"{f['positions']} positions of random play, {f['agent']}; "
            f"{_num(f['leaves_per_call_mean'], '{:.1f}')} leaves a call; the network alone "
            f"at batch {f['leaves_per_call']}: {_num(f['forward_rows_per_sec'])} positions/s "
            f"(the search {_pct(f['share_of_forward'])} of it); numpy "
            f"{_num(f.get('leaves_per_sec_numpy'))} leaves/s, tensorflow "
            f"{_num(f.get('leaves_per_sec_tensorflow'))} "
            f"({_num(f.get('numpy_over_tensorflow'), '{:.2f}')}x)"
        )
    if base == "tree_visits":
        return (
            f"{f['positions']} positions, {f['visits_per_move']} visits a move, {f['agent']}; "
            f"the network alone at batch {f['batch']}: {_num(f['forward_rows_per_sec'])} "
            f"positions/s; compiled tree {_pct(f['visits_over_forward'])} of it"
            f"{'' if f['compiled'] else ' (no compiled form: the plain tree)'}, plain tree "
            f"{_num(f['visits_per_sec_plain'])} visits/s ({_pct(f['visits_over_forward_plain'])}"
            f"); {_num(f['compiled_over_plain'], '{:.2f}')}x; same moves "
            f"{f['same_moves']} of {f['positions']}"
        )
    if base == "training":
        return (
            f"{_num(f.get('train_steps_per_sec'), '{:,.1f}')} train steps/s; duty "
            f"{_pct(f.get('learner_duty'))}; data wait {_pct(f.get('data_wait_share'))}; lag "
            f"{_num(f.get('policy_lag_mean'), '{:.1f}')}; ratio held "
            f"{_num(f.get('replay_ratio_held'), '{:.1f}')}/{f.get('replay_ratio'):g}"
        )
    return f.get("note", "")


def _cores(f: dict[str, Any]) -> str:
    util = f.get("utilization") or {}
    text = _num(util.get("process_cores"), "{:.2f}")
    if util.get("machine_cores") is not None:
        text += f" ({util['machine_cores']:.2f})"
    if util.get("gpu"):
        text += f" / {_num(util.get('gpu_util_mean'), '{:.0f}')}%"
    return text


def render(report: dict[str, Any], console: Console | None = None) -> None:
    """Prints the stage table, the comparisons and the required figures."""
    console = console or Console()
    s = report["settings"]
    table = Table(
        title=f"boardq bench {report['game']}: {s['actor_threads']} thread(s) x "
        f"{s['games_per_thread']} games, batch {s['batch_size']}, {report['duration_sec']:.0f}s"
    )
    for name, justify in (("stage", "left"), ("rate", "right"), ("unit", "left"),
                          ("cores (machine) / GPU", "right")):  # fmt: skip
        table.add_column(name, justify=justify)
    notes = []
    for key, st in report["stages"].items():
        name = escape(key.replace("_", " "))  # sweep keys hold [name=value]
        table.add_row(name, _num(st["rate"]), st["unit"], _cores(st))
        detail = _details(key, st)
        if detail:
            notes.append(f"[bold]{name}[/]: {escape(st['title'])}; {escape(detail)}")
    console.print(table)
    for line in notes:
        console.print(line, highlight=False)
    gpu = report["gpu"]
    if gpu["available"]:
        names = ", ".join(d["name"] for d in gpu["devices"])
        console.print(f"GPU: {names} (driver {gpu['driver']}). {gpu['note']}")
    else:
        console.print(f"{gpu['reason']}: every figure is measured on the CPU.")
    r = report["ratios"]
    console.print(
        f"learner demand {_num(r['learner_demand_transitions_per_sec'])} transitions/s at "
        f"replay ratio {s['replay_ratio']:g}; collection capacity "
        f"{_num(r['collection_capacity_transitions_per_sec'])}/s"
    )
    if r.get("learner_gflops") is not None:
        console.print(
            f"side by side: the chip at the learner's shapes "
            f"{_num(r.get('roofline_gflops'))} GFLOP/s | the learner alone "
            f"{_num(r.get('learner_ceiling'), '{:,.1f}')} train steps/s, "
            f"{_num(r['learner_gflops'])} GFLOP/s ({_pct(r.get('learner_vs_roofline'))} of the "
            f"chip) | full training {_num(r.get('training_steps'), '{:,.1f}')} train steps/s "
            f"({_pct(r.get('training_vs_ceiling'))} of the learner alone)",
            highlight=False,
            soft_wrap=True,
        )
    ratios = Table(title="comparisons (required figures marked)")
    for name in ("figure", "measured", "required", "met"):
        ratios.add_column(name)
    for name, label in _RATIO_LABELS.items():
        t = report["targets"].get(name)
        fmt = _pct if name in _SHARES else _times
        met = "" if t is None else _MET[t["met"]]
        ratios.add_row(
            label, fmt(r.get(name)), "" if t is None else ">= " + fmt(t["at_least"]), met
        )
    console.print(ratios)


def write_json(report: dict[str, Any], path: Path) -> None:
    """Writes the report as indented JSON (atomically)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, json.dumps(report, indent=2, allow_nan=False, default=str) + "\n")


def write_plot(report: dict[str, Any], path: Path) -> str | None:
    """Each interleaved stage's rate per segment, and utilization over the run.

    Returns:
      None when written, or why not (matplotlib is missing), in one line.
    """
    try:
        import matplotlib
    except ImportError:
        return "no plot: matplotlib is not installed (pip install matplotlib)"
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (top, bottom) = plt.subplots(2, 1, figsize=(9, 7), layout="constrained")
    for key, st in report["stages"].items():
        if st.get("by_segment") and len(st["by_segment"]) == len(st["windows"]):
            mids = [(a + b) / 2 for a, b in st["windows"]]
            top.plot(mids, st["by_segment"], "o-", label=f"{key} ({st['unit']})")
    top.set_yscale("log")
    top.set_title("rate of each measured segment (interleaved stages)", fontsize=9)
    top.set_xlabel("seconds since the benchmark began", fontsize=8)
    top.legend(fontsize=7)
    top.grid(alpha=0.3)
    u = report["utilization_series"]
    nan = [math.nan if v is None else v for v in u["process_cores"]]
    bottom.plot(u["t_sec"], nan, label="CPU cores busy (this process)")
    machine = [math.nan if v is None else v for v in u["machine_cores"]]
    bottom.plot(u["t_sec"], machine, ":", label="CPU cores busy (whole machine)")
    if report["gpu"]["available"]:
        twin = bottom.twinx()
        gpu = [math.nan if not row or row[0] is None else row[0] for row in u["gpu_util"]]
        twin.plot(u["t_sec"], gpu, color="C3", label="GPU 0 %")
        twin.set_ylim(0, 105)
        twin.legend(fontsize=7, loc="upper right")
    for key, st in report["stages"].items():
        if st["windows"]:
            bottom.axvspan(st["windows"][0][0], st["windows"][-1][1], color="0.93", zorder=0)
            bottom.text(st["windows"][0][0], 0.02, key, fontsize=6, rotation=90,
                        transform=bottom.get_xaxis_transform())  # fmt: skip
    bottom.set_title(f"utilization ({report['gpu']['reason'] or 'NVML'})", fontsize=9)
    bottom.legend(fontsize=7, loc="upper left")
    fig.suptitle(f"boardq bench {report['game']} ({report['started']})", fontsize=10)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110)
    plt.close(fig)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(path, buffer.getvalue())
    return None
