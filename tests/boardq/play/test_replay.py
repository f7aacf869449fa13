"""Saving games from the play session, and stepping through records (in-process, no TensorFlow)."""

from __future__ import annotations

import io

import numpy as np
import pytest
from rich.console import Console

from boardq.play.replay import RecordReplay
from boardq.play.session import LineReader, Session, View
from boardq.records import GameLog, PlayerInfo, read_records, replay_record
from boardq.search.spec import NETWORK
from boardq_games import get_game

TTT = get_game("tictactoe")
GOMOKU = get_game("gomoku")


class FirstLegal:
    """An agent that plays its first legal move and values move a at a / 100 (an `Advisor`)."""

    def q_values(self, observation, search=NETWORK) -> np.ndarray:
        q = np.arange(len(observation["action_mask"]), dtype=np.float64) / 100
        q[~np.asarray(observation["action_mask"], bool)] = np.nan
        return q

    def move(self, observation, search=NETWORK) -> tuple[int, float]:
        action = int(np.flatnonzero(observation["action_mask"])[0])
        return action, action / 100

    def info(self, search=NETWORK) -> PlayerInfo:
        return PlayerInfo("first legal", {"kind": "agent"})


def console() -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, highlight=False, emoji=False, soft_wrap=True, width=100), out


def play(game, script: str, **kwargs) -> tuple[Session, str]:
    con, out = console()
    view = View(con, game.text, ascii_only=True)
    reader = LineReader(con, io.StringIO(script))
    session = Session(game, FirstLegal(), view, reader, **kwargs)
    session.run(0)
    return session, out.getvalue()


def test_a_finished_game_is_saved_with_record_and_replays_to_its_end(tmp_path):
    # The agent takes the first free cell in PettingZoo's order (down the columns): 1, 4, 7...
    path = tmp_path / "games.jsonl"
    session, out = play(TTT, "5\n3\n7\nn\n", record_to=path)
    assert f"game saved to {path}" in out
    [record] = read_records(path).records
    assert [m.label for m in record.moves] == ["5", "1", "3", "4", "7"]
    assert record.result == 1 and record.result_text == "the first player won"
    assert [p.name for p in record.players] == ["you", "first legal"]
    assert record.event == "boardq play"
    assert [m.value for m in record.moves] == [None, 0.0, None, 0.01, None]  # the agent's
    assert all(m.seconds is not None for m in record.moves)
    replayed = replay_record(record, TTT)
    assert replayed.result == 1 and len(replayed.boards) == 6


def test_undone_moves_leave_the_record_and_save_writes_the_game_so_far(tmp_path):
    path = tmp_path / "so-far.sgf"
    script = f"e5\ne4\nundo\nd4\nsave {path}\nquit\n"
    session, out = play(GOMOKU, script)
    assert f"game so far saved to {path}" in out
    [record] = read_records(path).records
    assert [m.label for m in record.moves] == ["e5", "a9", "d4", "b9"]
    assert record.result is None and record.result_text == ""


def test_later_sgf_games_get_their_own_files_and_a_game_left_midway_is_saved(tmp_path):
    path = tmp_path / "games.sgf"
    # Game 1: the person moves first (e5...), then the seats swap and game 2 is left early.
    moves = "e5\ne4\ne3\ne2\ne1\n"
    session, out = play(GOMOKU, moves + "y\nd5\nquit\n", record_to=path)
    [first] = read_records(path).records
    assert first.result == 1 and first.players[0].name == "you"
    [second] = read_records(tmp_path / "games-2.sgf").records
    assert second.result is None and second.players[0].name == "first legal"
    assert [m.label for m in second.moves] == ["a9", "d5", "b9"]


def test_save_after_the_game_and_a_save_that_fails_is_one_line_and_the_session_goes_on(tmp_path):
    bad = tmp_path / "missing" / "x.jsonl"
    good = tmp_path / "after.jsonl"
    session, out = play(TTT, f"5\nsave {bad}\n3\n7\nsave {good}\nn\n")
    assert f"not saved: cannot write {bad}" in out
    assert f"game saved to {good}" in out and "bye" in out
    assert read_records(good).records[0].result == 1
    session, out = play(TTT, "save\nquit\n")
    assert "nothing to save yet: no move has been played" in out


def replay_session(record, script: str) -> str:
    con, out = console()
    view = View(con, get_game(record.game).text, ascii_only=True)
    replayed = replay_record(record, get_game(record.game))
    RecordReplay(record, replayed, view, LineReader(con, io.StringIO(script))).run()
    return out.getvalue()


def gomoku_record():
    log = GameLog(GOMOKU, (PlayerInfo("alice"), PlayerInfo("bob")), "test")
    for label, value in (("e5", 0.5), ("d4", None), ("e4", -0.25)):
        log.add(GOMOKU.text.parse(label, np.ones(81, bool)), seconds=1.5, value=value)
    return log.record()


def test_replay_steps_forward_back_and_to_a_move_and_shows_the_agents_values():
    out = replay_session(gomoku_record(), "\nn\nb\n3\n0\nend\n9\nbogus\nq\n")
    assert "X black: alice" in out and "O white: bob" in out
    assert "move 1: X black plays e5 (1.50 s; value +0.50)" in out
    assert "move 2: O white plays d4 (1.50 s)" in out
    assert out.count("move 3: X black plays e4 (1.50 s; value -0.25)") == 2  # 3, then end
    assert "the record ends before the game does" in out
    assert "there is no move 9: this game has moves 1-3" in out
    assert "'bogus' is not a command" in out
    assert "replay [2/3]: b" in out and "replay [0/3]: end" in out


@pytest.mark.parametrize("script", ["b\nq\n", "end\nn\n"])
def test_replay_stops_at_the_ends(script):
    out = replay_session(gomoku_record(), script)
    assert "that is the start" in out or "that is the end of the game" in out
