"""Matches on PettingZoo AEC board games, and the scores they give.

A player is anything with `act(observation) -> int`, where `observation` is the
PettingZoo dict `{"observation": planes, "action_mask": mask}` for the player to move.
The reference players (random, win/block, perfect) live in `boardq.players.opponents` and are
re-exported here.

Players that keep their own copy of the game (the OpenSpiel MCTS bot, GTP engines) and
referees that check the rules also implement `MoveObserver`: `play_game` tells them when
a game starts and every move played, with the result once the game has ended. A player
that resigns (a GTP engine answering `resign`) raises `Resigned` from `act`: it loses,
and observers that implement `resigned` are told.

How games open (`Openings`: seeded random moves; `Handicap`: Go's handicap stones) is
`boardq.players.match_openings`; both are re-exported here.

Scores count a win 1, a draw 0.5 and a loss 0 (the convention of Elo ratings), so a
score is the mean points per game in [0, 1]; 0.5 is an even match.

This module imports no TensorFlow: it runs in tests and tools that need no network.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

from boardq.players.match_openings import Handicap, Openings, ScriptedOpening, fixed_handicap
from boardq.players.opponents import PerfectPlayer, RandomPlayer, WinBlockPlayer

if TYPE_CHECKING:
    from pettingzoo.utils.env import AECEnv

__all__ = [
    "Handicap",
    "MoveObserver",
    "Openings",
    "PerfectPlayer",
    "Player",
    "RandomPlayer",
    "ResignationObserver",
    "Resigned",
    "TimedPlayer",
    "WinBlockPlayer",
    "evaluate",
    "fixed_handicap",
    "play_game",
    "score_interval",
]

Observation = Mapping[str, np.ndarray]
Z_95 = 1.959963984540054
"""The standard normal quantile of a two-sided 95% interval."""


class Player(Protocol):
    """Chooses a move for the player to move."""

    def act(self, observation: Observation) -> int:
        """Returns a legal action for the PettingZoo observation of the player to move."""
        ...


class TimedPlayer:
    """A player whose moves are timed: how long a searching agent takes to move.

    Args:
        player: the player timed (it must not be a `MoveObserver`: this wrapper does
            not pass the game's moves on).
    """

    def __init__(self, player: Player) -> None:
        self.player = player
        self.seconds: list[float] = []
        self.depths: list[int] = []

    def act(self, observation: Observation) -> int:
        """The player's move; its time is kept (and the depth a timed search reached)."""
        start = time.perf_counter()
        action = self.player.act(observation)
        self.seconds.append(time.perf_counter() - start)
        if getattr(self.player, "move_time", None):
            self.depths.append(self.player.depth)
        return action

    def summary(self) -> dict[str, float]:
        """`move_sec_mean` and `move_sec_max` over the moves timed, and `moves`.

        For a search given a time per move, also `depth_mean`, `depth_min` and
        `depth_max`: how deep it got.
        """
        times = np.asarray(self.seconds or [0.0])
        out = {
            "move_sec_mean": float(times.mean()),
            "move_sec_max": float(times.max()),
            "moves": float(len(self.seconds)),
        }
        if self.depths:
            depths = np.asarray(self.depths)
            out |= {
                "depth_mean": float(depths.mean()),
                "depth_min": float(depths.min()),
                "depth_max": float(depths.max()),
            }
        return out


@runtime_checkable
class MoveObserver(Protocol):
    """Follows a game move by move."""

    def new_game(self) -> None:
        """A game starts from the initial position."""
        ...

    def moved(self, action: int, result: int | None) -> None:
        """`action` was just played.

        Args:
            action: the PettingZoo action.
            result: None while the game goes on; once it has ended, +1 if the first
                player won, -1 if the second did, 0 for a draw.
        """
        ...


class Resigned(Exception):  # noqa: N818 (what a player does, not a failure)
    """Raised by a player's `act` to resign the game: it loses."""


def play_game(
    make_env: Callable[[], AECEnv],
    players: Sequence[Player],
    seed: int,
    observers: Sequence[MoveObserver] = (),
    openings: Openings | ScriptedOpening | None = None,
    opening_seed: int | None = None,
) -> int:
    """Plays one game in a fresh AEC environment.

    Args:
        make_env: returns a PettingZoo AEC environment, e.g.
            `lambda: pettingzoo.make("aec", "classic/tictactoe-v3")`.
        players: two players; `players[0]` is the env's first agent and moves first.
        seed: seed passed to `env.reset`.
        observers: told of the game's start and of every move, besides those players
            that are `MoveObserver`s themselves.
        openings: the game's first moves are random (`Openings`), or fixed (a
            `Handicap` seated); None: none.
        opening_seed: the seed of those moves (default `seed`).

    Returns:
        +1 if `players[0]` won, -1 if `players[1]` won, 0 for a draw. An illegal move
        loses (PettingZoo gives the offender -1 and the other player 0), and so does
        resigning (`Resigned`).
    """
    if len(players) != 2:
        raise ValueError(f"expected two players, got {len(players)}")
    watchers = [p for p in players if isinstance(p, MoveObserver)] + list(observers)
    env = make_env()
    try:
        env.reset(seed=seed)
        first, second = env.possible_agents
        if env.agent_selection != first:
            raise RuntimeError(f"expected {first!r} to move first, got {env.agent_selection!r}")
        for watcher in watchers:
            watcher.new_game()
        seats = dict(zip((first, second), players, strict=True))
        opening = None
        if openings is not None and openings.plies > 0:
            opening_seed = seed if opening_seed is None else opening_seed
            opening = (openings.plies, openings.player(opening_seed))
        try:
            return _run_game(env, seats, watchers, opening)
        except Resigned:
            result = 1 if env.agent_selection == second else -1
            for watcher in watchers:
                if isinstance(watcher, ResignationObserver):
                    watcher.resigned(result)
            return result
    finally:
        env.close()


@runtime_checkable
class ResignationObserver(Protocol):
    """A `MoveObserver` that also follows games that end by resignation."""

    def resigned(self, result: int) -> None:
        """The player to move resigned; `result` as in `MoveObserver.moved`."""
        ...


def _run_game(
    env: AECEnv,
    seats: Mapping[Any, Player],
    watchers: Sequence[MoveObserver],
    opening: tuple[int, Player] | None = None,
) -> int:
    """Runs the AEC loop to the end; returns the result for the first agent."""
    first, second = env.possible_agents
    result: int | None = None
    plies = 0
    for agent in env.agent_iter():
        _, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)  # PettingZoo yields every agent once more after the end.
            continue
        mover = seats[agent] if opening is None or plies >= opening[0] else opening[1]
        action = int(mover.act(env.observe(agent)))
        plies += 1
        env.step(action)
        if any(env.terminations.values()) or any(env.truncations.values()):
            # The classic board games pay only on the final step, both players at once.
            result = int(np.sign(env.rewards[first] - env.rewards[second]))
        for watcher in watchers:
            watcher.moved(action, result)
    if result is None:
        raise RuntimeError("the game ended without a final move")
    return result


def score_interval(points: float, games: int, z: float = Z_95) -> tuple[float, float]:
    """The Wilson interval of a score (win 1, draw 0.5, loss 0) over `games` games.

    Draws make a game's points vary less than a win-or-loss coin with the same mean, so
    treating the score as a binomial proportion makes the interval a little wide, never
    narrow. Unlike mean +- z * sd it stays inside [0, 1] and does not shrink to a point
    when every game had the same result.

    Args:
        points: total points scored.
        games: games played (at least 1).
        z: the normal quantile (1.96 for 95%).

    Returns:
        (low, high) with 0 <= low <= points / games <= high <= 1.
    """
    if games < 1:
        raise ValueError(f"games must be positive, got {games}")
    p = points / games
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"points {points} outside [0, {games}]")
    z2 = z * z
    center = (p + z2 / (2 * games)) / (1 + z2 / games)
    half = z * math.sqrt(p * (1 - p) / games + z2 / (4 * games * games)) / (1 + z2 / games)
    # Rounding can put an end a hair past the score when every game had one result.
    return max(0.0, min(p, center - half)), min(1.0, max(p, center + half))


def evaluate(
    player: Player,
    opponent: Player,
    make_env: Callable[[], AECEnv],
    games_per_seat: int = 100,
    seed: int = 0,
    should_stop: Callable[[], bool] | None = None,
    observers: Sequence[MoveObserver] = (),
    openings: Openings | Handicap | None = None,
) -> dict[str, float]:
    """Plays `player` against `opponent` from both seats.

    Args:
        player: the player under evaluation.
        opponent: its opponent.
        make_env: returns a PettingZoo AEC environment for one game.
        games_per_seat: games played with `player` moving first, and as many second.
        seed: seed of the first game's `env.reset`; later games count up from it.
        should_stop: asked before each game; when it returns True the evaluation
            ends at once and returns an empty dict (training is shutting down).
        observers: told of every game's moves (see `play_game`), e.g. a rule check.
        openings: random first moves (`Openings`); game i from the first seat and game
            i from the second open alike (opening seed `seed + i`). Or a `Handicap`:
            `player`'s stones placed first where it plays first.

    Returns:
        A flat dict of floats, ready to log. Per seat (`first/`, where `player` moved
        first, and `second/`): `win`, `draw`, `loss` (rates), `games`, `score` (mean
        points of `player`: win 1, draw 0.5, loss 0) and its 95% interval `score_low`,
        `score_high`. Over both seats: `score`, `score_low`, `score_high`, `games`.
    """
    if games_per_seat < 1:
        raise ValueError(f"games_per_seat must be positive, got {games_per_seat}")
    first: list[int] = []
    second: list[int] = []
    for i in range(2 * games_per_seat):
        if should_stop is not None and should_stop():
            return {}
        opening = None if openings is None else openings.seated(i < games_per_seat)
        game = (seed + i, observers, opening, seed + i % games_per_seat)
        if i < games_per_seat:
            first.append(play_game(make_env, (player, opponent), *game))
        else:
            second.append(-play_game(make_env, (opponent, player), *game))
    metrics = {**_seat_metrics("first/", first), **_seat_metrics("second/", second)}
    metrics.update(_scores("", first + second))
    return metrics


def _scores(prefix: str, results: Sequence[int]) -> dict[str, float]:
    points = float(np.sum((np.asarray(results) + 1) / 2))  # -1, 0, +1 -> 0, 0.5, 1
    low, high = score_interval(points, len(results))
    return {
        f"{prefix}score": points / len(results),
        f"{prefix}score_low": low,
        f"{prefix}score_high": high,
        f"{prefix}games": float(len(results)),
    }


def _seat_metrics(prefix: str, results: Sequence[int]) -> dict[str, float]:
    outcomes = np.asarray(results)
    return {
        f"{prefix}win": float(np.mean(outcomes == 1)),
        f"{prefix}draw": float(np.mean(outcomes == 0)),
        f"{prefix}loss": float(np.mean(outcomes == -1)),
        **_scores(prefix, results),
    }
