"""Players of specs, for one game: what each needs checked, and building it.

`check_spec` checks what can be checked without TensorFlow (the game, the agent
files), so a player that cannot play is refused in one line before anything starts;
`PlayerFactory` builds the players. The rules-based players (winblock, line, greedy)
play the games that list them in `Game.players` and have rules.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from boardq.errors import AgentFileError, BoardqError
from boardq.players.opponents import (
    GreedyPlayer,
    LinePlayer,
    PerfectPlayer,
    RandomPlayer,
    WinBlockPlayer,
)
from boardq.players.specs import Kind, PlayerSpec, parse_ladder

__all__ = ["SOLVABLE_GAMES", "PlayerFactory", "check_spec", "check_symmetric", "ladder_specs"]

SOLVABLE_GAMES = frozenset({"tictactoe"})
"""Games small enough for `perfect` (tic-tac-toe has 5,478 positions)."""


def _check_perfect(spec: PlayerSpec, game, need_path: bool) -> None:
    if game.name not in SOLVABLE_GAMES:
        raise BoardqError(
            f"the perfect player is for {', '.join(sorted(SOLVABLE_GAMES))} only: "
            f"solving {game.title} exactly is impractical"
        )


def _check_rules_player(spec: PlayerSpec, game, need_path: bool) -> None:
    if spec.kind.value in game.players and game.rules is not None:
        return
    from boardq.catalog import game_names, get_game

    named = [get_game(name) for name in game_names()]
    fits = [g.name for g in named if spec.kind.value in g.players and g.rules]
    mine = [p for p in game.players if game.rules is not None]
    own = ", ".join(["random", *mine, *(["mcts:N"] if game.openspiel else [])])
    raise BoardqError(
        f"the {spec.kind.value} player plays {', '.join(fits)}, not {game.title} "
        f"(players for {game.title}: {own})"
    )


def _check_mcts(spec: PlayerSpec, game, need_path: bool) -> None:
    from boardq.players.openspiel_bot import OpenSpielMirror

    OpenSpielMirror(game)  # raises OpenSpielMissingError (one line) if it cannot


def _check_gtp(spec: PlayerSpec, game, need_path: bool) -> None:
    from boardq.gtp.player import check_engine

    check_engine(spec.command, game)


def _check_search(spec: PlayerSpec, game, need_path: bool) -> None:
    if game.rules is None and spec.search.searches:
        raise BoardqError(
            f"{spec.name}: lookahead needs rules, and boardq has none for {game.title}"
        )
    if spec.path is None and need_path:
        raise BoardqError(f"{spec.name}: name the agent to search with, as search:D:PATH")


def _check_tree(spec: PlayerSpec, game, need_path: bool) -> None:
    if game.rules is None:
        raise BoardqError(
            f"{spec.name}: a search needs rules, and boardq has none for {game.title}"
        )
    if spec.path is None and need_path:
        raise BoardqError(f"{spec.name}: name the agent to search with, as tree:N:PATH")


_CHECKS: dict[Kind, Callable[[PlayerSpec, Any, bool], None]] = {
    Kind.WINBLOCK: _check_rules_player,
    Kind.LINE: _check_rules_player,
    Kind.GREEDY: _check_rules_player,
    Kind.PERFECT: _check_perfect,
    Kind.MCTS: _check_mcts,
    Kind.SEARCH: _check_search,
    Kind.TREE: _check_tree,
    Kind.GTP: _check_gtp,
}
"""What each kind needs of the game beyond an agent file (random needs nothing)."""


def check_symmetric(game, setting: str = "--symmetric") -> None:
    """Refuses symmetric values for a game without board symmetries, without TensorFlow.

    Args:
        game: the game (`games.Game`).
        setting: how the asker names the option, for the message.

    Raises:
        BoardqError: the game has no board symmetries.
    """
    if len(game.symmetries) < 2:
        raise BoardqError(f"{setting} needs board symmetries, and {game.title} has none")


def check_spec(spec: PlayerSpec, game, need_path: bool = False) -> None:
    """Checks a spec against a game without TensorFlow: one clear error if it cannot play.

    Args:
        spec: the player.
        game: the game (`games.Game`).
        need_path: `search:D` must name its agent (the league has no evaluated agent).

    Raises:
        BoardqError: the player cannot play this game (AgentFileError for agent files).
    """
    check = _CHECKS.get(spec.kind)
    if check is not None:
        check(spec, game, need_path)
    if spec.path is not None:
        from boardq.players.agentfile import read_header

        header = read_header(spec.path)
        if header.get("game") != game.name:
            raise AgentFileError(
                f"{spec.path} is an agent for {header.get('game')!r}, not for {game.name!r}"
            )


def ladder_specs(text: str, game, check: bool = True) -> tuple[list[PlayerSpec], list[str]]:
    """An evaluation ladder's players that can play here, and a line per engine left out.

    A rung whose engine (`gtp:COMMAND`) is not installed is left out, not an error:
    the presets name GNU Go and GRhino, which not every machine has. With `check`,
    every other rung is checked as `check_spec` checks it.

    Raises:
        ConfigError: the ladder's text is not a list of players.
        BoardqError: a player that cannot play this game.
    """
    from boardq.gtp.client import find_program, split_command

    specs, notes = [], []
    for spec in parse_ladder(text):
        if spec.kind is Kind.GTP and game.gtp is not None:
            program = split_command(spec.command)[0]
            if find_program(program) is None:
                notes.append(
                    f"evaluation ladder: {spec.name} left out: {program!r} is not installed "
                    "(Debian: apt-get install gnugo grhino)"
                )
                continue
        if check:
            check_spec(spec, game)
        specs.append(spec)
    return specs, notes


class PlayerFactory:
    """Builds players of specs for one game; agents are loaded once per path.

    Engines (`gtp:COMMAND`) run as child processes until `close` (or the end of a
    `with` block) ends them.

    Attributes:
        game: the game.
        evaluated: the agent that a bare `search:D` searches with (evaluate's --agent).
        symmetric: whether agents named by path (`agent:PATH`, `search:D:PATH`) average
            their values over the board's symmetries (`league --symmetric`); None: each
            as its run chose (`Agent.load`; evaluate's opponents).
        engine_timeout_sec: how long an engine may take over one answer (`--engine-timeout`);
            None: `gtp_client.DEFAULT_TIMEOUT_SEC`.
    """

    def __init__(
        self,
        game,
        evaluated=None,
        symmetric: bool | None = False,
        engine_timeout_sec: float | None = None,
    ) -> None:
        self.game = game
        self.evaluated = evaluated
        self.symmetric = symmetric
        self.engine_timeout_sec = engine_timeout_sec
        self._agents: dict[tuple[str, bool | None], Any] = {}
        self._engines: list[Any] = []
        self._makers: dict[Kind, Callable[[PlayerSpec, int], Any]] = {
            Kind.RANDOM: lambda spec, seed: RandomPlayer(seed=seed),
            Kind.WINBLOCK: lambda spec, seed: WinBlockPlayer(game.rules, seed=seed),
            Kind.LINE: lambda spec, seed: LinePlayer(game.rules, seed=seed),
            Kind.GREEDY: lambda spec, seed: GreedyPlayer(game.rules, seed=seed),
            Kind.PERFECT: lambda spec, seed: PerfectPlayer(game.rules, seed=seed),
            Kind.MCTS: self._mcts,
            Kind.AGENT: lambda spec, seed: self.agent(spec.path, self.symmetric),
            Kind.SEARCH: self._searching,
            Kind.TREE: self._searching,
            Kind.GTP: self._gtp,
        }

    def make(self, spec: PlayerSpec, seed: int):
        """A fresh player of `spec` (agents are shared: they keep no game state)."""
        check_spec(spec, self.game, need_path=self.evaluated is None)
        return self._makers[spec.kind](spec, seed)

    def agent(self, path: str | Path, symmetric: bool | None = False):
        """The agent at `path`, loaded on first use (imports TensorFlow).

        `symmetric` averages its values over the board's symmetries; None: as its run
        chose (`Agent.load`).
        """
        key = (str(path), symmetric)
        if key not in self._agents:
            from boardq._quiet import quiet_native_logs

            with quiet_native_logs(expected=(BoardqError,)):
                from boardq.players.agent import Agent

                self._agents[key] = Agent.load(path, game=self.game.name, symmetric=symmetric)
        return self._agents[key]

    def _mcts(self, spec: PlayerSpec, seed: int):
        from boardq.players.openspiel_bot import MCTSPlayer

        return MCTSPlayer(self.game, spec.simulations, seed=seed)

    def _gtp(self, spec: PlayerSpec, seed: int):
        from boardq.gtp.player import DEFAULT_TIMEOUT_SEC, GtpPlayer

        timeout = self.engine_timeout_sec or DEFAULT_TIMEOUT_SEC
        player = GtpPlayer(self.game, spec.command, seed=seed, timeout_sec=timeout)
        self._engines.append(player)
        return player

    def close(self) -> None:
        """Ends every engine it started."""
        while self._engines:
            self._engines.pop().close()

    def __enter__(self) -> PlayerFactory:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _searching(self, spec: PlayerSpec, seed: int):
        """`search:D` and `tree:...`: the agent (evaluated, or at the path) with its search."""
        agent = self.evaluated if spec.path is None else self.agent(spec.path, self.symmetric)
        return agent.player(spec.search)
