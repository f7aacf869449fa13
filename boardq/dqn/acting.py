"""What the actors act with: the act function, and the play and search levers.

An actor asks its act function for the Q-values of its games' positions, chooses its
moves from them by a play rule and, with `search_visits`, looks ahead from them
first. `Builder` (`boardq.dqn.builder`) makes these for its actors, from one game and
one `TrainConfig`, with the functions here:

- `actor_inference`: where the actors compute Q-values (numpy in the actor's thread,
  or TensorFlow's compiled forward pass), and why;
- `make_forward`, `make_policy`: the Q-values under one snapshot's weights, and the
  act function that reads the newest snapshot;
- `play_rule`: epsilon-greedy, or sampled from a policy head's pi';
- `move_search`: an actor's search for the `search_visits` setting.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from boardq.config import TrainConfig
from boardq.dqn.actor import ActFn, MoveSearch
from boardq.dqn.sampling import Play, make_play
from boardq.settings import ConfigError

if TYPE_CHECKING:
    from boardq.dqn.networks import QFunction
    from boardq.dqn.snapshot import Snapshot, SnapshotBox
    from boardq.game import Game

__all__ = ["actor_inference", "make_forward", "make_policy", "move_search", "play_rule"]


def actor_inference(config: TrainConfig) -> tuple[str, str]:
    """How the actors compute Q-values (`actor_inference`), and one line saying why.

    `auto` asks where TensorFlow computes (`boardq.dqn.chip.detect_chip`).
    """
    from boardq.dqn.numpy_net import resolve_actor_inference

    gpu = False
    if config.actor_inference == "auto":
        from boardq.dqn.chip import detect_chip

        gpu = detect_chip().gpu
    return resolve_actor_inference(config.actor_inference, config.network, gpu)


def make_forward(
    config: TrainConfig, game: Game, q_function: QFunction, inference: str
) -> Callable[[np.ndarray, Snapshot], np.ndarray]:
    """Q-values of int8 planes under one snapshot's weights, as numpy.

    `inference` "numpy" runs `NumpyQNetwork` over the snapshot's arrays in the
    calling thread (numpy's BLAS capped at one thread in this process); otherwise
    `q_function`, TensorFlow's compiled forward pass, over its tensors.
    """
    if inference == "numpy":
        from boardq.dqn.numpy_net import NumpyQNetwork, limit_blas_threads

        limit_blas_threads(1)
        net = NumpyQNetwork(game.obs_shape, game.num_actions, config.network)
        return lambda obs, snap: net(obs, snap.numpy_weights())
    return lambda obs, snap: q_function(obs, snap.weights).numpy()


def make_policy(
    forward: Callable[[np.ndarray, Snapshot], np.ndarray], snapshots: SnapshotBox
) -> ActFn:
    """The actors' act function: `forward`'s Q-values under the newest snapshot, and its version.

    Each call reads one immutable snapshot, so a forward pass never mixes two
    versions of the weights (invariant 2).
    """

    def act(obs: np.ndarray) -> tuple[np.ndarray, int]:
        snap = snapshots.get()
        return forward(obs, snap), snap.version

    return act


def play_rule(config: TrainConfig, game: Game) -> Play:
    """How the actors choose moves: epsilon-greedy, or sampled from a policy head's pi'."""
    return make_play(
        config.network.policy_head, game.num_actions, config.policy_alpha, config.policy_beta
    )


def move_search(
    config: TrainConfig, game: Game, search: Callable | None, act_fn: ActFn
) -> MoveSearch | None:
    """An actor's search for the `search_visits` setting (None: 0).

    `search(config, game, q_fn, games)` makes it (`Builder`'s `search`); None refuses a
    run with the setting on.
    """
    if not config.search_visits:
        return None
    if search is None:
        raise ConfigError("search_visits is set, but this run's builder has no search")
    play = play_rule(config, game)
    q_fn = lambda obs: play.split(act_fn(obs)[0])[0]  # noqa: E731  (Q-values alone)
    return search(config, game, q_fn, config.games_per_thread)
