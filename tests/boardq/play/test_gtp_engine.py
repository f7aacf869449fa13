"""The agent as a GTP engine: every command, bad input answered `?`, never a crash.

In-process with a stand-in agent (the first legal move), so each test takes
milliseconds; `test_boardq_gtp_speaks_only_gtp_on_stdout` runs the real command once.
Go's komi, handicap and count: test_gtp_go.py.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from gtp_talk import first_legal, printed_sgf, talk

from boardq.catalog import get_game
from boardq.gtp.engine import AgentEngine
from boardq.play.match import Match
from boardq.records import PlayerInfo, from_sgf, read_records

ROOT = Path(__file__).resolve().parents[3]


def test_the_administrative_commands(go):
    assert talk(go, "protocol_version", "name", "version") == ["= 2", "= boardq", "= test"]
    listed = talk(go, "list_commands")[0].removeprefix("= ").split("\n")
    required = "protocol_version name version known_command list_commands quit boardsize"
    required += " clear_board komi play genmove undo showboard final_score printsgf"
    assert set(required.split()) <= set(listed)
    assert talk(go, "known_command genmove", "known_command fly") == ["= true", "= false"]
    assert talk(go, "known_command printsgf") == ["= true"]
    assert talk(go, "quit") == ["="] and go.done


def test_ids_come_back_on_success_and_failure(go):
    assert talk(go, "12 genmove b", "13 play b Z1", "14 fly") == [
        "=12 A9",  # the stand-in agent's first legal move
        "?13 syntax error: invalid vertex 'Z1'",
        "?14 unknown command",
    ]


def test_bad_input_is_answered_and_the_game_goes_on(go):
    answers = talk(
        go,
        "boardsize 19",
        "boardsize nine",
        "komi 1e999",
        "komi lots",
        "play b",
        "play purple E5",
        "play b E5",
        "play b D5",  # white is to move
        "play w E5",  # taken
        "genmove",
        "undo",
        "undo",
        "play w E5",  # after the undo, the point is free, but black is to move
    )
    assert answers == [
        "? unacceptable size",
        "? syntax error: boardsize not an integer",
        "? syntax error: komi not a float",
        "? syntax error: komi not a float",
        "? syntax error: play takes a color and a vertex, e.g. play black E5",
        "? syntax error: invalid color 'purple'",
        "=",
        "? it is white's move: boardq's games alternate (play a pass first)",
        "? illegal move",
        "? syntax error: genmove takes a color, e.g. genmove white",
        "=",
        "? cannot undo",
        "? it is black's move: boardq's games alternate (play a pass first)",
    ]
    assert talk(go, "boardsize 9", "komi 7.5", "genmove black") == ["=", "=", "= A9"]
    assert [m.vertex for m in go.moves] == ["A9"]


def test_play_genmove_and_the_move_list(go):
    assert talk(go, "play b E5", "genmove w", "play b pass", "genmove w") == [
        "=",
        "= A9",
        "=",
        "= B9",
    ]
    assert [(m.seat, m.vertex) for m in go.moves] == [(0, "E5"), (1, "A9"), (0, "pass"), (1, "B9")]
    assert talk(go, "clear_board") == ["="] and go.moves == []


def test_showboard_draws_the_position(go):
    talk(go, "play b E5")
    board = talk(go, "showboard")[0]
    assert board.startswith("= \n")
    row5 = next(line for line in board.split("\n") if line.strip().startswith("5 "))
    assert "[X]" in row5  # the last move, bracketed


def test_final_score_counts_area_with_komi(go):
    assert talk(go, "final_score") == ["= W+7.5"]  # an empty board: komi alone
    talk(go, "play b E5")
    assert talk(go, "final_score") == ["= B+73.5"]  # one stone owns the board: 81 - 7.5
    talk(go, "play w D5", "play b pass", "play w pass")
    assert talk(go, "final_score") == ["= W+7.5"]
    assert (
        talk(go, "genmove b", "play b A1")
        == ["? the game is over (clear_board starts a new one)"] * 2
    )


def test_printsgf_is_the_game_so_far_with_the_agent_named_by_its_colour(tmp_path):
    agent = PlayerInfo("boardq agent go.npz, search depth 2", {"kind": "agent"})

    def decide(observation):
        return first_legal(observation), 0.25  # the move and its value, in one call

    go = AgentEngine(get_game("go"), decide, agent=agent)
    talk(go, "play b E5", "genmove w", "play b D4", "genmove w", "undo", "genmove w")
    record = printed_sgf(go)
    assert [m.label for m in record.moves] == ["E5", "A9", "D4", "B9"]
    assert [p.name for p in record.players] == ["unknown", agent.name]
    assert record.result is None and record.settings["komi"] == 7.5
    assert [m.value for m in record.moves] == [None, 0.25, None, 0.25]  # the agent's moves
    assert record.moves[1].seconds is not None and record.moves[0].seconds is None
    # To a file, as GNU Go's `printsgf FILE`; after the end, with boardq's result.
    talk(go, "play b pass", "play w pass")
    assert talk(go, f"printsgf {tmp_path / 'game.sgf'}") == ["="]
    [record] = read_records(tmp_path / "game.sgf").records
    assert record.result_text == "W+7.5" and len(record.moves) == 6  # B: E5 D4, W: A9 B9
    assert talk(go, f"printsgf {tmp_path / 'no' / 'game.sgf'}")[0].startswith("? cannot write ")
    assert talk(go, "printsgf a b") == ["? syntax error: printsgf takes at most a file name"]
    talk(go, "clear_board", "genmove b")  # a new game: the agent is black now
    assert [p.name for p in printed_sgf(go).players] == [agent.name, "unknown"]


def forced_pass_game(seed: int = 0) -> list[int]:
    """Random Othello moves up to a position whose mover can only pass."""
    game = get_game("othello")
    rng = np.random.default_rng(seed)
    while True:
        match = Match(game)
        while not match.over:
            legal = np.flatnonzero(match.legal())
            if legal.tolist() == [game.gtp.pass_action] and not match.over:
                return list(match.moves)
            match.play(int(rng.choice(legal)))
        seed += 1
        rng = np.random.default_rng(seed)


def test_othello_implies_a_forced_pass_and_undoes_it_with_the_next_move():
    game = get_game("othello")
    engine = AgentEngine(game, first_legal)
    moves = forced_pass_game()
    for i, action in enumerate(moves):
        colour = "bw"[i % 2]
        assert talk(engine, f"play {colour} {game.gtp.vertex(action)}") == ["="]
    passer = "bw"[len(moves) % 2]
    other = "wb"[len(moves) % 2]
    assert talk(engine, f"genmove {other}")[0].startswith("= ")
    assert [m.implied for m in engine.moves[-2:]] == [True, False]
    assert engine.moves[-2].vertex == "pass" and engine.moves[-2].seat == "bw".index(passer)
    assert talk(engine, "undo") == ["="]
    assert len(engine.moves) == len(moves)  # the pass went with the move after it
    assert talk(engine, f"genmove {passer}") == ["= pass"]  # its only move
    # printsgf writes Othello as Quarry does (no node for a pass: the next move, of the
    # same colour, says it); read back, the same moves.
    assert talk(engine, f"genmove {other}")[0].startswith("= ")
    assert printed_sgf(engine).actions == [m.action for m in engine.moves]


def test_othello_score_only_at_the_end():
    engine = AgentEngine(get_game("othello"), first_legal)
    assert talk(engine, "final_score") == ["? cannot score: the game is not over"]
    assert talk(engine, "komi 0") == ["="]  # Othello has no komi; any is accepted


def test_a_crashing_agent_is_an_answer_not_a_crash(capsys):
    def broken(observation):
        raise RuntimeError("no network")

    engine = AgentEngine(get_game("go"), broken)
    assert talk(engine, "genmove b") == ["? internal error: no network"]
    assert talk(engine, "play b E5") == ["="]


def test_games_without_gtp_names_are_refused():
    with pytest.raises(ValueError, match="no GTP names"):
        AgentEngine(dataclasses.replace(get_game("connect_four"), gtp=None), first_legal)


def gtp_command(args: list[str], stdin: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "boardq", "gtp", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=300,
        check=False,
    )


def test_boardq_gtp_speaks_only_gtp_on_stdout():
    result = gtp_command(["go"], "1 name\nboardsize 9\nclear_board\n2 genmove b\nfly\n")
    assert result.returncode == 0, result.stderr
    answers = result.stdout.split("\n\n")
    assert answers[:3] == ["=1 boardq", "=", "="]
    assert answers[3].startswith("=2 ") and answers[4] == "? unknown command"
    assert "bundled-agent.npz" in result.stderr  # the default agent, said on stderr


@pytest.mark.parametrize(
    "search, said",
    [(["--search", "2"], "depth-2 search"), (["--move-time", "0.2"], "search of 0.2 s a move")],
)
def test_boardq_gtp_go_searches_with_the_rules_of_go(search, said):
    result = gtp_command(["go", *search], "boardsize 9\nclear_board\n1 genmove b\n")
    assert result.returncode == 0, result.stderr
    answers = result.stdout.split("\n\n")
    assert answers[:2] == ["=", "="] and answers[2].startswith("=1 ")
    assert said in result.stderr


@pytest.mark.parametrize(
    "args, message",
    [
        (["openspiel:breakthrough(rows=6,columns=6)"], "moves have no GTP names"),
        (["go", "--agent", "/missing.npz"], "/missing.npz does not exist"),
    ],
)
def test_refusals_are_one_line(args, message):
    result = gtp_command(args, "")
    assert result.returncode == 1
    assert result.stdout == ""
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1


GNUGO = shutil.which("gnugo") or shutil.which("gnugo", path="/usr/games")


def test_boardq_gtp_prints_an_sgf_that_boardq_and_gnugo_read_to_the_same_game(tmp_path):
    """`printsgf` of the real command, read back by boardq's records reader and GNU Go."""
    saved = tmp_path / "game.sgf"
    # Black's moves are on points the shipped agent does not answer with (it is greedy).
    moves = "play b E5\ngenmove w\nplay b A1\ngenmove w\nplay b J9\ngenmove w\n"
    result = gtp_command(["go"], f"{moves}printsgf\nprintsgf {saved}\nquit\n")
    assert result.returncode == 0, result.stderr
    answers = result.stdout.split("\n\n")
    replies = [answers[i].removeprefix("= ") for i in (1, 3, 5)]
    printed = answers[6].removeprefix("= ").encode()
    assert answers[7] == "="
    labels = ["E5", replies[0], "A1", replies[1], "J9", replies[2]]
    for data in (printed, saved.read_bytes()):
        [record] = from_sgf(data, "printsgf")
        assert [m.label for m in record.moves] == labels
        assert record.players[0].name == "unknown"
        assert record.players[1].name.startswith("boardq agent ")
        assert record.players[1].name.endswith("bundled-agent.npz")
        assert b"KM[7.5]" in data and record.result is None
    if GNUGO is None:
        pytest.skip("GNU Go is not installed (apt-get install gnugo): not read by it")
    script = f"loadsgf {saved}\nlist_stones black\nlist_stones white\nquit\n"
    out = subprocess.run(
        [GNUGO, "--mode", "gtp"], input=script, capture_output=True, text=True, timeout=60
    ).stdout
    gnugo = [block[2:].split() for block in out.split("\n\n") if block.startswith("=")]
    assert gnugo[0] == ["black"]  # who moves next
    assert set(gnugo[1]) == set(labels[0::2]) and set(gnugo[2]) == set(labels[1::2])
