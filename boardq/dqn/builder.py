"""The one wiring of training: every part, built the same way for the trainer and the benchmark.

`Builder` (acme's Builder is the model) makes the actors, the queue, the replay and its
rate limiter, the input pipeline, the learner and its loop, and the snapshot-reading
act function (what the actors act with: `boardq.dqn.acting`), for one game and one
`TrainConfig`. `Trainer` composes these parts and runs them; every benchmark stage
builds the parts it measures with the same calls, so the benchmark measures the code
that trains. Actor processes (`boardq.training.remote`) build their actors with it
too.
"""

from __future__ import annotations

import queue
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from boardq.config import TrainConfig
from boardq.dqn import acting
from boardq.dqn.actor import ActFn, Actor, PoolOpponent
from boardq.dqn.collection import Collection, LocalCollection, moves_in_flight
from boardq.dqn.lambda_returns import make_lambda_return
from boardq.dqn.learner_loop import LearnerLoop, Source
from boardq.dqn.openings import make_openings
from boardq.dqn.ownership import (
    POINT_COLUMNS,
    batch_columns,
    check_ownership,
    held_moves,
    make_ownership,
)
from boardq.dqn.replay import RateLimiter, ReplayRing
from boardq.dqn.returns import make_returns
from boardq.dqn.rewards import check_lead, make_rewards
from boardq.gamebatch import EnvGames, GameBatch
from boardq.pruning import PrunedGames, check_pruning

if TYPE_CHECKING:
    from boardq.dqn.dataset import ReplayFeed
    from boardq.dqn.learner import Learner
    from boardq.dqn.networks import QFunction
    from boardq.dqn.sampling import Play
    from boardq.dqn.snapshot import Snapshot, SnapshotBox
    from boardq.game import Game

__all__ = ["Builder"]


class Builder:
    """Makes the parts of a training run of `game` with `config`.

    Args:
      config: validated settings.
      game: the game.
      search: makes an actor's `MoveSearch` for the `search_visits` setting,
        `search(config, game, q_fn, games)` (`boardq.search.selfplay`, which the
        run passes in: this layer does not import the players); None: a run with the
        setting at 0.
    """

    def __init__(self, config: TrainConfig, game: Game, search: Callable | None = None):
        check_ownership(config.ownership_targets, game)
        self.config = config
        self.game = game
        self.columns = batch_columns(config.ownership_targets)
        """The replay's columns (`SCHEMA`, and the ownership targets' with that lever)."""
        self._search = search
        self._inference: tuple[str, str] | None = None

    # -- seeds ---------------------------------------------------------------------------
    def actor_seed(self, thread: int, process: int = 0) -> int:
        """The seed of actor thread `thread` in actor process `process` (the only rule)."""
        return self.config.seed * 1_000_003 + 1_009 * process + 17 * (thread + 1)

    # -- collection ------------------------------------------------------------------------
    def make_games(self, count: int, seed: int) -> GameBatch:
        """`count` games: the game's vectorized rules if it has them and they are on."""
        if self.config.vectorized and self.game.vector is not None:
            owners = {"owners": True} if self.config.ownership_targets else {}
            games = self.game.vector(count, **owners)
        else:
            rng = np.random.default_rng(seed)
            envs = [self.game.make_env() for _ in range(count)]
            setup, seeds = self.game.setup, rng.integers(0, 2**31, count)
            points = self.game.num_actions - 1  # the board's points, beside the pass
            owners = setup.owners if self.config.ownership_targets else None
            games = EnvGames(envs, seeds, score=setup.score, points=points, owners=owners)
        check_lead(self.config.reward_lead, games, self.game.name)
        check_pruning(self.config.prune_moves, self.game)
        if self.config.prune_moves:
            games = PrunedGames(games, self.game.pruned_moves)
        return games

    def actor_inference(self) -> tuple[str, str]:
        """How the actors compute Q-values, and why (`acting.actor_inference`), resolved once."""
        if self._inference is None:
            self._inference = acting.actor_inference(self.config)
        return self._inference

    def make_forward(
        self, q_function: QFunction, inference: str
    ) -> Callable[[np.ndarray, Snapshot], np.ndarray]:
        """Q-values of int8 planes under one snapshot's weights (`acting.make_forward`)."""
        return acting.make_forward(self.config, self.game, q_function, inference)

    def make_policy(
        self, q_function: QFunction, snapshots: SnapshotBox, inference: str = "tensorflow"
    ) -> ActFn:
        """The actors' act function over the newest snapshot (`acting.make_policy`).

        `inference` as `make_forward` takes it.
        """
        return acting.make_policy(self.make_forward(q_function, inference), snapshots)

    def make_actors(
        self,
        act_fn: ActFn,
        out_queue,
        epsilon_fn: Callable[[], float],
        admit: Callable[[int, Any], bool] | None = None,
        process: int = 0,
        learner: Learner | None = None,
        inference: str = "tensorflow",
    ) -> list[Actor]:
        """`actor_threads` actors of `games_per_thread` games each, into `out_queue`.

        With `pool_share` and a learner that keeps an opponent pool, a share of each
        actor's games is played against past snapshots.
        """
        cfg = self.config
        pool = learner.pool if learner is not None and cfg.pool_share else None
        actors = []
        for i in range(cfg.actor_threads):
            seed = self.actor_seed(i, process)
            opponent = None
            if pool is not None:
                past = self.make_forward(learner.q_function, inference)
                opponent = PoolOpponent(past, pool, cfg.pool_share, seed)
            actors.append(
                Actor(
                    games=self.make_games(cfg.games_per_thread, seed),
                    act_fn=act_fn,
                    out_queue=out_queue,
                    epsilon_fn=epsilon_fn,
                    n_step=cfg.n_step,
                    discount=cfg.discount,
                    returns=make_returns(cfg.returns),
                    trace=make_lambda_return(cfg.td_lambda, cfg.discount),
                    play=self.make_play(),
                    openings=make_openings(cfg.opening_plies, cfg.games_per_thread),
                    rewards=make_rewards(cfg.reward_lead),
                    ownership=make_ownership(cfg.ownership_targets, cfg.games_per_thread),
                    seed=seed,
                    admit=admit,
                    name=f"actor-{process}-{i}" if process else f"actor-{i}",
                    pool=opponent,
                    search=acting.move_search(cfg, self.game, self._search, act_fn),
                )
            )
        return actors

    def make_collection(
        self,
        learner: Learner,
        out_queue,
        epsilon_fn: Callable[[], float],
        admit: Callable[[int, Any], bool] | None,
    ) -> Collection:
        """The actor threads of the run, in this process.

        Actor processes on Ray are the run's choice, not the builder's:
        `boardq.training.remote.make_collection` picks between the two.

        Args:
          learner: its snapshots are what the actors act with.
          out_queue: the bounded queue to the replay.
          epsilon_fn: the exploration rate now.
          admit: the replay-ratio limiter's admission, or None (collect freely).
        """
        inference, _ = self.actor_inference()
        act_fn = self.make_policy(learner.q_function, learner.snapshots, inference)
        actors = self.make_actors(
            act_fn, out_queue, epsilon_fn, admit, learner=learner, inference=inference
        )
        return LocalCollection(actors)

    def make_play(self) -> Play:
        """How the actors choose moves (`acting.play_rule`)."""
        return acting.play_rule(self.config, self.game)

    # -- replay and input pipeline ---------------------------------------------------------
    def replay_tolerance(self) -> float:
        """How far, in samples, training may run ahead of or behind the replay ratio.

        Room for the moves the actors may have been admitted for and not delivered yet
        (a step of every game of every thread; with actor processes, every request in
        flight), times the ratio, and for a few of the learner's elements
        (`steps_per_call` batches each), so neither side can wait for the other forever.
        With ownership targets, also for the moves of games not finished yet, which the
        actors hold back (`boardq.dqn.ownership.held_moves`).
        """
        cfg = self.config
        games = cfg.actor_threads * cfg.games_per_thread
        slack = moves_in_flight(cfg) if cfg.actor_processes else games
        if cfg.ownership_targets:
            held = games * max(1, cfg.actor_processes)
            slack += held_moves(held, int(np.prod(self.game.obs_shape[:-1])))
        return cfg.replay_ratio * slack + (cfg.steps_per_call + 4) * cfg.batch_size

    def make_queue(self) -> queue.Queue:
        """The bounded queue from the actors to the replay."""
        return queue.Queue(maxsize=self.config.queue_chunks)

    def make_replay(self, warmup: int | None = None) -> tuple[ReplayRing, RateLimiter]:
        """The replay ring and the rate limiter that holds the replay ratio."""
        cfg = self.config
        game = self.game
        ring = ReplayRing(cfg.replay_capacity, game.obs_shape, game.num_actions, self.columns)
        warmup = cfg.warmup_transitions if warmup is None else warmup
        return ring, RateLimiter(cfg.replay_ratio, warmup, self.replay_tolerance())

    def make_feed(
        self, in_queue: queue.Queue, ring: ReplayRing, limiter: RateLimiter, stop
    ) -> ReplayFeed:
        """The generator that owns the ring and yields elements of K batches."""
        from boardq.dqn.dataset import ReplayFeed

        cfg = self.config
        return ReplayFeed(
            in_queue,
            ring,
            limiter,
            cfg.batch_size,
            stop,
            cfg.seed,
            self.game.symmetries if cfg.augment_symmetries else (),
            batches_per_element=cfg.steps_per_call,
            point_columns=[c for c in POINT_COLUMNS if c in ring.columns],
        )

    def make_dataset_iterator(self, feed: ReplayFeed, learner: Learner) -> Iterator:
        """`from_generator` over the feed, prefetched: what `Learner.train` takes from."""
        from boardq.dqn.dataset import make_dataset

        return iter(make_dataset(feed, learner.element_spec))

    # -- learner -------------------------------------------------------------------------
    def make_learner(self) -> Learner:
        """Networks, optimizer and compiled functions, traced (main thread only)."""
        from boardq.dqn.learner import Learner
        from boardq.dqn.models import configure_threads, learner_precision
        from boardq.dqn.snapshot import SnapshotPool

        cfg = self.config
        configure_threads(cfg)
        precision = learner_precision(cfg, self.game.obs_shape, self.game.num_actions)
        pool = SnapshotPool(cfg.pool_size, cfg.pool_every_steps) if cfg.pool_share else None
        learner = Learner(cfg, self.game.obs_shape, self.game.num_actions, precision, pool)
        learner.warm_up()
        return learner

    def make_learner_loop(
        self, learner: Learner, sources: Mapping[str, Source], start_step: int = 0
    ) -> LearnerLoop:
        """The learner thread's loop over `sources` (see `LearnerLoop`)."""
        cfg = self.config
        return LearnerLoop(
            learner,
            sources,
            steps_per_call=cfg.steps_per_call,
            publish_every=cfg.publish_every_steps,
            start_step=start_step,
            budget_steps=cfg.budget_steps,
        )
