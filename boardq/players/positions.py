"""Test positions with known best moves: a file of them, and the share a player gets right.

A positions file is JSON: a header saying how its positions were made and labelled,
`"game"` (the boardq game name) and `"positions"`, each with

- `moves`: the PettingZoo actions played from the start of the game to the position;
- `values`: for every action, the game's outcome for the player to move if it plays that
  action and both sides then play perfectly (1 a win, 0 a draw, -1 a loss; null where
  the action is illegal);
- `best`: the actions of the best value, and `outcome`: that value.

`best` and `outcome` follow from `values`; the file states them for its readers and
`load_positions` checks that they agree. A player gets a position right when its move
is one of `best`. Connect Four's file (games/connect_four/critical-positions.json) holds
positions where some moves keep the best outcome and others lose it.

No TensorFlow here.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from boardq.errors import BoardqError
from boardq.players.evaluation import TimedPlayer, score_interval

__all__ = [
    "OUTCOMES",
    "Position",
    "PositionSet",
    "load_positions",
    "measure",
    "observations",
    "share_metrics",
]

OUTCOMES = {1: "win", 0: "draw", -1: "loss"}
"""The outcome of a position for the player to move, by value, as the metrics name it."""


@dataclass(frozen=True)
class Position:
    """A position and the value of every move in it.

    Attributes:
        moves: the PettingZoo actions that lead to it from the start.
        values: by action, the outcome of playing it with perfect play after (1 win,
            0 draw, -1 loss, for the player to move); None for an illegal action.
    """

    moves: tuple[int, ...]
    values: tuple[int | None, ...]

    @property
    def outcome(self) -> int:
        """The best value of a legal move: the position's outcome with perfect play."""
        return max(v for v in self.values if v is not None)

    @property
    def best(self) -> frozenset[int]:
        """The actions that keep the best outcome."""
        return frozenset(a for a, v in enumerate(self.values) if v == self.outcome)


@dataclass(frozen=True)
class PositionSet:
    """The positions of a file, and its header (everything but the positions)."""

    game: str
    positions: tuple[Position, ...]
    header: dict[str, Any]


def _position(entry: Any, num_actions: int | None) -> Position:
    """One entry of the file's positions; ValueError says what is wrong with it."""
    if not isinstance(entry, dict) or not {"moves", "values", "best", "outcome"} <= entry.keys():
        raise ValueError("expected an object with moves, values, best and outcome")
    moves, values = entry["moves"], entry["values"]
    if not isinstance(moves, list) or not all(type(m) is int and m >= 0 for m in moves):
        raise ValueError("moves must be a list of actions (whole numbers >= 0)")
    legal = [v for v in values if v is not None] if isinstance(values, list) else []
    if not legal or not all(type(v) is int and v in OUTCOMES for v in legal):
        raise ValueError("values must list 1, 0, -1 or null by action, at least one not null")
    if num_actions is not None and len(values) != num_actions:
        raise ValueError(f"values must have one entry per action ({num_actions})")
    position = Position(tuple(moves), tuple(values))
    best = entry["best"]
    listed = sorted(best) if isinstance(best, list) and all(type(b) is int for b in best) else None
    if listed != sorted(position.best) or entry["outcome"] != position.outcome:
        raise ValueError(
            f"best {entry['best']} and outcome {entry['outcome']} do not follow from its values"
        )
    return position


def load_positions(
    path: str | Path, game: str | None = None, num_actions: int | None = None
) -> PositionSet:
    """Reads a positions file (see the module's docstring).

    Args:
        path: the file.
        game: if given, the file must hold positions of the game of this name.
        num_actions: the game's number of actions, if known: every entry's values must
            have that many.

    Raises:
        BoardqError: the file is missing, not JSON, of another game, or not a positions
            file (the message names the first bad entry).
    """
    path = Path(path)
    try:
        data = json.loads(path.read_text())
    except OSError as e:
        raise BoardqError(f"cannot read the positions file {path}: {e.strerror or e}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise BoardqError(f"{path} is not a positions file (not JSON: {e})") from None
    if not isinstance(data, dict) or not isinstance(data.get("positions"), list):
        raise BoardqError(f"{path} is not a positions file (no list of positions)")
    if game is not None and data.get("game") != game:
        raise BoardqError(f"{path} holds positions of {data.get('game')!r}, not {game!r}")
    if not data["positions"]:
        raise BoardqError(f"{path} holds no positions")
    positions = []
    for i, entry in enumerate(data["positions"]):
        try:
            positions.append(_position(entry, num_actions))
        except ValueError as e:
            raise BoardqError(f"{path}: position {i + 1}: {e}") from None
    header = {k: v for k, v in data.items() if k != "positions"}
    return PositionSet(str(data.get("game", "")), tuple(positions), header)


def observations(make_env: Callable[[], Any], positions: Sequence[Position]) -> list[dict]:
    """The PettingZoo observation of the player to move in each position.

    Each position is replayed from the start in one environment (reset between them).

    Raises:
        ValueError: a position's move is illegal, or the game ends before its last move
            (the message gives the position's number, from 1, and the move's).
    """
    env = make_env()
    out = []
    try:
        for i, position in enumerate(positions):
            env.reset(seed=0)
            for ply, action in enumerate(position.moves):
                mask = np.asarray(env.observe(env.agent_selection)["action_mask"])
                ended = any(env.terminations.values()) or any(env.truncations.values())
                if ended or action >= mask.size or not mask[action]:
                    why = "the game is over" if ended else "it is illegal"
                    raise ValueError(f"position {i + 1}: move {ply + 1} ({action}): {why}")
                env.step(int(action))
            if any(env.terminations.values()) or any(env.truncations.values()):
                raise ValueError(f"position {i + 1}: the game is over")
            observed = env.observe(env.agent_selection)
            out.append({k: np.array(v) for k, v in observed.items()})
    finally:
        env.close()
    return out


def share_metrics(positions: Sequence[Position], chosen: Sequence[int]) -> dict[str, float]:
    """How many of the chosen moves are best moves, overall and by the position's outcome.

    Args:
        positions: the positions.
        chosen: the move played in each.

    Returns:
        `positions`, `right`, `share` (right / positions) and its 95% Wilson interval
        `share_low`, `share_high`; the same under `win/`, `draw/` and `loss/` for the
        positions of each outcome that has any.
    """
    if len(positions) != len(chosen) or not positions:
        raise ValueError(f"expected a move for each of {len(positions)} positions (at least 1)")
    right = np.array([int(a) in p.best for p, a in zip(positions, chosen, strict=True)])
    outcomes = np.array([p.outcome for p in positions])
    metrics = _share("", right)
    for value, name in OUTCOMES.items():
        if np.any(outcomes == value):
            metrics |= _share(f"{name}/", right[outcomes == value])
    return metrics


def measure(player, positions: Sequence[Position], seen: Sequence[dict]) -> dict[str, Any]:
    """The player's move in each position, scored.

    The positions are unrelated, so each is searched afresh: a player that keeps what it
    found between moves (the tree search's kept tree) is told to `forget()` it first.

    Args:
        player: anything with `act(observation) -> int` (and `forget()`, if it keeps a tree).
        positions: the positions.
        seen: the observation of each (`observations`).

    Returns:
        `share_metrics`, the player's time a move (`TimedPlayer.summary`), and `missed`:
        for each position where its move was not best, its number (from 1), its moves,
        the move played and the best ones.
    """
    timed = TimedPlayer(player)
    forget = getattr(player, "forget", None)
    chosen = []
    for observation in seen:
        if forget is not None:
            forget()
        chosen.append(int(timed.act(observation)))
    result: dict = share_metrics(positions, chosen) | timed.summary()
    result["missed"] = [
        {"position": i + 1, "moves": list(p.moves), "played": a, "best": sorted(p.best)}
        for i, (p, a) in enumerate(zip(positions, chosen, strict=True))
        if a not in p.best
    ]
    return result


def _share(prefix: str, right: np.ndarray) -> dict[str, float]:
    low, high = score_interval(float(right.sum()), right.size)
    return {
        f"{prefix}positions": float(right.size),
        f"{prefix}right": float(right.sum()),
        f"{prefix}share": float(right.mean()),
        f"{prefix}share_low": low,
        f"{prefix}share_high": high,
    }
