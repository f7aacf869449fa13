"""Players named on the command line: `random`, `mcts:200`, `agent:PATH`, `search:2`...

The grammar, one table (`SYNTAX`) for `evaluate --opponent` and `league`:

    random          uniformly random legal moves
    winblock        wins at once if it can, else blocks, else random
    line            wins, else blocks, else lengthens its longest line (Gomoku)
    greedy          the move after which it holds the most pieces (Othello)
    perfect         exact play (games small enough to solve: tic-tac-toe)
    mcts:N          OpenSpiel's C++ MCTS bot, N simulations per move (N >= 1)
    agent:PATH      a trained agent file or run directory, greedy
    search:D        the evaluated agent with a depth-D lookahead (D >= 0; 0: greedy)
    search:D:PATH   the agent at PATH with a depth-D lookahead
    tree:N          the evaluated agent with a tree search of N visits a move
    tree:SECs       ... or of SEC seconds a move (tree:0.5s)
    tree:N:PATH     the agent at PATH with that tree search (tree:0.5s:PATH too)
    tree:1s,OPT     ... grown as the options say, comma-separated: prior=q (softmax(Q/T)
                    priors even where the agent has a policy head), prior=policy (its
                    policy, refused without one), plain (the Python tree, not compiled)
    gtp:COMMAND     a GTP engine run by COMMAND, e.g. "gtp:gnugo --mode gtp --level 1"
                    (games whose moves have GTP names: Go, Othello)

`parse_spec` checks the syntax only (argparse calls it); `boardq.players.factory` checks
a spec against a game and builds its player.
"""

from __future__ import annotations

import argparse
import csv
import enum
import math
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from boardq.search.spec import NETWORK, SearchSpec
from boardq.search.tree_node import TreeConfig
from boardq.settings import ConfigError

__all__ = [
    "SYNTAX",
    "Kind",
    "PlayerSpec",
    "parse_ladder",
    "parse_league_player",
    "parse_spec",
]


class Kind(enum.Enum):
    """The kinds of player."""

    RANDOM = "random"
    WINBLOCK = "winblock"
    LINE = "line"
    GREEDY = "greedy"
    PERFECT = "perfect"
    MCTS = "mcts"
    AGENT = "agent"
    SEARCH = "search"
    TREE = "tree"
    GTP = "gtp"


@dataclass(frozen=True)
class PlayerSpec:
    """A player as named on the command line.

    Attributes:
        kind: the kind of player.
        name: its canonical text (how tables and JSON name it).
        simulations: MCTS simulations per move.
        search: how an agent of `search:D` or `tree:...` searches (`SearchSpec`;
            `search:0` is the network alone).
        path: the agent file or run directory (`agent`; `search`, `tree` with a path).
        command: the engine's command line (`gtp`).
    """

    kind: Kind
    name: str
    simulations: int = 0
    search: SearchSpec = NETWORK
    path: str | None = None
    command: str | None = None


def _whole(text: str, what: str, minimum: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise ValueError(f"expected a whole number of {what}, got {text!r}") from None
    if value < minimum:
        raise ValueError(f"{what} must be >= {minimum}, got {value}")
    return value


def _no_argument(arg: str | None) -> dict[str, Any]:
    if arg is not None:
        raise ValueError("takes no ':' argument")
    return {}


def _simulations(arg: str | None) -> dict[str, Any]:
    return {"simulations": _whole(arg or "", "simulations", 1)}


def _path(arg: str | None) -> dict[str, Any]:
    if not arg:
        raise ValueError("needs a path: agent:PATH")
    return {"path": arg}


def _command(arg: str | None) -> dict[str, Any]:
    command = " ".join((arg or "").split())
    if not command:
        raise ValueError('needs a command: gtp:COMMAND, e.g. "gtp:gnugo --mode gtp"')
    try:
        shlex.split(command)
    except ValueError as e:
        raise ValueError(f"command: {e}") from None
    return {"command": command}


def _search(arg: str | None) -> dict[str, Any]:
    depth, _, path = (arg or "").partition(":")
    search = SearchSpec.of(depth=_whole(depth, "search plies", 0))
    return {"search": search, "path": path or None}


TREE_OPTIONS = {
    "prior=q": {"prior": "q"},
    "prior=policy": {"prior": "policy"},
    "plain": {"compiled": False},
}
"""The options of `tree:BUDGET,OPTION...` and the `TreeConfig` fields each sets."""


def _tree(arg: str | None) -> dict[str, Any]:
    head, _, path = (arg or "").partition(":")
    budget, *options = head.split(",")
    fields: dict[str, Any] = {}
    for option in options:
        if option not in TREE_OPTIONS:
            raise ValueError(f"unknown tree option {option!r}: expected {', '.join(TREE_OPTIONS)}")
        fields |= TREE_OPTIONS[option]
    config = TreeConfig(**fields)
    if budget.endswith("s"):
        try:
            seconds = float(budget[:-1])
        except ValueError:
            seconds = float("nan")
        if not (math.isfinite(seconds) and seconds > 0):
            raise ValueError(f"expected seconds > 0 as in tree:0.5s, got {budget!r}")
        search = SearchSpec.tree_search(move_time=seconds, config=config)
        return {"search": search, "path": path or None}
    visits = _whole(budget, "visits", 1)
    return {"search": SearchSpec.tree_search(visits=visits, config=config), "path": path or None}


SYNTAX: dict[Kind, tuple[str, Callable[[str | None], dict[str, Any]]]] = {
    Kind.RANDOM: ("random", _no_argument),
    Kind.WINBLOCK: ("winblock", _no_argument),
    Kind.LINE: ("line", _no_argument),
    Kind.GREEDY: ("greedy", _no_argument),
    Kind.PERFECT: ("perfect", _no_argument),
    Kind.MCTS: ("mcts:N", _simulations),
    Kind.AGENT: ("agent:PATH", _path),
    Kind.SEARCH: ("search:D[:PATH]", _search),
    Kind.TREE: ("tree:N|SECs[,OPTION...][:PATH]", _tree),
    Kind.GTP: ("gtp:COMMAND", _command),
}
"""Each kind's form and the parser of the text after `kind:` (None: no colon)."""

FORMS = ", ".join(form for form, _ in SYNTAX.values())


def parse_spec(text: str) -> PlayerSpec:
    """Parses one player spec (an argparse `type`).

    Raises:
        argparse.ArgumentTypeError: the text is not a spec; the message says why.
    """
    head, colon, arg = text.strip().partition(":")
    try:
        kind = Kind(head.lower())
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"unknown player {text!r}; expected one of {FORMS}"
        ) from None
    try:
        fields = SYNTAX[kind][1](arg if colon else None)
    except ValueError as e:
        raise argparse.ArgumentTypeError(f"bad player {text!r}: {kind.value} {e}") from None
    name = kind.value + (
        f":{fields['command']}" if kind is Kind.GTP else f":{arg}" if colon else ""
    )
    return PlayerSpec(kind=kind, name=name, **fields)


def parse_ladder(text: str) -> list[PlayerSpec]:
    """The players of an evaluation ladder, "random,mcts:50" (`TrainConfig.eval_ladder`).

    Players are separated by commas; a player whose text holds a comma (an engine's
    command line) is written in double quotes: `random,"gtp:engine --opts a,b"`.

    Raises:
      ConfigError: a player is not one `boardq evaluate` knows, or a quote is open.
    """
    try:
        fields = next(csv.reader([text], skipinitialspace=True, strict=True), [])
    except csv.Error as e:
        raise ConfigError(f"eval_ladder: cannot read {text!r}: {e}") from None
    try:
        return [parse_spec(s) for s in fields if s.strip()]
    except argparse.ArgumentTypeError as e:
        raise ConfigError(f"eval_ladder: {e}") from None


def parse_league_player(text: str) -> PlayerSpec:
    """A spec, or a bare path meaning `agent:PATH` (an argparse `type`).

    Raises:
        argparse.ArgumentTypeError: neither a spec nor an existing file or directory.
    """
    if text.strip().partition(":")[0].lower() in {k.value for k in Kind}:
        return parse_spec(text)
    if Path(text).exists():
        return PlayerSpec(kind=Kind.AGENT, name=f"agent:{text}", path=text)
    raise argparse.ArgumentTypeError(
        f"{text!r} is neither a player ({FORMS}) nor an agent file or run directory"
    )
