"""The pass in the tree search at play: searched where it can end the game or nothing is left.

In a game whose pass is always legal (Go), the network's value of the pass is its
least trained one: self-play passes mid-game only by exploration, so the pass's Q is an
extrapolation, and in Go's middle game it came out as the network's best move in every
one of the positions where the tree search passed away its games as white (docs/
search.md, "The pass"). The tree takes the pass's Q as its prior, visits it the most
and plays it, though its searched value is among the worst: a free move for the
opponent, game after game.

As the playouts of Monte Carlo Go programs do not pass while another move is left,
`PassToEnd` is a game's rules for the tree search whose legal moves keep the pass only

- where the pass ends the game (the opponent has just passed): its value is then the
  game's exact result, so the search ends a won game and plays on in a lost count;
- where the mover may pass safely, if the rules can tell (`safe_to_pass(board)`: Go's,
  where every group of the mover's is unconditionally alive or in seki and what is
  left to play is seki or someone's area, `boardq_games.go.life`): the opponent, playing
  on, can take nothing, and the mover need not fill its own area or a shared liberty;
- or where it is the only legal move (a forced pass, Othello's).

Everywhere else, for both sides, the pass is not searched: while a boundary is open or
a group of the mover's can still be taken, the tree plays on. A board where no empty
region touches both colours (Go's `settled`) is not enough: the count of two passes
there takes a group with one eye for alive, and GNU Go with `--capture-all-dead`,
playing on, took every group the agent had left that way (docs/results/search.md, "The pass in Go").

Where the pass is left out, a node's moves are not all the position's: the tree may
prove such a node won (a move that wins is enough), never drawn or lost
(`searched_moves` says which nodes; `boardq.search.proven`).

Chosen by `TreeConfig.pass_to_end` (on by default) for a game with a pass action;
a no-op in games whose pass is only ever forced. numpy only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from boardq.search.tree_node import end_value

if TYPE_CHECKING:
    from boardq.game import Rules

__all__ = ["PassToEnd"]


class PassToEnd:
    """`rules` whose legal moves keep the pass where it ends the game, is safe or forced.

    Everything but `legal_mask` and `searched_moves` is the rules' own.

    Args:
      rules: the game's rules (`boardq.game.Rules`).
      pass_action: the game's pass.
    """

    def __init__(self, rules: Rules, pass_action: int) -> None:
        self.rules = rules
        self.pass_action = int(pass_action)
        self._safe = getattr(rules, "safe_to_pass", None)

    def __getattr__(self, name: str):
        return getattr(self.rules, name)

    def legal_mask(self, board: np.ndarray) -> np.ndarray:
        return self.searched_moves(board)[0]

    def searched_moves(self, board: np.ndarray) -> tuple[np.ndarray, bool]:
        """The moves searched at `board`, and whether a legal move (the pass) is left out."""
        mask = self.rules.legal_mask(board)
        p = self.pass_action
        if not mask[p] or np.count_nonzero(mask) == 1:
            return mask, False
        if end_value(self.rules, self.rules.apply(board, p)) is not None:
            return mask, False  # the opponent passed: this pass ends the game
        if self._safe is not None and self._safe(board):
            return mask, False  # nothing of the mover's can be taken
        mask = np.array(mask, bool)
        mask[p] = False
        return mask, True
