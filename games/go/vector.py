"""Many Go games stepped together in numpy, move for move like PettingZoo's go-v5.

Each game keeps its points (+1 black, -1 white, 0 empty; one more column off the
board, so that every point has four neighbours to look up), the colour to move, the
passes in a row, the ko point, and a label per stone, the same for the stones of a
group and numbered across the whole batch (a stone's first label is its index in the
batch). A move relabels every game at once through one table: the new stone's groups
take its label, captured groups label 0. After every move one table counts each
group's liberties (the distinct empty points next to it), and from it:

- a point is legal for the mover if it is empty and touches an empty point, a group
  of its own with two liberties or more, or an opponent's group with one (a capture);
  not the ko point; the pass always (only the few empty points with stones all
  around are looked at closely, as MiniGo does);
- a stone captures the opponent's groups next to it that had one liberty; if it
  captured one stone and every neighbour of its point was the opponent's, that stone's
  point is the ko point for the next move (MiniGo's rule).

Two passes in a row end a game; it is counted by area (`GoRules.area_margin`; with
`owners`, `GoRules.area_owners`, each point's owner, whose sum less the komi is the
same margin) and restarted.
"""

from __future__ import annotations

import numpy as np

from boardq.gamebatch import Outcome, mover_lead
from boardq_games.go.planes import PLANES, fill_liberty_planes
from boardq_games.go.rules import GoRules

__all__ = ["GoVector"]

_OFF = 2
"""The value of the column off the board: no colour and not empty."""


def _neighbour_table(size: int) -> np.ndarray:
    """Int [N * N, 4]: each point's neighbours; N * N (off the board) where there is none."""
    points = size * size
    table = np.full((points, 4), points, np.int64)
    for point in range(points):
        row, col = divmod(point, size)
        for k, (r, c) in enumerate(
            ((row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1))
        ):
            if 0 <= r < size and 0 <= c < size:
                table[point, k] = r * size + c
    return table


class GoVector:
    """`num_games` games of Go, observed and stepped like `boardq_games.go.env` (go-v5 with GoView).

    Black (`black_0`, PettingZoo's first agent) moves first in every game. Observations
    are the planes of the player to move (its stones, the opponent's, ones if it is
    white, ones if the last move was a pass, and the liberty planes of
    `boardq_games.go.planes.PLANES`); action `a < N * N` is the point at row
    `a // N` from the top, column `a % N`, and `N * N` is the pass.

    Args:
      num_games: the number of games stepped together.
      size: the board's side.
      komi: points added to white's area.
      owners: outcomes carry each point's final owner, the mover's view
        (`Outcome.owner`, for ownership targets; `counts_owners`).
    """

    counts_lead = True
    """Outcomes carry the mover's area margin over the board's points (`Outcome.lead`)."""

    def __init__(self, num_games: int, size: int = 9, komi: float = 7.5, owners: bool = False):
        if num_games < 1:
            raise ValueError(f"num_games must be at least 1, got {num_games}")
        self.size = int(num_games)
        self.counts_owners = bool(owners)
        self.board_size = int(size)
        self._points = points = self.board_size * self.board_size
        self.obs_shape = (self.board_size, self.board_size, PLANES)
        self.num_actions = points + 1
        self._counter = GoRules(self.board_size, komi)
        self._near = _neighbour_table(self.board_size)
        self._games = np.arange(self.size)
        self._board = np.zeros((self.size, points + 1), np.int8)
        self._colour = np.ones(self.size, np.int8)  # +1 black to move, -1 white
        self._passes = np.zeros(self.size, np.int8)
        self._ko = np.full(self.size, -1, np.int64)
        self._planes = np.zeros((self.size, *self.obs_shape), np.int8)
        self._legal = np.zeros((self.size, self.num_actions), bool)
        # Stone labels (0: no stone) and liberties by label, of the positions observed.
        self._labels = np.zeros((self.size, points + 1), np.int64)
        self._liberties = np.zeros(1, np.int64)
        self.reset()

    def reset(self) -> None:
        """Every game back to the empty board, black to move."""
        self._restart(self._games)
        self._update()

    def observe(self) -> tuple[np.ndarray, np.ndarray]:
        """int8 planes [M, N, N, PLANES] and bool legal moves [M, N * N + 1] of the players to move.

        The arrays belong to the batch and are overwritten by the next `step`.
        """
        return self._planes, self._legal

    def step(self, actions: np.ndarray) -> Outcome:
        """Plays `actions[i]` in game i; games that end (two passes) are counted and restart.

        Raises:
          ValueError: an action is not legal in its game (no game changes then).
        """
        actions = np.asarray(actions, np.int64)
        if actions.shape != (self.size,):
            raise ValueError(f"expected {self.size} actions, got shape {actions.shape}")
        if actions.min() < 0 or actions.max() >= self.num_actions:
            raise ValueError(f"actions must be in 0..{self.num_actions - 1}")
        illegal = ~self._legal[self._games, actions]
        if illegal.any():
            raise ValueError(f"illegal move played in games {np.flatnonzero(illegal)}")
        first = self._colour == 1
        passing = actions == self._points
        self._ko[:] = -1
        placing = np.flatnonzero(~passing)
        if len(placing):
            self._place(placing, actions[placing])
        self._passes = np.where(passing, self._passes + 1, 0).astype(np.int8)
        done = self._passes >= 2
        reward = np.zeros(self.size, np.float32)
        lead = np.zeros(self.size, np.float32)
        owner = np.zeros((self.size, self._points), np.int8) if self.counts_owners else None
        for game in np.flatnonzero(done).tolist():
            board = self._board[game, : self._points]
            if owner is None:
                margin = self._counter.area_margin(board)
            else:  # the same count, walked once
                black = self._counter.area_owners(board)
                margin = float(int(black.sum()) - self._counter.komi)
                owner[game] = black if first[game] else -black
            reward[game] = 1.0 if (margin > 0) == first[game] else -1.0  # a tie is white's
            lead[game] = mover_lead(margin, first[game], self._points)
        self._colour = -self._colour
        if done.any():
            self._restart(np.flatnonzero(done))
        self._update()
        return Outcome(reward, done, first, lead, owner)

    def _place(self, games: np.ndarray, points: np.ndarray) -> None:
        """Puts the mover's stone on `points[k]` in game `games[k]` and takes what it captures."""
        colour = self._colour[games]
        near = self._near[points]  # [K, 4]
        near_colour = self._board[games[:, None], near]
        near_label = self._labels[games[:, None], near]
        theirs = near_colour == -colour[:, None]
        mine = near_colour == colour[:, None]
        koish = (theirs | (near == self._points)).all(axis=1)
        new = games * (self._points + 1) + points + 1  # the new stone's own label
        relabel = np.arange(len(self._liberties))
        relabel[near_label[mine]] = np.broadcast_to(new[:, None], near.shape)[mine]
        dead = near_label[theirs & (self._liberties[near_label] == 1)]
        relabel[dead] = 0
        if dead.size:
            is_dead = np.zeros(len(self._liberties), bool)
            is_dead[dead] = True
            captured = is_dead[self._labels]  # [M, P + 1]: labels are unique to the batch
            self._board[captured] = 0
            single = koish & (captured[games].sum(axis=1) == 1)
            if single.any():
                self._ko[games[single]] = np.argmax(captured[games[single]], axis=1)
        self._labels = relabel[self._labels]
        self._labels[games, points] = new
        self._board[games, points] = colour

    def _restart(self, games: np.ndarray) -> None:
        self._board[games, : self._points] = 0
        self._board[games, self._points] = _OFF
        self._labels[games] = 0
        self._colour[games] = 1
        self._passes[games] = 0
        self._ko[games] = -1

    def _update(self) -> None:
        """The liberties, the legal moves and the planes of the positions now."""
        points, board = self._points, self._board
        stones = board[:, :points]
        near = self._near
        near_colour = board[:, near]  # [M, P, 4]
        empty = stones == 0
        near_label = self._labels[:, near]
        # Liberties: the distinct groups next to each empty point, counted once each.
        a, b, c, d = near_label[empty].T
        groups = np.concatenate([
            a[a != 0],
            b[(b != 0) & (b != a)],
            c[(c != 0) & (c != a) & (c != b)],
            d[(d != 0) & (d != a) & (d != b) & (d != c)],
        ])  # fmt: skip
        self._liberties = np.bincount(groups, minlength=self._labels.size + 1)
        # An empty point next to an empty point is legal; one surrounded by stones (few)
        # is legal if it captures or joins a group of its own with another liberty.
        legal = self._legal
        legal[:, :points] = empty & (near_colour == 0).any(axis=2)
        games, cut = np.nonzero(empty & ~legal[:, :points])
        if len(games):
            mover = self._colour[games, None]
            around = near_colour[games, cut]
            liberties = self._liberties[near_label[games, cut]]
            breathes = ((around == mover) & (liberties >= 2)) | (
                (around == -mover) & (liberties == 1)
            )
            legal[games, cut] = breathes.any(axis=1)
        legal[:, points] = True
        ko = np.flatnonzero(self._ko >= 0)
        legal[ko, self._ko[ko]] = False
        shape = (self.size, self.board_size, self.board_size)
        planes = self._planes
        mine = (stones == self._colour[:, None]).reshape(shape)
        theirs = (stones == -self._colour[:, None]).reshape(shape)
        planes[..., 0] = mine
        planes[..., 1] = theirs
        planes[..., 2] = (self._colour == -1)[:, None, None]
        planes[..., 3] = (self._passes > 0)[:, None, None]
        liberties = self._liberties[self._labels[:, :points]].reshape(shape)
        fill_liberty_planes(planes, mine, theirs, liberties)
