"""Go rules as PettingZoo's go-v5 (MiniGo) plays them, on positions seen by the player to move.

Captures, suicide illegal, simple ko (the point of a single stone just captured by a
single stone that was itself played into the captured side's eye may not be retaken at
once), a pass always legal, two passes in a row end the game, and Tromp-Taylor area
scoring: every stone on the board counts as alive, an empty region counts for the one
colour it touches, komi goes to white. go-v5 scores a tie (possible only with a
whole-number komi) as a win for white; so do these rules.

A position is an int16 array [N * N + 3]:

- `[0, N * N)`: the points, row by row from the top left (PettingZoo's action `a` is
  point `a`): +1 the mover's stones, -1 the opponent's, 0 empty;
- `[N * N]` (`COLOUR`): the mover's colour, 0 black (moves first), 1 white;
- `[N * N + 1]` (`PASSES`): how many passes in a row led here (2: the game is over);
- `[N * N + 2]` (`KO`): the point the mover may not play (it would retake a ko), or -1.

The observation planes (`PLANES` of them, `planes_from_board`) show all but the ko
point, which only the legal moves show (the one empty point that is neither legal nor
suicide): `board_from_planes` reads it there.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from boardq_games.go import count, life
from boardq_games.go.planes import PLANES, fill_liberty_planes, held_around, own_eyes

__all__ = ["COLOUR", "KO", "PASSES", "GoRules"]

COLOUR, PASSES, KO = -3, -2, -1
"""Where a position keeps its state beyond the points (negative indices)."""


def _neighbours(size: int) -> tuple[tuple[int, ...], ...]:
    """The points next to each point (up, down, left, right where on the board)."""
    table = []
    for point in range(size * size):
        row, col = divmod(point, size)
        near = [(row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1)]
        table.append(tuple(r * size + c for r, c in near if 0 <= r < size and 0 <= c < size))
    return tuple(table)


def _free(cells: list[int], start: int, near: Sequence[tuple[int, ...]]) -> bool:
    """Whether the group at `start` has a liberty (stops at the first one it finds)."""
    colour = cells[start]
    stones, frontier = {start}, [start]
    while frontier:
        for n in near[frontier.pop()]:
            value = cells[n]
            if value == 0:
                return True
            if value == colour and n not in stones:
                stones.add(n)
                frontier.append(n)
    return False


def _stones(cells: list[int], start: int, near: Sequence[tuple[int, ...]]) -> set[int]:
    """The stones of the group at `start`."""
    colour = cells[start]
    stones, frontier = {start}, [start]
    while frontier:
        for n in near[frontier.pop()]:
            if cells[n] == colour and n not in stones:
                stones.add(n)
                frontier.append(n)
    return stones


class GoRules:
    """Go on an N x N board with komi, as PettingZoo's go-v5 plays it (see the module).

    Args:
        size: the board's side (go-v5 takes any; boardq's Go is 9).
        komi: points added to white's area.
    """

    def __init__(self, size: int, komi: float) -> None:
        if int(size) != size or size < 2:
            raise ValueError(f"a Go board is at least 2 x 2, got size {size!r}")
        self.size = int(size)
        self.komi = float(komi)
        self.points = self.size * self.size
        self.pass_action = self.points
        self.num_actions = self.points + 1
        self._near = _neighbours(self.size)

    def compiled(self, pruned=None, pass_to_end: bool = False):
        """These rules compiled for the tree search (`boardq_games.fast_tree`).

        With the own true eyes pruned (`planes.own_eyes`) or not, and the pass searched
        where `boardq.search.passing` keeps it or everywhere; None with another pruning.
        """
        if pruned is not None and pruned is not own_eyes:
            return None
        from boardq_games.fast_rules import GO
        from boardq_games.fast_tree import compiled_form

        n = self.size
        shape, planes = (self.points + 3,), (n, n, PLANES)
        prune = pruned is not None
        return compiled_form(
            GO, n, shape, np.int16, planes, self.num_actions, self.komi, prune, pass_to_end
        )

    # -- positions ------------------------------------------------------------------
    def start(self) -> np.ndarray:
        """The empty board, black to move."""
        position = np.zeros(self.points + 3, np.int16)
        position[KO] = -1
        return position

    def checked(self, position: np.ndarray) -> np.ndarray:
        """The position as int16, or ValueError if it is not one of this board."""
        position = np.asarray(position)
        if position.shape != (self.points + 3,):
            raise ValueError(
                f"expected a {self.size}x{self.size} Go position of shape "
                f"{(self.points + 3,)}, got {position.shape}"
            )
        return position.astype(np.int16, copy=False)

    def board_from_planes(self, planes: np.ndarray, legal: np.ndarray | None = None) -> np.ndarray:
        """The position of the mover's planes (`boardq_games.go.env.GoView`) and legal moves.

        Args:
            planes: int [N, N, PLANES]: the mover's stones, the opponent's, ones if
                the mover is white, ones if the last move was a pass, and the liberty
                planes (read by nobody here: they follow from the stones).
            legal: the mover's legal moves (bool [N * N + 1]); the ko point is the empty
                point they leave out that is not suicide. None: no ko.

        Raises:
            ValueError: the planes have the wrong shape, or the legal moves do not fit
                the position.
        """
        planes = np.asarray(planes)
        if planes.shape != (self.size, self.size, PLANES):
            raise ValueError(
                f"expected Go planes of shape {(self.size, self.size, PLANES)}, got {planes.shape}"
            )
        position = self.start()
        position[: self.points] = (planes[..., 0] != 0).ravel().astype(np.int16) - (
            planes[..., 1] != 0
        ).ravel()
        position[COLOUR] = int(planes[0, 0, 2] != 0)
        position[PASSES] = int(planes[0, 0, 3] != 0)
        if legal is not None:
            legal = np.asarray(legal, bool)
            if legal.shape != (self.num_actions,):
                raise ValueError(f"expected {self.num_actions} legal moves, got {legal.shape}")
            without_ko = self.legal_mask(position)
            ko = np.flatnonzero(without_ko & ~legal)
            if len(ko) > 1 or not legal[self.pass_action] or (legal & ~without_ko).any():
                raise ValueError("the legal moves do not fit the position")
            if len(ko) == 1:
                position[KO] = ko[0]
        return position

    def planes_from_board(self, position: np.ndarray) -> np.ndarray:
        """The mover's planes of a position: the inverse of `board_from_planes`."""
        position = self.checked(position)
        cells = position[: self.points].reshape(self.size, self.size)
        planes = np.zeros((self.size, self.size, PLANES), np.int8)
        planes[..., 0] = cells == 1
        planes[..., 1] = cells == -1
        planes[..., 2] = position[COLOUR]
        planes[..., 3] = position[PASSES] > 0
        liberties = self.liberties(position).reshape(self.size, self.size)
        fill_liberty_planes(planes, cells == 1, cells == -1, liberties)
        return planes

    def liberties(self, position: np.ndarray) -> np.ndarray:
        """Int [N * N]: the liberties of the group of each stone (0 on empty points)."""
        cells = self.checked(position)[: self.points].tolist()
        counts = np.zeros(self.points, np.int64)
        near = self._near
        for point, value in enumerate(cells):
            if value == 0 or counts[point]:
                continue
            group = _stones(cells, point, near)
            free = {n for stone in group for n in near[stone] if cells[n] == 0}
            counts[list(group)] = len(free)
        return counts

    def key(self, position: np.ndarray) -> bytes:
        """A hashable key of the position, for memo tables."""
        return self.checked(position).tobytes()

    # -- moves ----------------------------------------------------------------------
    def legal_mask(self, position: np.ndarray) -> np.ndarray:
        """Bool [N * N + 1]: empty points that are not suicide or the ko point, and the pass.

        Once two passes have ended the game, only the pass (as go-v5 leaves it).
        """
        position = self.checked(position)
        mask = np.zeros(self.num_actions, bool)
        mask[self.pass_action] = True
        if position[PASSES] >= 2:
            return mask
        cells = position[: self.points]
        mask[: self.points] = cells == 0
        # Only a point whose every neighbour is a stone can be suicide (MiniGo's shortcut).
        stones = held_around(cells.reshape(self.size, self.size) != 0, True)
        surrounded = np.flatnonzero((cells == 0) & (stones.ravel() == 4))
        if len(surrounded):
            listed = cells.tolist()
            for point in surrounded.tolist():
                mask[point] = not self._suicide(listed, point)
        if position[KO] >= 0:
            mask[position[KO]] = False
        return mask

    def _suicide(self, cells: list[int], point: int) -> bool:
        """Whether the mover's stone on the surrounded empty `point` would have no liberty."""
        near = self._near
        cells[point] = 1  # the stone, as placed, while the groups around it are looked at
        try:
            for n in near[point]:
                free = _free(cells, n, near)
                if free == (cells[n] == 1):
                    return False  # it joins a group with another liberty, or it captures
            return True
        finally:
            cells[point] = 0

    def apply(self, position: np.ndarray, action: int) -> np.ndarray:
        """Plays `action` for the mover; returns the position seen by the next mover.

        Raises:
            ValueError: the game is over, or the action is not a legal move here.
        """
        position = self.checked(position)
        action = int(action)
        if position[PASSES] >= 2:
            raise ValueError("the game is over")
        if not 0 <= action < self.num_actions:
            raise ValueError(f"action {action} is outside [0, {self.num_actions})")
        after = position.copy()
        after[COLOUR] = 1 - position[COLOUR]
        after[KO] = -1
        if action == self.pass_action:
            after[PASSES] = position[PASSES] + 1
            after[: self.points] = -position[: self.points]
            return after
        cells = position[: self.points].tolist()
        if cells[action] != 0 or action == position[KO]:
            reason = "the ko point" if action == position[KO] else "taken"
            raise ValueError(f"action {action} is not legal here: {reason}")
        near = self._near
        koish = all(cells[n] == -1 for n in near[action])
        cells[action] = 1
        captured: list[int] = []
        for n in near[action]:
            if cells[n] == -1 and not _free(cells, n, near):
                stones = _stones(cells, n, near)
                for stone in stones:
                    cells[stone] = 0
                captured += stones
        if not captured and not _free(cells, action, near):
            raise ValueError(f"action {action} is not legal here: suicide")
        if koish and len(captured) == 1:
            after[KO] = captured[0]
        after[PASSES] = 0
        after[: self.points] = cells
        after[: self.points] *= -1
        return after

    # -- the end --------------------------------------------------------------------
    def over(self, position: np.ndarray) -> bool:
        """Whether two passes in a row have ended the game."""
        return bool(self.checked(position)[PASSES] >= 2)

    def score(self, position: np.ndarray) -> float:
        """Black's area minus white's minus the komi (Tromp-Taylor; no stone is dead)."""
        return self.area_margin(self.board(position))

    def area_margin(self, board: np.ndarray) -> float:
        """Black's area minus white's minus the komi, of a board of +1 black, -1 white.

        A colour's area is its stones and the empty regions that touch its stones only
        (Tromp-Taylor: every stone on the board counts as alive).

        Args:
            board: int [N, N] or [N * N], row 0 at the top.
        """
        cells = np.asarray(board).reshape(-1).tolist()
        if len(cells) != self.points:
            raise ValueError(f"expected {self.points} points, got {len(cells)}")
        counted = count.area(cells, self._near)
        return float(counted[1] - counted[-1] - self.komi)

    def area_owners(self, board: np.ndarray) -> np.ndarray:
        """Each point's owner by `area_margin`'s count: int8 [N * N], +1 black, -1 white, 0 dame.

        Its sum is `area_margin` before the komi (`boardq_games.go.count.owners`).
        """
        cells = np.asarray(board).reshape(-1).tolist()
        if len(cells) != self.points:
            raise ValueError(f"expected {self.points} points, got {len(cells)}")
        return np.asarray(count.owners(cells, self._near), np.int8)

    def settled(self, position: np.ndarray) -> bool:
        """Whether both colours have stones and every empty region touches one colour only.

        Nothing is left between the colours (`boardq_games.go.count.settled`), though a
        group may still be taken (`safe_to_pass`).
        """
        return count.settled(self.checked(position)[: self.points], self.size, self._near)

    def safe_to_pass(self, position: np.ndarray) -> bool:
        """Whether the mover may pass, none of its groups open to capture (`go.life`)."""
        return life.safe_to_pass(self.checked(position)[: self.points], self.size, self._near)

    def winner(self, position: np.ndarray) -> int:
        """Once the game is over, +1 if the mover has won, -1 if the opponent; else 0.

        A tie (a whole-number komi) is white's, as go-v5 scores it.
        """
        position = self.checked(position)
        if position[PASSES] < 2:
            return 0
        black_won = self.score(position) > 0
        mover_is_black = position[COLOUR] == 0
        return 1 if black_won == mover_is_black else -1

    def is_full(self, position: np.ndarray) -> bool:
        """Whether the game ended without a winner: never in go-v5's count."""
        self.checked(position)
        return False

    def board(self, position: np.ndarray) -> np.ndarray:
        """The points as the text board draws them: int8 [N, N], +1 black, -1 white."""
        position = self.checked(position)
        black = 1 if position[COLOUR] == 0 else -1
        return (black * position[: self.points]).astype(np.int8).reshape(self.size, self.size)
