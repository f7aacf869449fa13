"""The pass in the tree search at play: a move only where it can end the game.

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
- or where it is the only legal move (a forced pass, Othello's).

Everywhere else, for both sides, the pass is not searched: the tree plays on until the
opponent passes (GNU Go and people pass once nothing is left to play) and then ends the
game, or counts that it must play on. While the opponent plays on in a settled
position, so does the tree: it plays its own territory's points, down to the true eyes
its agent prunes (`boardq.pruning`), and passes once they alone are left (a false eye
it fills; the cost shows in Go's handicap games, docs/search.md, "Limits").

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
    """`rules` whose legal moves keep the pass only where it ends the game or is forced.

    Everything but `legal_mask` is the rules' own.

    Args:
      rules: the game's rules (`boardq.game.Rules`).
      pass_action: the game's pass.
    """

    def __init__(self, rules: Rules, pass_action: int) -> None:
        self.rules = rules
        self.pass_action = int(pass_action)

    def __getattr__(self, name: str):
        return getattr(self.rules, name)

    def legal_mask(self, board: np.ndarray) -> np.ndarray:
        mask = self.rules.legal_mask(board)
        p = self.pass_action
        if not mask[p] or np.count_nonzero(mask) == 1:
            return mask
        if end_value(self.rules, self.rules.apply(board, p)) is not None:
            return mask  # the opponent passed: this pass ends the game
        mask = np.array(mask, bool)
        mask[p] = False
        return mask
