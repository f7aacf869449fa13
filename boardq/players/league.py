"""A round robin between players and their Elo ratings; the agents a run kept over time.

Every pair of players meets `games_per_seat` times with each one moving first. The
ratings are fitted over all games at once (`boardq.players.elo.fit_ratings`: Bradley-Terry,
a draw half a win each way, the `random` player anchored at 0, one virtual draw per
pairing) and come with 95% intervals by resampling each pairing's games.

A run keeps, besides RUN_DIR/agent.npz, copies RUN_DIR/agents/agent-<train_step>.npz
whose header `info` holds `train_step`, `transitions` and `elapsed_sec`;
`kept_agents` lists them in training order and `plot_ratings` draws their ratings
against training time. No TensorFlow here: players come ready-made.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from boardq.errors import BoardqError
from boardq.players.elo import bootstrap_intervals, fit_ratings
from boardq.players.evaluation import MoveObserver, Player, play_game
from boardq.plotting import chart
from boardq.rundir import KEPT_AGENT_GLOB, KEPT_AGENTS_DIR

__all__ = [
    "Rating",
    "KeptAgent",
    "plot_ratings",
    "rate",
    "round_robin",
    "kept_agents",
]


@dataclass(frozen=True)
class KeptAgent:
    """An agent a run kept: its file and its header's `info`."""

    path: Path
    info: dict[str, Any]

    @property
    def train_step(self) -> int:
        return int(self.info.get("train_step", -1))

    @property
    def minutes(self) -> float | None:
        """Training time when it was kept, or None if the file does not say."""
        elapsed = self.info.get("elapsed_sec")
        return None if elapsed is None else float(elapsed) / 60.0


@dataclass
class Rating:
    """One player's line in the table."""

    name: str
    rating: float
    low: float
    high: float
    games: int
    score: float
    """Mean points per game (win 1, draw 0.5, loss 0) over all its games."""
    extra: dict[str, Any] = field(default_factory=dict)


def round_robin(
    players: Sequence[Player],
    make_env: Callable[[], Any],
    games_per_seat: int,
    seed: int = 0,
    observers: Sequence[MoveObserver] = (),
) -> tuple[np.ndarray, np.ndarray]:
    """Plays every pair of players, each seat `games_per_seat` times.

    Returns:
        (wins, draws): int64 [P, P]; wins[i, j] games i won against j, draws symmetric.
    """
    if games_per_seat < 1:
        raise ValueError(f"games_per_seat must be positive, got {games_per_seat}")
    size = len(players)
    wins = np.zeros((size, size), np.int64)
    draws = np.zeros((size, size), np.int64)
    game_seed = seed
    for i in range(size):
        for j in range(i + 1, size):
            for first, second in [(i, j)] * games_per_seat + [(j, i)] * games_per_seat:
                result = play_game(
                    make_env, (players[first], players[second]), game_seed, observers
                )
                game_seed += 1
                if result == 0:
                    draws[i, j] += 1
                    draws[j, i] += 1
                else:
                    winner, loser = (first, second) if result > 0 else (second, first)
                    wins[winner, loser] += 1
    return wins, draws


def rate(
    names: Sequence[str],
    wins: np.ndarray,
    draws: np.ndarray,
    anchor: int,
    rng: np.random.Generator,
    rounds: int = 200,
) -> list[Rating]:
    """Elo ratings with 95% bootstrap intervals, in the order of `names`."""
    ratings = fit_ratings(wins, draws, anchor=anchor)
    low, high = bootstrap_intervals(wins, draws, rng, rounds=rounds, anchor=anchor)
    games = (wins + wins.T + draws).sum(axis=1)
    points = wins.sum(axis=1) + 0.5 * draws.sum(axis=1)
    return [
        Rating(
            name=name,
            rating=float(ratings[k]),
            low=float(low[k]),
            high=float(high[k]),
            games=int(games[k]),
            score=float(points[k] / games[k]) if games[k] else float("nan"),
        )
        for k, name in enumerate(names)
    ]


def kept_agents(run_dir: str | Path) -> list[KeptAgent]:
    """The agents a run kept, in training order.

    Raises:
        BoardqError: no such directory, no agents/ folder, or no agent files in it.
    """
    from boardq.players.agentfile import read_header

    run_dir = Path(run_dir)
    folder = run_dir / KEPT_AGENTS_DIR
    if not run_dir.is_dir():
        raise BoardqError(f"run directory {run_dir} does not exist")
    if not folder.is_dir():
        raise BoardqError(
            f"{run_dir} has no {KEPT_AGENTS_DIR}/ folder: this run kept no agents over time"
        )
    snapshots = [KeptAgent(p, read_header(p).get("info", {})) for p in folder.glob(KEPT_AGENT_GLOB)]
    if not snapshots:
        raise BoardqError(f"{folder} holds no {KEPT_AGENT_GLOB} files")
    return sorted(snapshots, key=lambda s: (s.train_step, s.path.name))


def plot_ratings(
    snapshots: Sequence[KeptAgent], ratings: Sequence[Rating], path: Path, title: str
) -> Path:
    """Draws rating (with its interval) against training minutes into a PNG.

    Snapshots whose files do not say `elapsed_sec` are placed by train step instead.

    Raises:
        ImportError: matplotlib is not installed.
    """
    by_time = all(s.minutes is not None for s in snapshots)
    x = [s.minutes if by_time else s.train_step for s in snapshots]
    y = np.array([r.rating for r in ratings])
    err = np.array([[r.rating - r.low for r in ratings], [r.high - r.rating for r in ratings]])
    xlabel = "training time (minutes)" if by_time else "train step"
    with chart(path, title, xlabel, "Elo (95% interval)", legend="lower right") as ax:
        ax.errorbar(x, y, yerr=np.maximum(err, 0), fmt="o-", capsize=3, label="agent")
        ax.axhline(0.0, color="grey", linestyle="--", linewidth=1, label="random (0)")
    return path
