"""Actors: each plays a batch of self-play games with one batched forward pass per move.

An Actor never writes weights and never imports the learner: it gets a read-only
`act_fn(obs_batch) -> (q_values, version)` over the newest published snapshot. It
plays through a `GameBatch` (PettingZoo environments, or a game's vectorized rules)
and turns the moves into transitions with `NStepBatch`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from boardq.dqn.coordination import put_until_stopped
from boardq.dqn.lambda_returns import LambdaReturn
from boardq.dqn.openings import NoOpenings, Openings
from boardq.dqn.ownership import NoOwnership, Ownership
from boardq.dqn.returns import Plain, Returns
from boardq.dqn.rewards import Results, Rewards
from boardq.dqn.sampling import EpsilonGreedy, Play
from boardq.dqn.transitions import NStepBatch
from boardq.gamebatch import GameBatch, Outcome

__all__ = ["ActFn", "Actor", "ActorStats", "MoveSearch"]

ActFn = Callable[[np.ndarray], tuple[np.ndarray, int]]


class MoveSearch(Protocol):
    """Moves of some games chosen by a search (`boardq.search.selfplay.SearchMoves`)."""

    row: int
    """The searched game's row in the batch (its targets are that game's transitions)."""

    def choose(
        self, obs: np.ndarray, mask: np.ndarray, q: np.ndarray, ply: np.ndarray
    ) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """The Q-values to act on, and transitions of the search's values to add."""
        ...


@dataclass
class ActorStats:
    """Counters one actor updates and others read (whole-number writes only)."""

    transitions: int = 0
    games: int = 0
    moves: int = 0
    forward_calls: int = 0
    version: int = 0
    step_sec: float = 0.0
    infer_sec: float = 0.0
    queue_sec: float = 0.0
    search_sec: float = 0.0
    """Time in the searched game's searches (within step_sec)."""
    search_targets: int = 0
    """Transitions of the search's values added (`boardq.search.selfplay`)."""
    results: list[int] = field(default_factory=lambda: [0, 0, 0])  # first wins, draws, second
    pool_results: list[int] = field(default_factory=lambda: [0, 0, 0])  # won, drawn, lost
    """Results of the games against the opponent pool, for the newest snapshot's side."""


class PoolOpponent:
    """The past snapshot an actor's pool games play against, drawn anew now and then.

    Args:
      act_fn: Q-values of int8 planes under a given snapshot's weights,
        `act_fn(obs, snapshot) -> q` (`Builder.make_forward`).
      pool: the learner's `SnapshotPool`.
      share: the share of the actor's games that are pool games.
      seed: the draws' seed.
      redraw_steps: moves between draws of the opponent.
    """

    def __init__(self, act_fn, pool, share: float, seed: int, redraw_steps: int = 64):
        self._act_fn, self._pool, self.share = act_fn, pool, share
        self.rng = np.random.default_rng(seed)  # a checkpoint keeps its state
        self._redraw, self._calls, self._snapshot = redraw_steps, 0, None

    def __call__(self, obs: np.ndarray) -> np.ndarray | None:
        """Q-values of the drawn past snapshot, or None while the pool is empty."""
        if self._snapshot is None or self._calls % self._redraw == 0:
            self._snapshot = self._pool.sample(self.rng)
        self._calls += 1
        if self._snapshot is None:
            return None
        return np.asarray(self._act_fn(obs, self._snapshot))


class Actor:
    """Plays the games of a `GameBatch` in lock-step, one forward pass per move.

    Every game always has a player to move (a finished game restarts at once), so the
    inference batch has a fixed size. The transitions each move closes go to
    `out_queue` as one chunk of column arrays.

    Args:
      games: the batch of games this actor plays.
      act_fn: read-only batched Q-values for int8 planes, with the snapshot version.
      out_queue: bounded queue to the replay memory (anything with `put(item, timeout)`).
      epsilon_fn: exploration rate as a function of transitions collected so far.
      n_step, discount: see `boardq.dqn.transitions`.
      returns: where the n-step returns stop (`boardq.dqn.returns`; default: plain).
      trace: the lambda-return's weights (`boardq.dqn.lambda_returns`; default: the
        plain n-step return).
      play: how moves are chosen from the network's output (`boardq.dqn.sampling`;
        default: epsilon-greedy on Q-values).
      openings: how the games open (`boardq.dqn.openings`; default: every move the
        policy's).
      rewards: what a move earns (`boardq.dqn.rewards`; default: the result).
      seed: this actor's seed (`Builder.actor_seed` gives each actor its own).
      admit: `admit(n, stop)` blocks until n more transitions may be collected (the
        replay-ratio limiter); returns False to give up (stop or timeout).
      name: the thread's name.
      search: plays one game's moves by a tree search and adds its values as targets
        (`boardq.search.selfplay`; None: no search).
      pool: plays a share of the games against past snapshots (None: pure self-play).
        In a pool game the past snapshot takes one seat, alternating game by game;
        every move, either side's, is a transition like any other.
      ownership: what happens to closed transitions before they are queued
        (`boardq.dqn.ownership`; default: queued at once; with ownership targets, held
        until their game ends and labelled then).
    """

    def __init__(
        self,
        games: GameBatch,
        act_fn: ActFn,
        out_queue,
        epsilon_fn: Callable[[], float],
        n_step: int,
        discount: float,
        seed: int,
        admit: Callable[[int, threading.Event], bool] | None = None,
        name: str = "actor",
        pool: PoolOpponent | None = None,
        returns: Returns | None = None,
        openings: Openings | None = None,
        rewards: Rewards | None = None,
        search: MoveSearch | None = None,
        trace: LambdaReturn | None = None,
        play: Play | None = None,
        ownership: Ownership | None = None,
    ):
        self.games = games
        self.name = name
        self._act_fn = act_fn
        self._queue = out_queue
        self._epsilon_fn = epsilon_fn
        self._admit = admit
        self.rng = np.random.default_rng(seed)  # a checkpoint keeps its state
        self._trace = trace if trace is not None else LambdaReturn(1.0, discount)
        self._play = play if play is not None else EpsilonGreedy()
        self._ownership = ownership if ownership is not None else NoOwnership()
        self._tags = self._ownership.tags_moves
        self._nstep = NStepBatch(
            n_step,
            discount,
            games.size,
            games.obs_shape,
            games.num_actions,
            self._trace,
            tag_moves=self._tags,
        )
        self._returns = returns if returns is not None and n_step > 1 else Plain()
        self._openings = openings if openings is not None else NoOpenings()
        self._rewards = rewards if rewards is not None else Results()
        self.stats = ActorStats()
        self.pool = pool  # the past snapshots it plays against, or None
        self.search = search
        m = games.size
        self._ply = np.zeros(m, np.int64)  # moves made in each game so far
        self._pool_games = np.arange(m) < round((pool.share if pool else 0.0) * m)
        self._pool_seat = (np.arange(m) % 2).astype(np.int64)  # the past snapshot's seat

    def step(self) -> dict[str, np.ndarray]:
        """One move in every game; returns the transitions to queue, as columns.

        Those that closed with the move; with ownership targets, those of the games
        the move ended.
        """
        obs, mask = self.games.observe()
        t0 = time.perf_counter()
        out, version = self._act_fn(obs)
        t1 = time.perf_counter()
        newest, _ = self._play.split(out)
        if self.pool is not None:
            out = self._pool_moves(obs, out)
        q, extra = self._play.split(out)
        targets = None
        if self.search is not None:
            t = time.perf_counter()
            q, targets = self.search.choose(obs, mask, q, self._ply)
            self.stats.search_sec += time.perf_counter() - t
            self.stats.search_targets += len(targets["action"])
        actions = self._play.choose(q, extra, mask, self._epsilon_fn(), self.rng)
        actions = self._openings.moves(actions, mask, self._ply, self.rng)
        cuts = self._returns.cuts(newest, mask, actions)
        cut = None if cuts is None else self._nstep.cut(cuts, obs, mask)
        ply = self._ply if self._tags else None
        self._nstep.record(obs, actions, self._trace.values(newest, mask), ply)
        outcome = self.games.step(actions)
        next_obs, next_mask = self.games.observe()
        reward = self._rewards.rewards(outcome)
        chunk = self._nstep.close(reward, outcome.done, next_obs, next_mask)
        if cut is not None and len(cut["action"]):
            chunk = {k: np.concatenate([cut[k], chunk[k]]) for k in chunk}
        if targets is not None and len(targets["action"]):
            if self._tags:  # the searched game's position before this move
                row, n = self.search.row, len(targets["action"])
                targets = targets | {"game": np.full(n, row), "ply": np.full(n, self._ply[row])}
            chunk = {k: np.concatenate([chunk[k], targets[k]]) for k in chunk}
        chunk = self._ownership.hold(chunk, outcome, self._ply)
        self._count_results(outcome)
        self._ply += 1
        self._ply[outcome.done] = 0
        t2 = time.perf_counter()
        s = self.stats
        s.version = version
        s.forward_calls += 1
        s.moves += self.games.size
        s.infer_sec += t1 - t0
        s.step_sec += t2 - t1
        return chunk

    def _pool_moves(self, obs: np.ndarray, q: np.ndarray) -> np.ndarray:
        """Outputs with the past snapshot's in the pool games where it is to move."""
        rows = np.flatnonzero(self._pool_games & (self._ply % 2 == self._pool_seat))
        if rows.size:
            q_past = self.pool(obs[rows])
            if q_past is not None:
                q = np.array(q, copy=True)
                q[rows] = q_past
        return q

    def _count_pool_results(self, outcome: Outcome) -> None:
        ended = outcome.done & self._pool_games
        if not ended.any():
            return
        reward, first = outcome.reward[ended], outcome.first_mover[ended]
        winner = np.where(reward == 0, -1, np.where((reward > 0) == first, 0, 1))
        ours = 1 - self._pool_seat[ended]  # the newest snapshot's seat
        r = self.stats.pool_results
        won, drawn = int(np.sum(winner == ours)), int(np.sum(winner == -1))
        self.stats.pool_results = [r[0] + won, r[1] + drawn, r[2] + reward.size - won - drawn]
        self._pool_seat[ended] ^= 1  # the next game there: the other seat

    def _count_results(self, outcome: Outcome) -> None:
        if self.pool is not None:
            self._count_pool_results(outcome)
        done = outcome.done
        if not done.any():
            return
        reward, first = outcome.reward[done], outcome.first_mover[done]
        first_won = int(np.sum(((reward > 0) & first) | ((reward < 0) & ~first)))
        draws = int(np.sum(reward == 0))
        r = self.stats.results
        self.stats.results = [
            r[0] + first_won,
            r[1] + draws,
            r[2] + reward.size - first_won - draws,
        ]
        self.stats.games += int(reward.size)

    def run(self, stop: threading.Event) -> None:
        """Plays until `stop` is set. Exceptions propagate to the caller's coordinator."""
        m = self.games.size
        while not stop.is_set():
            if self._admit is not None and not self._admit(m, stop):
                continue
            chunk = self.step()
            n = len(chunk["action"])
            if n == 0:
                continue
            t0 = time.perf_counter()
            if not put_until_stopped(self._queue, chunk, stop):
                return
            self.stats.queue_sec += time.perf_counter() - t0
            self.stats.transitions += n
