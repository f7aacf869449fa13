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

`Match` plays one player against another from both seats and keeps each result as
its game ends, so a match that cannot go on (an engine that died or went silent,
Ctrl-C) still scores the games it played; `evaluate` is a whole match. Scores count a
win 1, a draw 0.5 and a loss 0 (`boardq.players.scores`, whose `score_interval` is
re-exported here).

This module imports no TensorFlow: it runs in tests and tools that need no network.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

from boardq.players.match_openings import Handicap, Openings, ScriptedOpening, fixed_handicap
from boardq.players.opponents import PerfectPlayer, RandomPlayer, WinBlockPlayer
from boardq.players.scores import score_interval, scores, seat_metrics
from boardq.players.timing import TimedPlayer

if TYPE_CHECKING:
    from pettingzoo.utils.env import AECEnv

__all__ = [
    "Handicap",
    "Match",
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


class Player(Protocol):
    """Chooses a move for the player to move."""

    def act(self, observation: Observation) -> int:
        """Returns a legal action for the PettingZoo observation of the player to move."""
        ...


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
    match = Match(player, opponent, make_env, games_per_seat, seed, observers, openings)
    return match.metrics() if match.play(should_stop) else {}


class Match:
    """`player` against `opponent` from both seats, each result kept as its game ends.

    The games are `evaluate`'s, in its order: `games_per_seat` with `player` first,
    then as many with it second. Arguments as `evaluate` takes them.

    Attributes:
        first, second: the results so far from `player`'s side (+1 a win, 0 a draw,
            -1 a loss) where it moved first, and second.
    """

    def __init__(
        self,
        player: Player,
        opponent: Player,
        make_env: Callable[[], AECEnv],
        games_per_seat: int = 100,
        seed: int = 0,
        observers: Sequence[MoveObserver] = (),
        openings: Openings | Handicap | None = None,
    ) -> None:
        if games_per_seat < 1:
            raise ValueError(f"games_per_seat must be positive, got {games_per_seat}")
        self.players = (player, opponent)
        self.make_env = make_env
        self.games_per_seat = games_per_seat
        self.seed = seed
        self.observers = observers
        self.openings = openings
        self.first: list[int] = []
        self.second: list[int] = []

    @property
    def played(self) -> int:
        """Games that have ended."""
        return len(self.first) + len(self.second)

    @property
    def games(self) -> int:
        """Games in the whole match."""
        return 2 * self.games_per_seat

    def play(self, should_stop: Callable[[], bool] | None = None) -> bool:
        """Plays the games not yet played; False if `should_stop` ended it first.

        Whatever a game raises (an engine's `EngineError`, KeyboardInterrupt) ends the
        match there and is raised again; the games before it stay counted.
        """
        player, opponent = self.players
        n = self.games_per_seat
        for i in range(self.played, self.games):
            if should_stop is not None and should_stop():
                return False
            opening = None if self.openings is None else self.openings.seated(i < n)
            game = (self.seed + i, self.observers, opening, self.seed + i % n)
            if i < n:
                self.first.append(play_game(self.make_env, (player, opponent), *game))
            else:
                self.second.append(-play_game(self.make_env, (opponent, player), *game))
        return True

    def metrics(self) -> dict[str, float]:
        """The scores of the games played so far, named as `evaluate` names them.

        A seat without a game has none of its own (`first/...` or `second/...`); a
        match without a game has none at all.
        """
        out: dict[str, float] = {}
        if self.first:
            out |= seat_metrics("first/", self.first)
        if self.second:
            out |= seat_metrics("second/", self.second)
        if self.played:
            out |= scores("", self.first + self.second)
        return out
