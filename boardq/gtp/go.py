"""Go's setup and count over GTP: komi, handicap stones, the final score and status.

- `komi K`: any komi (GTP requires an engine to take it; Sabaki opens games at 6.5,
  handicap games use 0.5). The game is then counted with it, from the next move on
  the board as it stands; the agent learnt with the game's own komi, and the engine
  says so once on stderr when it plays with another. Games without komi take any and
  ignore it.
- `fixed_handicap N`, `place_free_handicap N` (on the same fixed points) and
  `set_free_handicap V...`: black's first moves with white passing between them, as
  the ladder's handicap games are played, which `undo` does not take back.
- `final_score`: boardq's count (Go: area, Tromp-Taylor, komi included).
- `final_status_list dead|alive|seki`: Tromp-Taylor counts every stone on the board as
  alive, so `alive` lists them all and `dead` and `seki` none, as `final_score` and the
  SGF result count.
"""

from __future__ import annotations

import numpy as np

from boardq.gtp.protocol import GtpSyntaxError, parse_number, score_text
from boardq.players.match_openings import Handicap
from boardq.setup import MAX_KOMI

__all__ = ["GoSetup"]


class GoSetup:
    """The setup and count commands of an engine's game (those its `Setup` has)."""

    def __init__(self, engine) -> None:
        self.engine = engine
        self.setup = engine.game.setup
        self.said_komi = False

    def handlers(self) -> dict:
        """The GTP commands it answers, by name (handicap and status where Go has them)."""
        setup = self.setup
        table = {"komi": self._komi}
        if setup.score is not None:
            table["final_score"] = self._final_score
        if setup.komi is not None:
            table["final_status_list"] = self._final_status_list
        if setup.handicap:
            table["fixed_handicap"] = self._fixed_handicap
            table["place_free_handicap"] = self._fixed_handicap
            table["set_free_handicap"] = self._set_free_handicap
        return table

    # -- komi -------------------------------------------------------------------------
    def _komi(self, args: list[str]) -> str:
        if len(args) != 1:
            raise GtpSyntaxError("komi takes a number")
        komi = float(parse_number(args[0], float, -MAX_KOMI, MAX_KOMI, "komi"))
        engine = self.engine
        if self.setup.komi is None or komi == engine.komi:
            return ""
        engine.set_komi(komi)
        if komi != self.setup.komi and not self.said_komi:
            self.said_komi = True
            print(f"boardq gtp: {self.setup.komi_note(engine.game.title, komi)}", file=engine.log)
        return ""

    # -- the count --------------------------------------------------------------------
    def _final_score(self, args: list[str]) -> str:
        engine = self.engine
        if not engine.match.over and self.setup.komi is None:
            raise engine.Error("cannot score: the game is not over")
        return score_text(self.setup.score(engine.match.env))

    def _final_status_list(self, args: list[str]) -> str:
        if len(args) != 1 or args[0].lower() not in ("dead", "alive", "seki"):
            raise GtpSyntaxError("final_status_list takes dead, alive or seki")
        if args[0].lower() != "alive":
            return ""  # Tromp-Taylor: every stone on the board is alive
        board = np.asarray(self.engine.match.board())
        dialect = self.engine.dialect
        return " ".join(dialect.point(r, c) for r, c in zip(*np.nonzero(board), strict=True))

    # -- handicap ---------------------------------------------------------------------
    def _fixed_handicap(self, args: list[str]) -> str:
        """`fixed_handicap N` (and `place_free_handicap N`, placed the same way)."""
        if len(args) != 1:
            raise GtpSyntaxError("fixed_handicap takes one number")
        stones = int(parse_number(args[0], int, -1000, 1000, "fixed_handicap"))
        if stones not in self.setup.handicap:
            raise self.engine.Error("invalid number of stones")
        points = self.setup.handicap_points(stones)
        self._place(list(points))
        return " ".join(self.engine.dialect.vertex(a) for a in points)

    def _set_free_handicap(self, args: list[str]) -> str:
        """`set_free_handicap V1 V2 ...`: the controller's points."""
        dialect = self.engine.dialect
        actions = [dialect.action(v) for v in args]
        if len(actions) < 2 or len(set(actions)) != len(actions):
            raise self.engine.Error("bad vertex list")
        if dialect.pass_action in actions:
            raise self.engine.Error("bad vertex list")
        self._place(actions)
        return ""

    def _place(self, actions: list[int]) -> None:
        """Black's stones on an empty board, white passing between them; white to move.

        The game's rules have no setup, so the stones are black's first moves (as in
        `boardq evaluate --handicap`, and as the Go agent's ladder trains it to see them),
        and the record states them as SGF's HA and AB.
        """
        engine = self.engine
        if engine.moves:
            raise engine.Error("board not empty")
        opening = Handicap(tuple(actions), int(self.setup.pass_action)).opening
        engine.start_log(handicap=opening)
        for k, action in enumerate(opening):
            engine.record_move(action, implied=bool(k % 2))
        engine.setup_plies = len(opening)
