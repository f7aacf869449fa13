"""The agent as a GTP engine: every command, bad input answered `?`, never a crash.

In-process with a stand-in agent (the first legal move), so each test takes
milliseconds; `test_boardq_gtp_speaks_only_gtp_on_stdout` runs the real command once.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from boardq.catalog import get_game
from boardq.play.gtp_engine import AgentEngine
from boardq.play.match import Match

ROOT = Path(__file__).resolve().parents[3]


def first_legal(observation) -> int:
    return int(np.flatnonzero(observation["action_mask"])[0])


def talk(engine: AgentEngine, *lines: str) -> list[str]:
    """The answers to `lines`, each without its ending empty line."""
    return [engine.answer(line).removesuffix("\n\n") for line in lines]


@pytest.fixture
def go():
    return AgentEngine(get_game("go"), first_legal, "boardq", "test")


def test_the_administrative_commands(go):
    assert talk(go, "protocol_version", "name", "version") == ["= 2", "= boardq", "= test"]
    listed = talk(go, "list_commands")[0].removeprefix("= ").split("\n")
    required = "protocol_version name version known_command list_commands quit boardsize"
    required += " clear_board komi play genmove undo showboard final_score"
    assert set(required.split()) <= set(listed)
    assert talk(go, "known_command genmove", "known_command fly") == ["= true", "= false"]
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
        "komi 6.5",
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
        "? boardq's Go is played with komi 7.5",
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
        AgentEngine(get_game("connect_four"), first_legal)


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
        (["tictactoe"], "Tic-tac-toe's moves have no GTP names"),
        (["go", "--agent", "/missing.npz"], "/missing.npz does not exist"),
    ],
)
def test_refusals_are_one_line(args, message):
    result = gtp_command(args, "")
    assert result.returncode == 1
    assert result.stdout == ""
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1
