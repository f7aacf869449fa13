"""A web session as the page draws it: `state_json`, the JSON of everything on the page.

The board (each cell's owner) and the layout (where each action is clicked,
`boardq.play.layout`), the legal actions, the last move, the move list, the result and
the score, how the agent searches and what it may, and the formats the game is saved
in. Read only: nothing here changes a session. No HTTP here.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from boardq.catalog import find_game
from boardq.game import Game
from boardq.records import sgf_game
from boardq.web.search import MOVE_TIMES
from boardq.web.session import WebSession

__all__ = ["state_json"]


def state_json(session: WebSession) -> dict[str, Any]:
    """Everything the page draws of `session`, as JSON."""
    game, match, layout = session.game, session.match, session.layout
    text = game.text
    over = match.over
    board = match.board()
    last = match.last_move()
    return {
        "session": session.id,
        "game": {"name": game.name, "title": game.title, **_komi_json(game)},
        "marks": [text.mark(0), text.mark(1)],
        "layout": layout.to_json(),
        "board": layout.pieces(board),
        "ply": len(match.moves),
        "you": session.seat,
        "to_move": None if over else match.to_move,
        "over": over,
        "result": session.result(),
        "win": [list(cell) for cell in layout.winning(board)] if over else [],
        "scored": session.scored,
        "legal": [int(a) for a in np.flatnonzero(match.legal())] if not over else [],
        "last": None if last is None else _last_json(session, board, last),
        "moves": [
            {"action": a, "label": text.label(a), "by": _by(session, i)}
            for i, a in enumerate(match.moves)
        ],
        "score": dict(session.score),
        "depth": session.depth,
        "max_depth": session.max_depth,
        "move_time": session.move_time,
        "visits": session.visits,
        "move_times": list(MOVE_TIMES) if session.max_depth else [],
        "records": ["sgf", "jsonl"] if sgf_game(game.name) else ["jsonl"],
        "can_undo": any(match.mover_of(i) == session.seat for i in range(len(match.moves))),
        "message": session.message,
    }


def _by(session: WebSession, index: int) -> str:
    """Who played the move at `index`: "you" or "agent"."""
    return "you" if session.match.mover_of(index) == session.seat else "agent"


def _last_json(session: WebSession, board: Any, last: int) -> dict[str, Any]:
    cell = session.layout.last_cell(board, last)
    text = session.game.text
    return {
        "action": last,
        "label": text.label(last),
        "describe": text.describe(last),
        "by": _by(session, len(session.match.moves) - 1),
        "cell": None if cell is None else list(cell),
    }


def _komi_json(game: Game) -> dict[str, float]:
    """A game's komi and the komi its agent learnt with (the catalog's game's), if it has one."""
    if game.setup.komi is None:
        return {}
    own = find_game(game.name)
    return {"komi": game.setup.komi, "learnt_komi": (own or game).setup.komi}
