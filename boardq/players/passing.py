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
- where the position is settled, if the rules can tell (`settled(board)`: Go's, where
  both colours have stones and no empty region touches both): what is left to play
  is inside someone's area, and a pass answered by a pass is the exact count;
- or where it is the only legal move (a forced pass, Othello's).

Everywhere else, for both sides, the pass is not searched: while a boundary is open
the tree plays on, and once the board is settled it may pass, rather than fill its
own area down to its eyes while the opponent plays on (what Go's 3-stone games showed
without the settled case, docs/search.md, "The pass").

Chosen by `TreeConfig.pass_to_end` (on by default) for a game with a pass action;
a no-op in games whose pass is only ever forced. numpy only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from boardq.players.tree_node import end_value

if TYPE_CHECKING:
    from boardq.game import Rules

__all__ = ["PassToEnd"]


class PassToEnd:
    """`rules` whose legal moves keep the pass where it ends the game, is settled or forced.

    Everything but `legal_mask` is the rules' own.

    Args:
      rules: the game's rules (`boardq.game.Rules`).
      pass_action: the game's pass.
    """

    def __init__(self, rules: Rules, pass_action: int) -> None:
        self.rules = rules
        self.pass_action = int(pass_action)
        self._settled = getattr(rules, "settled", None)

    def __getattr__(self, name: str):
        return getattr(self.rules, name)

    def legal_mask(self, board: np.ndarray) -> np.ndarray:
        mask = self.rules.legal_mask(board)
        p = self.pass_action
        if not mask[p] or np.count_nonzero(mask) == 1:
            return mask
        if end_value(self.rules, self.rules.apply(board, p)) is not None:
            return mask  # the opponent passed: this pass ends the game
        if self._settled is not None and self._settled(board):
            return mask  # nothing is left between the colours
        mask = np.array(mask, bool)
        mask[p] = False
        return mask
