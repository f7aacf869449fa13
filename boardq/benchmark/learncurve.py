"""Learning curves: a run's held-out figure against its minutes of training.

A run keeps an agent every `keep_agent_every_sec` (`agents/agent-STEP.npz`) and writes
its metrics, the ladder's figures among them, to `metrics.jsonl` with the elapsed time
of each row. Two curves come from that, with no training replayed:

- `ladder_curve`: a ladder figure (`eval/mcts:100/score`, say) as the run measured it;
- `positions_curve`: each kept agent's share of a positions file (`boardq.players.
  positions`: Connect Four's 570 solver-labelled positions), the network alone, its
  minutes read off the metrics at the agent's train step;
- `games_curve`: each kept agent's score against an opponent (GRhino, GNU Go) over
  `boardq evaluate`'s games, run as the command itself, for runs whose ladder starved
  (two training runs on two cores leave its process little time).

Runs side by side at equal wall time make comparable curves, as the two of
docs/results/connect_four.md, "A wider network at equal wall time" (taken by hand,
before this module). `scripts/learning_curves.py` draws them.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "kept_agents",
    "ladder_curve",
    "minutes_at",
    "games_curve",
    "positions_curve",
    "run_dir_of",
]

Curve = list[tuple[float, float]]
_KEPT = re.compile(r"agent-(\d+)\.npz$")


def run_dir_of(path: str | Path) -> Path:
    """The run directory at `path`: itself, or the one run under it (`--out-dir`'s GAME/TIME).

    Raises:
      ValueError: no run there, or more than one.
    """
    path = Path(path)
    if (path / "metrics.jsonl").is_file():
        return path
    found = sorted(p.parent for p in path.glob("*/*/metrics.jsonl"))
    if len(found) != 1:
        raise ValueError(f"{path}: expected one run directory, found {len(found)}")
    return found[0]


def _rows(run: Path) -> list[dict[str, Any]]:
    rows = []
    for line in (run / "metrics.jsonl").read_text().splitlines():
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError:
            continue  # a line cut short by a stop
    return [r for r in rows if "elapsed_sec" in r and "train_steps" in r]


def minutes_at(run: Path, steps: Sequence[int]) -> np.ndarray:
    """The minutes of training at which the run reached each of `steps` (interpolated)."""
    rows = _rows(run)
    if not rows:
        raise ValueError(f"{run}: its metrics.jsonl has no rows")
    at = np.array([r["train_steps"] for r in rows], np.float64)
    sec = np.array([r["elapsed_sec"] for r in rows], np.float64)
    return np.interp(np.asarray(steps, np.float64), at, sec) / 60.0


def kept_agents(run: Path) -> list[tuple[int, Path]]:
    """The run's kept agents, (train step, file), in the order they were kept."""
    found = [(int(m.group(1)), p) for p in (run / "agents").glob("agent-*.npz")
             if (m := _KEPT.search(p.name))]  # fmt: skip
    return sorted(found)


def ladder_curve(run: Path, key: str) -> Curve:
    """(minutes, figure) of each ladder rating of the run that has `key`.

    The metrics repeat a rating's figures until the next one: one point a rating, at
    the minutes it was first written.
    """
    curve: Curve = []
    last = None
    for row in _rows(run):
        if key not in row:
            continue
        rating = row.get("eval/version", row["elapsed_sec"])
        if rating != last:
            curve.append((row["elapsed_sec"] / 60.0, float(row[key])))
            last = rating
    return curve


def positions_curve(run: Path, game, positions_file: str | Path) -> Curve:
    """(minutes, share of best moves) of each kept agent of `run`, the network alone."""
    from boardq.players.agent import Agent
    from boardq.players.positions import load_positions, measure, observations

    found = load_positions(positions_file, game.name, game.num_actions)
    seen = observations(game.make_env, found.positions)
    kept = kept_agents(run)
    minutes = minutes_at(run, [step for step, _ in kept]) if kept else []
    curve: Curve = []
    for (_, path), at in zip(kept, minutes, strict=True):
        agent = Agent.load(path, game=game.name, symmetric=False, inference="numpy")
        curve.append((float(at), float(measure(agent, found.positions, seen)["share"])))
    return curve


def games_curve(
    run: Path, game: str, opponent: str, games: int, seed: int = 0, extra: Sequence[str] = ()
) -> Curve:
    """(minutes, score) of each kept agent of `run` against `opponent`, `games` a seat.

    Each agent is played by `boardq evaluate GAME --agent FILE --opponent SPEC --games N
    --seed S --json` plus `extra` (`--handicap 9`, say), in a process of its own.

    Raises:
      ValueError: an evaluation failed (its last line of errors).
    """
    kept = kept_agents(run)
    minutes = minutes_at(run, [step for step, _ in kept]) if kept else []
    curve: Curve = []
    for (_, path), at in zip(kept, minutes, strict=True):
        command = [sys.executable, "-m", "boardq", "evaluate", game, "--agent", str(path),
                   "--opponent", opponent, "--games", str(games), "--seed", str(seed),
                   "--json", *extra]  # fmt: skip
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            last = (done.stderr.strip().splitlines() or ["no message"])[-1]
            raise ValueError(f"{path}: boardq evaluate failed: {last}")
        result = json.loads(done.stdout)["opponents"][opponent]
        curve.append((float(at), float(result["score"])))
    return curve
