"""Game records kept while games play: the recorder, its folders, resignations,
handicaps and engines' own counts.

The games are played for real in each game's environment (`boardq.players.evaluation`);
GNU Go plays and reads them where it is installed.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from boardq.catalog import get_game
from boardq.players.evaluation import RandomPlayer, play_game
from boardq.records import (
    PlayerInfo,
    Recorder,
    RecordError,
    RecordFolder,
    from_sgf,
    read_records,
    replay_named,
    replay_record,
    to_sgf,
)
from boardq.records.dialects import SGF_GAMES

DATA = Path(__file__).parent / "data"
GNUGO = shutil.which("gnugo") or shutil.which("gnugo", path="/usr/games")
ALL_GAMES = ("tictactoe", "connect_four", "othello", "gomoku", "hex", "go")
SGF_NAMES = ("othello", "gomoku", "hex", "go")


class Valued(RandomPlayer):
    """A random player that states a value for every move (as an agent's q_values)."""

    def q_values(self, observation):
        return np.arange(len(observation["action_mask"]), dtype=np.float64) / 100


def test_the_recorder_names_the_seats_times_the_moves_and_keeps_an_agents_values(tmp_path):
    from boardq.players.openspiel_bot import MCTSPlayer

    game = get_game("tictactoe")
    folder = RecordFolder(tmp_path / "games")
    recorder = Recorder(game, folder.add, event="a test")
    agent = recorder.seat(Valued(seed=0), PlayerInfo("agent"))
    bot = recorder.seat(MCTSPlayer(game, 20, seed=1), PlayerInfo("mcts:20"))
    results = [play_game(game.make_env, pair, seed, [recorder])
               for seed, pair in enumerate([(agent, bot), (bot, agent)])]  # fmt: skip
    found = read_records(tmp_path / "games" / "games.jsonl").records
    assert [r.result for r in found] == results
    assert [r.players[0].name for r in found] == ["agent", "mcts:20"]
    assert [r.players[1].name for r in found] == ["mcts:20", "agent"]
    for record in found:
        assert record.event == "a test" and record.started
        agent_seat = [p.name for p in record.players].index("agent")
        for k, move in enumerate(record.moves):
            assert move.seconds is not None and move.seconds >= 0
            assert move.value == (move.action / 100 if k % 2 == agent_seat else None)
        replay_record(record, game)
    assert not list((tmp_path / "games").glob("*.sgf"))  # tic-tac-toe has no SGF


def test_a_folder_numbers_its_sgf_files_and_adds_to_earlier_games(tmp_path, random_game):
    first = RecordFolder(tmp_path)
    for seed in range(2):
        first.add(random_game("hex", seed)[0])
    again = RecordFolder(tmp_path)
    path = again.add(random_game("hex", 9)[0])
    assert path == tmp_path / "game-0003.sgf"
    lines = read_records(tmp_path / "games.jsonl").records
    for number, record in enumerate(lines, start=1):
        [sgf] = read_records(tmp_path / f"game-{number:04d}.sgf").records
        assert sgf.actions == record.actions


def test_a_folder_that_cannot_be_written_is_one_line(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(RecordError, match="cannot keep games in .*file/games"):
        RecordFolder(tmp_path / "file" / "games")


def test_every_sgf_game_is_a_game_of_that_size():
    for name, dialect in SGF_GAMES.items():
        game = get_game(name)
        assert game.obs_shape[:2] == (dialect.size, dialect.size)
        assert game.num_actions == dialect.size**2 + (dialect.pass_action is not None)
    from boardq_games.go import KOMI

    assert SGF_GAMES["go"].komi == KOMI


def test_a_files_own_komi_counts_its_game_and_its_own_result_is_kept():
    [record] = from_sgf(b"(;GM[1]FF[4]SZ[9]KM[5.5]RE[W+12.5]PB[GNU Go];B[ee];W[cc])", "x.sgf")
    assert record.settings == {"board_size": 9, "komi": 5.5}
    assert record.claimed_result == "W+12.5" and record.players[0].name == "GNU Go"
    assert record.result is None and record.result_text == ""  # no two passes: unfinished
    game, _ = replay_named(record)  # set up with the file's komi
    assert game.setup.komi == 5.5
    with pytest.raises(RecordError, match="komi 5.5; boardq's Go has komi 7.5"):
        replay_record(record, get_game("go"))
    # One black stone, then two passes: black's 81 points less the file's komi.
    for komi, result in ((b"0.5", "B+80.5"), (b"7.5", "B+73.5"), (b"-3", "B+84")):
        [ended] = from_sgf(b"(;GM[1]FF[4]SZ[9]KM[" + komi + b"];B[ee];W[];B[])", "x.sgf")
        assert ended.result_text == result and ended.settings["komi"] == float(komi)


def test_a_resignation_ends_the_moves_and_is_the_games_result():
    [record] = from_sgf(b"(;FF[4]GM[11]SZ[7];B[d4];W[resign])", "x.sgf")  # HexGui's way
    assert [m.label for m in record.moves] == ["d4"]
    assert (record.result, record.result_text, record.claimed_result) == (1, "B+R", None)
    [record] = from_sgf(b"(;GM[1]FF[4]SZ[9]RE[W+Resign];B[ee];W[cc])", "x.sgf")  # GNU Go's
    assert (record.result, record.result_text) == (-1, "W+Resign")
    assert replay_record(record, get_game("go")).result is None  # the moves end first
    [back] = from_sgf(to_sgf(record), "y.sgf")
    assert (back.result, back.result_text) == (-1, "W+Resign")


class Resigner(RandomPlayer):
    """Resigns at its third move."""

    def __init__(self, seed):
        super().__init__(seed=seed)
        self.moves = 0

    def act(self, observation):
        from boardq.players.evaluation import Resigned

        self.moves += 1
        if self.moves == 3:
            raise Resigned("it resigned")
        return super().act(observation)


class CountingEngine(RandomPlayer):
    """Stands for a GTP engine: its own count of each game is in `last_count`."""

    def new_game(self):
        self.last_count = None

    def moved(self, action, result):
        if result is not None:
            self.last_count = "W+88.5"


def test_the_recorder_keeps_a_resignation_and_an_engines_own_count(tmp_path):
    game = get_game("go")
    recorder = Recorder(game, RecordFolder(tmp_path).add)
    engine = recorder.seat(CountingEngine(seed=1), PlayerInfo("gtp:gnugo", {"kind": "gtp"}))
    quitter = recorder.seat(Resigner(seed=2), PlayerInfo("quitter"))
    assert play_game(game.make_env, (engine, quitter), 0, [recorder]) == 1
    assert play_game(game.make_env, (engine, RandomPlayer(seed=3)), 1, [recorder]) in (-1, 1)
    first, second = read_records(tmp_path / "games.jsonl").records
    assert (first.result, first.result_text, first.engine_count) == (1, "B+R", None)
    assert len(first.moves) == 5  # the engine's three moves, the quitter's two
    replay_record(first, game)
    [sgf] = read_records(tmp_path / "game-0001.sgf").records
    assert (sgf.result, sgf.result_text) == (1, "B+R")
    assert second.engine_count == "W+88.5" and second.players[0].name == "gtp:gnugo"
    [sgf] = read_records(tmp_path / "game-0002.sgf").records
    assert sgf.engine_count == "W+88.5"


def test_a_sink_that_fails_stops_the_recording_not_the_games(tmp_path):
    game = get_game("tictactoe")
    folder = RecordFolder(tmp_path / "kept")
    recorder = Recorder(game, folder.add)
    players = (RandomPlayer(seed=0), RandomPlayer(seed=1))
    play_game(game.make_env, players, 0, [recorder])
    (tmp_path / "kept" / "games.jsonl").unlink()
    (tmp_path / "kept" / "games.jsonl").mkdir()  # a line can no longer be added
    for seed in (1, 2):
        play_game(game.make_env, players, seed, [recorder])
    assert recorder.error is not None and "cannot keep game 2 in" in recorder.error
    assert folder.count == 2  # the third game was not offered


def _handicap_game(folder):
    """A Go game of black's 3 handicap stones, recorded in `folder`; the record kept."""
    from boardq.players.evaluation import Handicap, evaluate

    game = get_game("go")
    handicap = Handicap(game.setup.handicap_points(3), 81)
    recorder = Recorder(game, RecordFolder(folder).add, handicap=handicap.opening)
    agent = recorder.seat(RandomPlayer(seed=0), PlayerInfo("agent"))
    other = recorder.seat(RandomPlayer(seed=1), PlayerInfo("random"))
    evaluate(agent, other, game.make_env, 1, seed=4, observers=[recorder], openings=handicap)
    return handicap, read_records(folder / "games.jsonl").records


def test_a_handicap_game_is_kept_as_handicap_stones_and_read_back(tmp_path):
    from sgfmill import sgf

    handicap, (black, white) = _handicap_game(tmp_path)
    assert black.settings["handicap"] == 3 and "handicap" not in white.settings
    assert black.actions[:5] == [handicap.points[0], 81, handicap.points[1], 81, handicap.points[2]]
    # The SGF file states the stones as setup; white moves first after them.
    text = (tmp_path / "game-0001.sgf").read_text()
    stones = "".join(f"[{SGF_GAMES['go'].encode(p)}]" for p in handicap.points)
    assert "HA[3]" in text and f"AB{stones}" in text
    first = sgf.Sgf_game.from_string(text).get_main_sequence()[1]
    assert first.get_move()[0] == "w"
    assert "HA[" not in (tmp_path / "game-0002.sgf").read_text()
    [back] = read_records(tmp_path / "game-0001.sgf").records
    assert back.actions == black.actions and back.settings["handicap"] == 3
    assert back.result_text == black.result_text
    assert [(m.seconds, m.value) for m in back.moves[5:]] == [
        (m.seconds, m.value) for m in black.moves[5:]
    ]


@pytest.mark.skipif(GNUGO is None, reason="GNU Go is not installed (apt-get install gnugo)")
def test_gnugo_reads_a_handicap_game_to_the_same_final_position(tmp_path):
    _handicap_game(tmp_path)
    [back] = read_records(tmp_path / "game-0001.sgf").records
    script = f"loadsgf {tmp_path / 'game-0001.sgf'}\nlist_stones black\nlist_stones white\nquit\n"
    out = subprocess.run(
        [GNUGO, "--mode", "gtp"], input=script, capture_output=True, text=True, timeout=60
    ).stdout
    answers = [block[2:].split() for block in out.split("\n\n") if block.startswith("=")]
    board = np.asarray(replay_record(back, get_game("go")).boards[-1])
    letters = "ABCDEFGHJ"
    for colour, answer in ((1, answers[1]), (-1, answers[2])):
        ours = {f"{letters[c]}{9 - r}" for r, c in zip(*np.nonzero(board == colour), strict=True)}
        assert set(answer) == ours


@pytest.mark.skipif(GNUGO is None, reason="GNU Go is not installed (apt-get install gnugo)")
def test_a_game_against_gnugo_names_its_command_and_keeps_its_own_count(tmp_path):
    from boardq.players.factory import PlayerFactory
    from boardq.players.specs import parse_spec
    from boardq.records import spec_info

    game = get_game("go")
    spec = parse_spec("gtp:gnugo --mode gtp --level 1 --chinese-rules --capture-all-dead")
    recorder = Recorder(game, RecordFolder(tmp_path).add)
    with PlayerFactory(game) as factory:
        engine = recorder.seat(factory.make(spec, 0), spec_info(spec))
        random = recorder.seat(RandomPlayer(seed=1), PlayerInfo("random"))
        play_game(game.make_env, (random, engine), 0, [recorder])
    [record] = read_records(tmp_path / "game-0001.sgf").records
    assert record.players[1].name == spec.name
    assert record.players[1].details["command"] == spec.command
    # With --capture-all-dead GNU Go's count and boardq's agree (docs/records.md).
    assert record.engine_count == record.result_text and record.result == -1
