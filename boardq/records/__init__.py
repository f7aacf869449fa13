"""Game records: every game boardq plays can be kept, opened and replayed.

The interface, small on purpose:

- `GameRecord` (with `Move` and `PlayerInfo`): one game, as JSON (`to_json`,
  `from_json`) and as SGF (`to_sgf`, `from_sgf`) for Go, Othello, Gomoku and Hex;
- `Recorder`: a `MoveObserver` of `play_game` that records every game it follows
  (`Recorder.seat` wraps the players so it knows who moved, how long it took and an
  agent's value of its move); `GameLog` builds one record move by move;
- `RecordFolder` (where `evaluate`, `league` and the ladder keep games) and
  `save_record` (one game to a file) write; `read_records` reads any record file
  (`parse_records` its bytes);
- `replay_record` replays a record in the game's environment: the check of its moves
  and result, and the positions `boardq replay` steps through.

No TensorFlow here (docs/records.md).
"""

from boardq.records.dialects import SGF_GAMES, sgf_game
from boardq.records.files import (
    LINES_FILE,
    ReadResult,
    RecordFolder,
    default_file_name,
    json_line,
    parse_records,
    read_records,
    save_record,
)
from boardq.records.gamelog import GameLog
from boardq.records.record import GameRecord, Move, PlayerInfo, RecordError
from boardq.records.recorder import (
    Recorder,
    SeatedPlayer,
    agent_info,
    chosen_value,
    spec_info,
)
from boardq.records.replay import Replayed, playable_game, replay_named, replay_record
from boardq.records.sgf_read import from_sgf
from boardq.records.sgf_write import to_sgf

__all__ = [
    "LINES_FILE",
    "SGF_GAMES",
    "GameLog",
    "GameRecord",
    "Move",
    "PlayerInfo",
    "ReadResult",
    "RecordError",
    "RecordFolder",
    "Recorder",
    "Replayed",
    "SeatedPlayer",
    "agent_info",
    "chosen_value",
    "default_file_name",
    "from_sgf",
    "json_line",
    "parse_records",
    "read_records",
    "playable_game",
    "replay_named",
    "replay_record",
    "save_record",
    "sgf_game",
    "spec_info",
    "to_sgf",
]
