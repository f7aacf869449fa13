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
from boardq.players.elo import bootstrap_intervals, fit_ratings, linked_to
from boardq.players.evaluation import MoveObserver, Player, play_game
from boardq.plotting import chart
from boardq.rundir import KEPT_AGENT_GLOB, KEPT_AGENTS_DIR

__all__ = [
    "Rating",
    "KeptAgent",
    "RoundRobin",
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
    robin = RoundRobin(players, make_env, games_per_seat, seed, observers)
    robin.play()
    return robin.wins, robin.draws


class RoundRobin:
    """Every pair of players, each seat `games_per_seat` times, each result kept.

    A round robin that cannot go on (an engine that died or went silent, Ctrl-C) still
    rates the games it played. Arguments as `round_robin` takes them.

    The pairings come in order (0, 1), (0, 2), ... (1, 2), ...: the first player (the
    league's `random`) meets every other one before any other pairing starts.

    Attributes:
        wins, draws: int64 [P, P] of the games played so far, as `round_robin` returns.
        played: how many games have ended.
    """

    def __init__(
        self,
        players: Sequence[Player],
        make_env: Callable[[], Any],
        games_per_seat: int,
        seed: int = 0,
        observers: Sequence[MoveObserver] = (),
    ) -> None:
        if games_per_seat < 1:
            raise ValueError(f"games_per_seat must be positive, got {games_per_seat}")
        self.players = list(players)
        self.make_env = make_env
        self.seed = seed
        self.observers = observers
        size = len(self.players)
        self.wins = np.zeros((size, size), np.int64)
        self.draws = np.zeros((size, size), np.int64)
        self.played = 0
        self.schedule = [
            seats
            for i in range(size)
            for j in range(i + 1, size)
            for seats in [(i, j)] * games_per_seat + [(j, i)] * games_per_seat
        ]

    @property
    def games(self) -> int:
        """Games in the whole round robin."""
        return len(self.schedule)

    def play(self) -> None:
        """Plays the games not yet played, game k with seed `seed + k`.

        Whatever a game raises (an engine's `EngineError`, KeyboardInterrupt) ends the
        round robin there and is raised again; the games before it stay counted.
        """
        for k in range(self.played, self.games):
            first, second = self.schedule[k]
            seats = (self.players[first], self.players[second])
            result = play_game(self.make_env, seats, self.seed + k, self.observers)
            if result == 0:
                self.draws[first, second] += 1
                self.draws[second, first] += 1
            else:
                winner, loser = (first, second) if result > 0 else (second, first)
                self.wins[winner, loser] += 1
            self.played += 1


def rate(
    names: Sequence[str],
    wins: np.ndarray,
    draws: np.ndarray,
    anchor: int,
    rng: np.random.Generator,
    rounds: int = 200,
) -> list[Rating]:
    """Elo ratings with 95% bootstrap intervals, in the order of `names`.

    Only players linked to the anchor by games played are rated (a round robin that
    stopped early may not have reached them all); the others get NaN and 0 games.
    """
    games = (wins + wins.T + draws).sum(axis=1)
    points = wins.sum(axis=1) + 0.5 * draws.sum(axis=1)
    rated = linked_to(wins + wins.T + draws, anchor)
    sub = np.ix_(rated, rated)
    at = int(np.searchsorted(rated, anchor))
    values = np.full((3, len(names)), np.nan)
    values[0, rated] = fit_ratings(wins[sub], draws[sub], anchor=at)
    low, high = bootstrap_intervals(wins[sub], draws[sub], rng, rounds=rounds, anchor=at)
    values[1, rated], values[2, rated] = low, high
    return [
        Rating(
            name=name,
            rating=float(values[0, k]),
            low=float(values[1, k]),
            high=float(values[2, k]),
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
