"""One actor process: the games, actor threads and snapshot copy of a Ray actor.

`ActorProcess` is the body of a Ray actor (`boardq.training.remote.RemoteCollection` makes it
one): it builds its actors with the run's `Builder`, keeps its own CPU copy of the
newest snapshot (the Ape-X way), and plays a request's worth of moves whenever the
learner process asks (`collect`). It says where it runs (`where`: its pid and Ray
node), so the learner can tell a restarted process and the node it moved to.
"""

from __future__ import annotations

import os
import socket
from typing import Any

import numpy as np

from boardq.config import TrainConfig
from boardq.dqn.collection import steps_per_request

__all__ = ["SUMMED", "ActorProcess"]

SUMMED = (
    "games",
    "moves",
    "forward_calls",
    "infer_sec",
    "step_sec",
    "search_sec",
    "search_targets",
)
"""The `ActorStats` counters a request reports, summed over the process's threads."""


class ActorProcess:
    """The body of one actor process (made a Ray actor by `RemoteCollection`).

    Args:
      config: the run's settings, as `TrainConfig.to_dict()`.
      game_name: the game.
      index: this process's number (its actors' seeds and names follow from it).
    """

    def __init__(self, config: dict[str, Any], game_name: str, index: int):
        import ray

        from boardq._quiet import import_tensorflow_quietly

        node = ray.get_runtime_context().get_node_id()
        self._where = {"pid": os.getpid(), "node": node, "host": socket.gethostname()}
        import_tensorflow_quietly()
        import tensorflow as tf

        from boardq.catalog import get_game
        from boardq.dqn.builder import Builder
        from boardq.dqn.networks import QFunction, build_q_network
        from boardq.dqn.snapshot import Snapshot, SnapshotBox
        from boardq.search.selfplay import make_search_moves

        cfg = TrainConfig.from_dict(config)
        game = get_game(game_name)
        threads = cfg.intra_op_threads or 1  # one core per process unless told otherwise
        tf.config.threading.set_intra_op_parallelism_threads(threads)
        self._tf = tf
        model = build_q_network(game.obs_shape, game.num_actions, cfg.network)
        self._q = QFunction(model)
        self._snapshots = SnapshotBox(Snapshot(-1, self._q.weights_of(model)))
        self._q.warm_up(self._snapshots.get().weights)
        self._epsilon = cfg.epsilon_start
        builder = Builder(cfg, game, make_search_moves)
        inference, self._inference_note = builder.actor_inference()
        act = builder.make_policy(self._q, self._snapshots, inference)
        self._actors = builder.make_actors(
            act, None, lambda: self._epsilon, process=index, inference=inference
        )
        self._steps = steps_per_request(cfg)
        self._pool = None
        if len(self._actors) > 1:
            from concurrent.futures import ThreadPoolExecutor

            self._pool = ThreadPoolExecutor(len(self._actors), thread_name_prefix="actor")

    def where(self) -> dict[str, Any]:
        """This process's pid, the id of the Ray node it runs on, and that machine's name."""
        return dict(self._where)

    def collect(
        self, version: int, weights: list[np.ndarray], epsilon: float
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Plays `steps_per_request` moves in every game of every actor thread.

        Args:
          version: the snapshot version `weights` hold.
          weights: the newest snapshot's weights (taken only when newer than the copy
            held: a restarted process catches up with its first request).
          epsilon: the exploration rate to act with.

        Returns:
          The closed transitions as one chunk, and what this request did: the changes
          of `ActorStats`'s counters summed over the threads, the snapshot version
          acted with, and where this process runs (`where`).
        """
        from boardq.dqn.snapshot import Snapshot

        if version > self._snapshots.version:
            tensors = tuple(self._tf.constant(w) for w in weights)
            self._snapshots.publish(Snapshot(version, tensors, tuple(weights)))
        self._epsilon = epsilon
        before = self._totals()
        if self._pool is None:
            chunks = [self._play(self._actors[0])]
        else:
            chunks = list(self._pool.map(self._play, self._actors))
        chunk = {k: np.concatenate([c[k] for c in chunks]) for k in chunks[0]}
        done = {k: v - before[k] for k, v in self._totals().items()}
        done["version"] = self._snapshots.version
        done.update(self._where)
        return chunk, done

    def _totals(self) -> dict[str, Any]:
        """`ActorStats` summed over this process's actors (results as three counts)."""
        stats = [a.stats for a in self._actors]
        totals = {name: sum(getattr(s, name) for s in stats) for name in SUMMED}
        for i, name in enumerate(("first_wins", "draws", "second_wins")):
            totals[name] = sum(s.results[i] for s in stats)
        return totals

    def _play(self, actor) -> dict[str, np.ndarray]:
        chunks = [actor.step() for _ in range(self._steps)]
        return {k: np.concatenate([c[k] for c in chunks]) for k in chunks[0]}
