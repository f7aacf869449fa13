"""When the agent resigns (`boardq gtp --resign-below`, `boardq play --resign-below`).

It resigns a game it judges lost: its win rate of the move it chose, (value + 1) / 2
of a value in [-1, 1], below the threshold. Never in the opening (the first quarter of
the board's points, in plies), where the values say least, nor in a handicap game,
which the side with the stones is expected to win and the other to play out.
"""

from __future__ import annotations

__all__ = ["board_points", "resigns", "win_rate"]


def win_rate(value: float) -> float:
    """The mover's win rate 0..1 of a value in [-1, 1]."""
    return min(1.0, max(0.0, (float(value) + 1) / 2))


def board_points(game) -> int:
    """The points (squares, cells) of a game's board: its planes' rows times columns."""
    shape = game.obs_shape
    return int(shape[0] * shape[1]) if len(shape) >= 2 else int(game.num_actions)


def resigns(
    threshold: float | None, value: float | None, plies: int, points: int, handicap: bool
) -> bool:
    """Whether the agent resigns now.

    Args:
        threshold: the win rate it resigns below (None: never).
        value: its value of the move it chose (None: not known: it plays on).
        plies: the moves played so far (a handicap's stones and passes among them).
        points: the board's points (`board_points`).
        handicap: whether the game started with handicap stones.
    """
    if threshold is None or value is None or handicap or plies < points // 4:
        return False
    return win_rate(value) < threshold
