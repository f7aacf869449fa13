"""Moves taken out of the legal ones, in training and at play: the `prune_moves` setting.

Some legal moves are never worth playing, and a learner that has to find that out by
itself pays for it in every game. Go's is filling one's own true eye: Tromp-Taylor
area counts an eye and the stone that fills it alike, so nothing in a game's result
says not to until a group with two eyes has one and dies. Self-play agents that fill
their eyes lose every group to a player that does not (GNU Go: docs/results/go.md,
"Go: liberty planes and eyes kept"),
and the games they learn from end with dead groups on both sides.

A game that has such moves declares them (`Game.pruned_moves`: planes [B, ...] -> bool
[B, A], never the pass or a game's only move). With `prune_moves` on, the actors'
games hide them from the legal moves (`PrunedGames`), so they are neither played,
explored, nor taken as the next position's best value in a target, and the agent
files of the run say so (`info["prune_moves"]`): an agent then leaves them out at play
too (`pruned_mask`), with or without a search. The serving functions `boardq export`
writes take the legal moves they are given: a caller outside boardq leaves the pruned
moves out itself (for Go, `boardq_games.go.planes.own_eyes`).

numpy only.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from boardq.settings import ConfigError

__all__ = ["INFO_KEY", "PrunedGames", "PrunedRules", "check_pruning", "pruned_mask", "prunes"]

INFO_KEY = "prune_moves"
"""The agent file's `info` entry that says its run pruned the game's moves."""


def check_pruning(prune: bool, game) -> None:
    """Refuses `prune_moves` for a game that declares no moves to prune.

    Raises:
      ConfigError: naming the games that have some.
    """
    if prune and getattr(game, "pruned_moves", None) is None:
        raise ConfigError(
            f"prune_moves needs a game that declares moves not worth playing (go: filling "
            f"one's own eye); {game.name} declares none: set prune_moves to false"
        )


def pruned_mask(
    pruned: Callable[[np.ndarray], np.ndarray], planes: np.ndarray, mask: np.ndarray
) -> np.ndarray:
    """The legal moves `mask` [B, A] of planes [B, ...] without the pruned ones.

    A position whose only legal moves are pruned keeps them.
    """
    mask = np.asarray(mask, bool)
    kept = mask & ~pruned(planes)
    empty = ~kept.any(axis=-1)
    if empty.any():
        kept[empty] = mask[empty]
    return kept


def prunes(info: Mapping[str, Any]) -> bool:
    """Whether an agent file's info says its run pruned the game's moves."""
    return bool(info.get(INFO_KEY, False))


class PrunedGames:
    """A `GameBatch` whose observed legal moves leave out the game's pruned moves.

    Args:
      games: the batch (the game's vectorized rules or `EnvGames`).
      pruned: the game's `pruned_moves`.
    """

    def __init__(self, games, pruned: Callable[[np.ndarray], np.ndarray]) -> None:
        self.games = games
        self._pruned = pruned
        self.size = games.size
        self.obs_shape = games.obs_shape
        self.num_actions = games.num_actions
        self.counts_lead = getattr(games, "counts_lead", False)
        self.counts_owners = getattr(games, "counts_owners", False)

    def observe(self) -> tuple[np.ndarray, np.ndarray]:
        planes, legal = self.games.observe()
        return planes, pruned_mask(self._pruned, planes, legal)

    def step(self, actions: np.ndarray):
        return self.games.step(actions)


PLANES_KEPT = 4096
"""Positions whose planes `PrunedRules` keeps (a depth-2 Go search meets about 2,000)."""


class PrunedRules:
    """A game's rules (`boardq.game.Rules`) whose legal moves leave out the pruned ones.

    What a search over an agent that prunes moves expands; everything else is the
    rules' own. Pruning needs a position's planes, and the search asks for the same
    position's planes for the network: both come from one computation, kept by the
    position's contents for the last `PLANES_KEPT` positions (Go's liberty count is
    Python, the most of a searched node's cost).

    Args:
      rules: the game's rules.
      pruned: the game's `pruned_moves`.
    """

    def __init__(self, rules, pruned: Callable[[np.ndarray], np.ndarray]) -> None:
        self.rules = rules
        self._pruned = pruned
        self._planes: dict[tuple, np.ndarray] = {}
        self._lock = threading.Lock()  # one agent may search in several threads (serve)

    def legal_mask(self, position) -> np.ndarray:
        legal = self.rules.legal_mask(position)
        planes = self.planes_from_board(position)
        return pruned_mask(self._pruned, planes[None], legal[None])[0]

    def board_from_planes(self, planes: np.ndarray, legal: np.ndarray | None = None):
        """The rules' position of `planes`, whose legal moves `legal` may leave pruned ones out.

        The actors' games offer the pruned moves (`PrunedGames`): the rules read a ko from
        the legal moves' gaps, so the pruned ones that the rules allow are put back first
        (a pruned point is the mover's own eye, never a ko point).
        """
        if legal is None:
            return self.rules.board_from_planes(planes)
        legal = np.asarray(legal, bool)
        unpruned = self.rules.legal_mask(self.rules.board_from_planes(planes))
        back = np.asarray(self._pruned(np.asarray(planes)[None]), bool)[0] & unpruned
        return self.rules.board_from_planes(planes, legal | back)

    def planes_from_board(self, position) -> np.ndarray:
        """The rules' planes of `position` (read-only: shared by every caller)."""
        if not isinstance(position, np.ndarray):
            return self.rules.planes_from_board(position)
        key = (position.dtype.str, position.shape, position.tobytes())
        with self._lock:
            planes = self._planes.get(key)
        if planes is not None:
            return planes
        planes = np.asarray(self.rules.planes_from_board(position))
        planes.flags.writeable = False
        with self._lock:
            if len(self._planes) >= PLANES_KEPT:
                del self._planes[next(iter(self._planes))]  # the oldest
            self._planes[key] = planes
        return planes

    def __getattr__(self, name: str) -> Any:
        return getattr(self.rules, name)
