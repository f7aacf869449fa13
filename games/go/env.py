"""Go through PettingZoo's classic/go-v5: boardq's planes and the board-size trap.

PettingZoo's Go (MiniGo underneath) keeps its board size in the globals of
`pettingzoo.classic.go.go_base` (N, the neighbour tables...), which each new env
overwrites: a 19x19 env made after a 9x9 one breaks the 9x9 one. `board_size_guard`
restores the env's own size before each of its calls when another env has changed it.

Planes come straight from MiniGo's position (`_go.board`: +1 black, -1 white, row 0
at the top, PettingZoo's action `a` at row `a // N`, column `a % N`) rather than from
go-v5's observation, whose stone planes follow the player who moved last and whose
colour plane is the opposite of what its documentation says.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from boardq_games.go.planes import PLANES, fill_liberty_planes

__all__ = ["GoView", "area_score", "board_size_guard", "display_board", "make_go_env"]


def board_size_guard(raw: Any) -> Callable[[], None]:
    """A hook that puts `raw`'s board size back into go_base's globals where it changed."""
    from pettingzoo.classic.go import go_base

    size = raw._N

    def guard() -> None:
        if go_base.N != size:
            raw._overwrite_go_global_variables(board_size=size)

    return guard


class GoView:
    """Planes [N, N, PLANES] from MiniGo's position, seen by `agent`.

    Channel 0: its stones; 1: the opponent's; 2: all ones if it plays white (komi is
    white's, so the same stones are worth more to white); 3: all ones if the last move
    was a pass (a pass then ends the game); 4-7: its stones in groups of one liberty,
    of two, and the opponent's (`boardq_games.go.planes.PLANES`), from MiniGo's own count.
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self.obs_shape = (size, size, PLANES)
        self.num_actions = size * size + 1

    def observe(self, raw: Any, agent: str) -> tuple[np.ndarray, np.ndarray]:
        position = raw._go
        seat = raw.possible_agents.index(agent)
        mine = 1 if seat == 0 else -1  # black (+1 in MiniGo) moves first
        planes = np.zeros(self.obs_shape, np.int8)
        planes[..., 0] = position.board == mine
        planes[..., 1] = position.board == -mine
        planes[..., 2] = seat
        planes[..., 3] = bool(position.recent) and position.recent[-1].move is None
        liberties = position.lib_tracker.liberty_cache
        fill_liberty_planes(planes, position.board == mine, position.board == -mine, liberties)
        mask = np.zeros(self.num_actions, np.int8)
        if agent == raw.agent_selection:
            mask[raw.next_legal_moves] = 1
        return planes, mask


def make_go_env(size: int, komi: float) -> Any:
    """A guarded `BoardEnv` over a new classic/go-v5 of `size` x `size` with `komi`."""
    import pettingzoo

    from boardq.gamebatch import unwrap_guards
    from boardq_games.adapter import BoardEnv, guarded

    raw = unwrap_guards(pettingzoo.make("aec", "classic/go-v5", board_size=size, komi=komi))
    return guarded(BoardEnv(raw, GoView(size), "go", board_size_guard(raw)))


def display_board(env: Any) -> np.ndarray:
    """The board of a Go env: +1 black (the first player), -1 white, row 0 at the top."""
    return np.asarray(env.unwrapped._go.board, np.int8).copy()


def area_score(env: Any) -> float:
    """Black's area minus white's, komi included, of a Go env (MiniGo's Tromp-Taylor count).

    Every stone on the board counts as alive, as when PettingZoo scores a finished game.
    """
    return float(env.unwrapped._go.score())
