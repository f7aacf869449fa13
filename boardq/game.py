"""What boardq needs to know about a game: the `Game` record and the rules protocol."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from boardq.boardtext import BoardText
from boardq.config import TrainConfig
from boardq.errors import BoardqError
from boardq.gtp.protocol import GtpDialect
from boardq.setup import Setup
from boardq.symmetry import Symmetry

__all__ = [
    "BUNDLED_AGENT_FILE",
    "Game",
    "GameFitError",
    "OpenSpielGame",
    "OpenSpielMissingError",
    "Rules",
    "bundled_agent_file",
    "load_pyspiel",
]


class GameFitError(BoardqError):
    """An environment boardq cannot train: not two players taking turns, no mask..."""


@runtime_checkable
class Rules(Protocol):
    """A game's pure rules on numpy positions seen by the player to move.

    A position is a numpy array whose layout the rules define, always seen by the
    player to move. For tic-tac-toe, Connect Four, Othello and Gomoku it is the board
    (+1 the mover's pieces, -1 the opponent's, 0 empty; negating it swaps the players).
    Go and Hex keep a little more in it, the state a board does not show: Go the
    mover's colour (komi is white's), the passes in a row and the ko point; Hex which
    pair of edges the mover joins. Callers other than the rules treat a position as
    opaque: they make one from an observation, ask for its legal moves, apply moves,
    ask who won, make planes of it and key it. The lookahead search, the rules-based
    players and the checks against the environments use these. Rules may also say
    whether a position is settled (`settled(board) -> bool`, Go's): the tree search
    at play then searches the pass there (`boardq.search.passing`).
    """

    num_actions: int

    def board_from_planes(self, planes: np.ndarray, legal: np.ndarray | None = None) -> np.ndarray:
        """The position of the mover's observation planes.

        Args:
            planes: the mover's observation planes.
            legal: the mover's legal moves (bool [num_actions]), for games whose planes
                do not show the whole position (Go's ko point is seen only there);
                rules whose planes show it all ignore them. None: not known (Go: no ko).
        """
        ...

    def planes_from_board(self, board: np.ndarray) -> np.ndarray:
        """The mover's observation planes of a position (the environment's layout)."""
        ...

    def legal_mask(self, board: np.ndarray) -> np.ndarray:
        """Bool [num_actions]: the legal moves."""
        ...

    def apply(self, board: np.ndarray, action: int) -> np.ndarray:
        """The position after the mover plays `action`, seen by the next mover."""
        ...

    def winner(self, board: np.ndarray) -> int:
        """+1 or -1 for the side that has won (the mover +1), else 0 (also while playing)."""
        ...

    def is_full(self, board: np.ndarray) -> bool:
        """Whether the game ended without a winner."""
        ...

    def key(self, board: np.ndarray) -> bytes:
        """A hashable key of the position (memo tables)."""
        ...


class OpenSpielMissingError(BoardqError):
    """OpenSpiel is not installed, or has no counterpart of the game."""


def load_pyspiel() -> Any:
    """The `pyspiel` module; OpenSpielMissingError if it is not installed."""
    try:
        import pyspiel
    except ImportError:
        raise OpenSpielMissingError(
            "OpenSpiel is not installed (pip install open_spiel); mcts opponents need it"
        ) from None
    return pyspiel


@dataclass(frozen=True)
class OpenSpielGame:
    """The same game in OpenSpiel, for its bots and as a second referee.

    Attributes:
      name: the OpenSpiel game name (`pyspiel.load_game(name)`).
      actions: `actions[a]` is the OpenSpiel action of PettingZoo action `a`.
      repetition_draw: OpenSpiel ends a game that repeats an earlier whole-board
        position (positional superko) as a draw, where the PettingZoo game, with simple
        ko only, plays on (Go). The mirror then stops following that game.
    """

    name: str
    actions: tuple[int, ...]
    repetition_draw: bool = False


@dataclass(frozen=True)
class Game:
    """A two-player game reached through PettingZoo's AEC API.

    Attributes:
      name: the name on the command line (for games built on the fly, the whole
        spec, e.g. `openspiel:breakthrough(columns=6,rows=6)`: agent files and run
        directories store it, and `boardq_games.get_game` rebuilds the game from it).
      title: a human name.
      env_id: the PettingZoo registry id, or `openspiel:SPEC` for an OpenSpiel game
        reached through Shimmy.
      obs_shape: shape of the observation planes [H, W, C].
      num_actions: size of the action space.
      preset: default training settings.
      rules: pure rules on numpy boards; None where boardq has none (the players and
        the search that need them refuse such a game).
      text: the board and move labels for people.
      symmetries: board symmetries (identity first) for augmentation.
      vector: `vector(num_games)` makes a batch of games stepped together in numpy
        (the actors' fast path, see `boardq.gamebatch.GameBatch`); None: the actors step
        PettingZoo environments.
      openspiel: the same game in OpenSpiel, for MCTS and as a second referee.
      env_maker: makes the game's environment (an adapter that gives boardq's planes
        and mask, `boardq_games.adapter.BoardEnv`); None: `pettingzoo.make("aec", env_id)`.
      board_of: the position of an environment as `text.draw` takes it; None: the
        board `rules.board_from_planes` gives from the first player's observation.
      players: the rules-based reference players of `boardq.players.specs` that fit the game
        (`winblock`, `greedy`, `line`); they need `rules` too.
      bundled_agent: the trained agent that comes with the install (package data, see
        `bundled_agent_file`), or None.
      gtp: how its moves are named over GTP (`boardq.gtp.protocol`), for engines as opponents
        (`gtp:COMMAND`) and `boardq gtp`; None where they have no GTP names.
      setup: how it is counted and set up (`boardq.setup`: komi, the count, the pass,
        handicap stones); the default: no komi, no count, no pass, no handicap.
      pruned_moves: the legal moves never worth playing, bool [B, A] of planes
        [B, ...], that the `prune_moves` setting leaves out (`boardq.pruning`); None
        where the game has none.
    """

    name: str
    title: str
    env_id: str
    obs_shape: tuple[int, ...]
    num_actions: int
    preset: TrainConfig
    rules: Rules | None
    text: BoardText
    symmetries: Sequence[Symmetry]
    vector: Callable[[int], Any] | None = None
    openspiel: OpenSpielGame | None = None
    env_maker: Callable[..., Any] | None = None
    board_of: Callable[[Any], Any] | None = None
    players: tuple[str, ...] = ("winblock",)
    bundled_agent: Path | None = None
    gtp: GtpDialect | None = None
    pruned_moves: Callable[[Any], Any] | None = None
    setup: Setup = Setup()

    @property
    def dir_name(self) -> str:
        """The game's folder under a runs directory.

        Its name with every character a path cannot hold plainly (`:`, `/`, brackets,
        commas) turned into `_`.
        """
        return re.sub(r"[^A-Za-z0-9_.=-]+", "_", self.name).strip("_")

    def with_komi(self, komi: float | None) -> Game:
        """This game set up with `komi` (itself for None or its own komi).

        Raises:
            ValueError: a game without komi, or a komi out of bounds (`Setup.check`).
        """
        if komi is None or komi == self.setup.komi:
            return self
        self.setup.check(self.title, komi=komi)
        if self.setup.variant is None:
            raise ValueError(f"{self.title} cannot be set up with another komi")
        return self.setup.variant(komi)

    def plies_left(self, planes: np.ndarray) -> int:
        """About how many moves (of both sides) the game has left: its empty points.

        The first two planes hold the two sides' pieces, as in every game boardq ships.
        Where pieces stay put (Othello, Connect Four, Hex, Gomoku) it is the most the
        game can last; Go can last longer (captures empty points again).
        """
        planes = np.asarray(planes)
        if planes.ndim != 3 or planes.shape[-1] < 2:
            return int(self.num_actions)
        taken = np.count_nonzero(planes[..., 0]) + np.count_nonzero(planes[..., 1])
        return max(0, int(planes.shape[0] * planes.shape[1]) - int(taken))

    def make_env(self, **kwargs):
        """A new AEC environment of this game."""
        if self.env_maker is not None:
            return self.env_maker(**kwargs)
        import pettingzoo  # here: `boardq --help` need not import it

        return pettingzoo.make("aec", self.env_id, **kwargs)

    def board(self, env) -> Any:
        """The position of `env` (reset, any seat to move) as `text.draw` takes it."""
        if self.board_of is not None:
            return self.board_of(env)
        if self.rules is None:
            raise ValueError(f"{self.title} has neither rules nor a board_of")
        first = env.possible_agents[0]
        return self.rules.board_from_planes(env.observe(first)["observation"])


BUNDLED_AGENT_FILE = "bundled-agent.npz"
"""The name of the agent file a game's package may ship (`Game.bundled_agent`)."""


def bundled_agent_file(package: str) -> Path | None:
    """The agent file shipped in `package` (a game's folder), or None if it has none."""
    from importlib.resources import files

    path = Path(str(files(package) / BUNDLED_AGENT_FILE))
    return path if path.is_file() else None
