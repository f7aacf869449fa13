"""Ownership and score targets for Go: the `ownership_targets` setting (numpy only).

KataGo (Wu, arXiv 1902.10565, Table 2) trains its network beside the policy and the
value towards two targets that are known only when a game ends, each point's final
owner and the final score: worth 1.65x compute. Here they are auxiliary targets of
the Q-network's torso (heads and loss: `boardq.dqn.ownership_heads`); play, search
and agent files see the Q-network alone.

The targets of a transition, from the view of its mover (who moved from `obs`):

- `ownership` int8 [P]: each board point's owner by the game's own count at its end,
  +1 the mover's, -1 the opponent's, 0 no one's (dame). Go counts area with every
  stone on the board alive (Tromp-Taylor, `boardq_games.go.count.owners`), so a stone
  the count keeps is its colour's, and an empty region is the colour's that alone
  borders it;
- `score` float32: the mover's final area lead, komi counted, over the board's points
  (`Outcome.lead`, within -1..1).

The game's last mover sees the count as its `Outcome` gives it; the other player's
transitions see it negated (`mover_targets`).

Where they are attached: in the actor, after the n-step bookkeeping. With the lever
on, `NStepBatch` tags each closed transition with its game and its move's ply
(`MOVE_TAGS`); `OwnershipTargets.hold` keeps a game's transitions until the move that
ends it, then labels them all and lets them go to the replay queue together. The
returns, discounts and lambda-weights are those of the transitions as they closed;
only their arrival waits. Without the lever `NoOwnership` passes every chunk through
and nothing is tagged: the replay's columns are `SCHEMA`'s, as before.

Holding moves back delays what the rate limiter admitted: up to a game's moves in
every game (`held_moves`), the slack `Builder.replay_tolerance` adds. Transitions
of games still being played when a run stops are not saved (as an open n-step
window is not).
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np

from boardq.dqn.schema import SCHEMA, Column
from boardq.dqn.transitions import MOVE_TAGS
from boardq.gamebatch import Outcome
from boardq.settings import ConfigError

__all__ = [
    "AUX_COLUMNS",
    "POINT_COLUMNS",
    "NoOwnership",
    "Ownership",
    "OwnershipTargets",
    "batch_columns",
    "check_ownership",
    "held_moves",
    "make_ownership",
    "mover_targets",
]

Chunk = dict[str, np.ndarray]

AUX_COLUMNS: tuple[Column, ...] = (
    Column("ownership", np.int8, "points", "each point's final owner, the mover's view"),
    Column("score", np.float32, "scalar", "the mover's final lead over the board's points"),
)
"""The replay's columns the lever adds to `SCHEMA`."""
POINT_COLUMNS = ("ownership",)
"""Columns of one value a board point, which the board's symmetries move as they move cells."""


def batch_columns(ownership_targets: bool) -> tuple[Column, ...]:
    """The replay's and the learner's columns: `SCHEMA`, and `AUX_COLUMNS` with the lever."""
    return SCHEMA + AUX_COLUMNS if ownership_targets else SCHEMA


def held_moves(games: int, points: int) -> int:
    """Moves the lever may hold back at once: about a whole game in each of `games` games.

    Two moves a point: 1,915 random self-play games of 9x9 Go (own eyes kept) lasted
    98 moves on average and 161 at most.
    """
    return 2 * points * games


def check_ownership(ownership_targets: bool, game: Any) -> None:
    """Refuses the lever for a game whose count names no owners (every game but Go).

    Raises:
      ConfigError: naming the setting, in one line.
    """
    if ownership_targets and game.setup.owners is None:
        raise ConfigError(
            f"ownership_targets needs a game whose count gives each point an owner (go); "
            f"{game.name} has none: set ownership_targets to false"
        )


def mover_targets(
    owner: np.ndarray, lead: float, final_ply: int, ply: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The targets of a finished game's transitions, each from its own mover's view.

    Args:
      owner: int8 [P] each point's final owner from the last mover's view.
      lead: the last mover's final lead (`Outcome.lead`).
      final_ply: the ply of the game's last move.
      ply: [R] the plies of the transitions' moves (players alternate).

    Returns:
      (ownership int8 [R, P], score float32 [R]).
    """
    sign = np.where((final_ply - np.asarray(ply)) % 2 == 0, 1, -1).astype(np.int8)
    ownership = sign[:, None] * np.asarray(owner, np.int8)[None, :]
    return ownership.astype(np.int8), (sign * np.float32(lead)).astype(np.float32)


class Ownership(Protocol):
    """What the actor does with the transitions a move closed, before they are queued."""

    tags_moves: bool
    """Whether it needs `NStepBatch`'s `MOVE_TAGS` in the chunks."""

    def hold(self, chunk: Chunk, outcome: Outcome, ply: np.ndarray) -> Chunk:
        """The transitions to queue now.

        Args:
          chunk: the transitions this move closed (with `MOVE_TAGS` if `tags_moves`).
          outcome: the move's outcome.
          ply: [M] the ply of the move just made in each game.
        """
        ...


class NoOwnership:
    """The lever off: every transition is queued as it closes."""

    tags_moves = False

    def hold(self, chunk, outcome, ply):
        return chunk


class OwnershipTargets:
    """Holds each game's transitions until the game ends, then labels them (see the module).

    Args:
      num_games: M, the games of the actor's batch.
    """

    tags_moves = True

    def __init__(self, num_games: int):
        # Per game, (chunk, first row, end row) pieces of the chunks its transitions are in.
        self._held: list[list[tuple[Chunk, int, int]]] = [[] for _ in range(num_games)]

    def held(self) -> int:
        """Transitions held now, of games not finished yet."""
        return sum(hi - lo for pieces in self._held for _, lo, hi in pieces)

    def hold(self, chunk: Chunk, outcome: Outcome, ply: np.ndarray) -> Chunk:
        if outcome.owner is None or outcome.lead is None:
            raise ValueError("these games keep no count: ownership_targets needs Outcome.owner")
        self._add(chunk)
        parts = [self._release(g, outcome, int(ply[g])) for g in np.flatnonzero(outcome.done)]
        parts = [p for p in parts if p is not None]
        if not parts:  # the columns, without rows
            points = outcome.owner.shape[1]
            none = {"ownership": np.zeros((0, points), np.int8), "score": np.zeros(0, np.float32)}
            return {k: v[:0] for k, v in chunk.items() if k not in MOVE_TAGS} | none
        return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}

    def _add(self, chunk: Chunk) -> None:
        games = chunk["game"]
        if games.size == 0:
            return
        order = np.argsort(games, kind="stable")
        games = games[order]
        rows = {k: v[order] for k, v in chunk.items() if k != "game"}
        cuts = [0, *(np.flatnonzero(games[1:] != games[:-1]) + 1).tolist(), games.size]
        for lo, hi in zip(cuts[:-1], cuts[1:], strict=True):
            self._held[int(games[lo])].append((rows, lo, hi))

    def _release(self, game: int, outcome: Outcome, final_ply: int) -> Chunk | None:
        pieces, self._held[game] = self._held[game], []
        if not pieces:
            return None
        rows = {k: np.concatenate([p[k][lo:hi] for p, lo, hi in pieces]) for k in pieces[0][0]}
        ownership, score = mover_targets(
            outcome.owner[game], float(outcome.lead[game]), final_ply, rows.pop("ply")
        )
        return rows | {"ownership": ownership, "score": score}


def make_ownership(ownership_targets: bool, num_games: int) -> Ownership:
    """The `ownership_targets` setting's rule for an actor of `num_games` games."""
    return OwnershipTargets(num_games) if ownership_targets else NoOwnership()
