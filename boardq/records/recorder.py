"""Keeping a record of every game played: the recorder, a `MoveObserver` of `play_game`.

It also follows games that end by resignation (`ResignationObserver`: "W+R"), and
keeps an engine's own count of each game (a GTP engine's `final_score`) where a seated
engine gives one.

`Recorder` follows games as `play_game` tells them (start, each move, the result) and
hands each finished record to a sink (say `RecordFolder.add`). What an observer is not
told, who sits in each seat, how long each move took and an agent's value of its
move, comes from the players themselves: `Recorder.seat(player, info)` wraps a player
so that each of its moves reports that much before it is played. Wrap every player
of a match and the records name both seats; unwrapped players are "unknown".

`GameLog` (`boardq.records.gamelog`) builds one record move by move.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from boardq.records.gamelog import GameLog
from boardq.records.record import UNKNOWN_PLAYER, GameRecord, PlayerInfo, RecordError

__all__ = [
    "GameLog",
    "Recorder",
    "SeatedPlayer",
    "agent_info",
    "chosen_value",
    "spec_info",
]


def agent_info(agent, search=None) -> PlayerInfo:
    """How a record names an agent (`boardq.players.agent.Agent`): its file and its search.

    `search`: how it searched (`boardq.search.spec.SearchSpec`; None: the network
    alone).
    """
    details: dict[str, Any] = {"kind": "agent", "path": str(agent.path)}
    name = f"boardq agent {agent.path}"
    if search is not None and search.searches:
        details.update(search.settings())
        name += f", {search.words()}"
    symmetries = int(getattr(agent, "symmetries", 1))
    if symmetries > 1:
        details["symmetries"] = symmetries
        name += f", averaged over {symmetries} symmetries"
    return PlayerInfo(name, details)


def spec_info(spec) -> PlayerInfo:
    """How a record names a player of a spec (`boardq.players.specs.PlayerSpec`)."""
    details: dict[str, Any] = {"kind": spec.kind.value, "spec": spec.name}
    search = spec.search
    fields = {"depth": search.depth, "visits": search.visits, "move_time": search.move_time}
    for key, value in {"simulations": spec.simulations, **fields}.items():
        if value:
            details[key] = value
    for key in ("path", "command"):
        value = getattr(spec, key, None)
        if value:
            details[key] = value
    return PlayerInfo(spec.name, details)


def chosen_value(player, observation: Mapping[str, np.ndarray], action: int) -> float:
    """The player's value of the move it just chose.

    A searching player answers from the search it moved by (`value_of`), not a second
    one; others from their `q_values`.
    """
    value_of = getattr(player, "value_of", None)
    if callable(value_of):
        return float(value_of(observation, action))
    return float(np.asarray(player.q_values(observation))[action])


class SeatedPlayer:
    """A player that tells its recorder who moved, how long it took and its value.

    Fits `boardq.players.evaluation.Player`; it passes `new_game` and `moved` on to a
    player that follows games itself (the MCTS bot), so it stands in for any player.
    """

    def __init__(self, player, info: PlayerInfo, recorder: Recorder) -> None:
        self.player = player
        self.info = info
        self._recorder = recorder
        self._valued = recorder.values and callable(getattr(player, "q_values", None))

    def act(self, observation: Mapping[str, np.ndarray]) -> int:
        t0 = time.perf_counter()
        action = int(self.player.act(observation))
        seconds = time.perf_counter() - t0
        value = None
        if self._valued:
            value = chosen_value(self.player, observation, action)
        self._recorder.note(self.info, seconds, value)
        return action

    def new_game(self) -> None:
        if hasattr(self.player, "new_game"):
            self.player.new_game()
        self._recorder.joined(self)

    def moved(self, action: int, result: int | None) -> None:
        if hasattr(self.player, "moved"):
            self.player.moved(action, result)

    def __getattr__(self, name: str) -> Any:  # q_values, searcher... of the player
        return getattr(self.player, name)


class Recorder:
    """Records every game `play_game` plays while it is among the observers.

    Args:
        game: the game.
        sink: takes each finished record (say `RecordFolder.add`); None keeps them in
            `records`.
        event: what plays the games ("boardq evaluate"), written in each record.
        values: ask seated players that have `q_values` for their value of each move
            (one more forward pass of the network per move).
        handicap: the opening of handicap games, as `GameLog` takes it.

    Attributes:
        error: why the sink stopped taking records (a full disk...), or None: the
            games go on unrecorded after a failure, and the caller tells the person.
    """

    def __init__(
        self,
        game,
        sink: Callable[[GameRecord], Any] | None = None,
        event: str = "",
        values: bool = True,
        handicap: Sequence[int] = (),
    ) -> None:
        self.game = game
        self.handicap = tuple(int(a) for a in handicap)
        self.sink = sink
        self.event = event
        self.values = values
        self.records: list[GameRecord] = []
        self.error: str | None = None
        self._log: GameLog | None = None
        self._pending: tuple[PlayerInfo, float, float | None] | None = None
        self._seated: list[SeatedPlayer] = []  # the seated players of the game being played

    def seat(self, player, info: PlayerInfo) -> SeatedPlayer:
        """`player`, wrapped to tell this recorder of its moves (`info` names it)."""
        return SeatedPlayer(player, info, self)

    def note(self, info: PlayerInfo, seconds: float, value: float | None) -> None:
        """A seated player chose its move (it is played next)."""
        self._pending = (info, seconds, value)

    def joined(self, player: SeatedPlayer) -> None:
        """A seated player starts a game (it asks the engine's count at the end)."""
        self._seated = [*self._seated[-1:], player]

    def new_game(self) -> None:
        self._log = GameLog(self.game, event=self.event, handicap=self.handicap)
        self._pending = None

    def moved(self, action: int, result: int | None) -> None:
        log = self._log
        if log is None:
            raise RuntimeError("a move before the game started (new_game was not called)")
        seconds = value = None
        if self._pending is not None:
            info, seconds, value = self._pending
            seat = len(log.moves) % 2  # the seats take turns (a pass is a move)
            if log.players[seat] is UNKNOWN_PLAYER:
                log.players[seat] = info
            self._pending = None
        log.add(action, seconds, value)
        if result is not None:
            self._finish(log.record(result, self._engine_count()))

    def resigned(self, result: int) -> None:
        """The player to move resigned (`ResignationObserver`); the game ends so."""
        if self._log is not None:
            self._finish(self._log.record(result, resigned=True))

    def _engine_count(self) -> str | None:
        """An engine's own count of the game just ended, where a seated engine gave one."""
        counts = [getattr(p.player, "last_count", None) for p in self._seated]
        return next((c for c in counts if isinstance(c, str) and c), None)

    def _finish(self, record: GameRecord) -> None:
        self._log = None
        self._seated = []
        if self.sink is None:
            self.records.append(record)
        elif self.error is None:
            try:
                self.sink(record)
            except (OSError, RecordError) as e:
                self.error = str(e)
