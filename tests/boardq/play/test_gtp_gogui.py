"""Every game in GoGui: its ruler commands over whole games, as GoGui's `GenericBoard`
reads them, and Hex through HTP's names; junk never ends the engine."""

from __future__ import annotations

import numpy as np
import pytest
from gtp_talk import first_legal

from boardq.catalog import get_game
from boardq.gtp.engine import AgentEngine
from boardq.gtp.gogui import board_rows
from boardq.gtp.protocol import GtpDialect

GAMES = ["go", "othello", "connect_four", "gomoku", "hex", "tictactoe"]


def talk(engine: AgentEngine, line: str) -> str:
    answer = engine.answer(line)
    assert answer.startswith("= ") or answer == "=\n\n", (line, answer)
    return answer.removeprefix("= ").removeprefix("=").removesuffix("\n\n")


def gogui_board(text: str, size: int) -> dict[str, str]:
    """GenericBoard.copyRulerBoardState: X, O and . in order, other characters skipped;
    GoGui's point (column j, row size - i) for the i-th row from the top."""
    marks = [c for c in text if c in "XO."]
    assert len(marks) == size * size
    letters = "ABCDEFGHJKLMNOPQRST"
    return {
        f"{letters[j]}{size - i}": marks[i * size + j] for i in range(size) for j in range(size)
    }


@pytest.mark.parametrize("name", GAMES)
def test_a_whole_game_through_the_ruler_commands(name):
    """GoGui's loop: legal moves, side to move, play the first, the board copied back."""
    game = get_game(name)
    engine = AgentEngine(
        game, first_legal, values=lambda obs: np.where(obs["action_mask"], 0.5, np.nan)
    )
    size = int(talk(engine, "gogui-rules_board_size"))
    assert size == max(game.gtp.size, game.gtp.height)
    assert talk(engine, "gogui-rules_game_id") == name.replace("_", "")
    talk(engine, f"boardsize {size}")
    assert "gogui-rules_legal_moves" in talk(engine, "gogui-analyze_commands")
    stones: dict[str, str] = {}
    for ply in range(400):
        legal = talk(engine, "gogui-rules_legal_moves").split()
        if not legal:
            break
        side = talk(engine, "gogui-rules_side_to_move")
        assert side == ("black", "white")[engine.match.to_move]
        assert talk(engine, "gogui-rules_final_result") == "unknown"
        points = [p for p in legal if p != "pass"]
        # The first point, a pass now and then where the game has one, then passes.
        passing = "pass" in legal and (ply % 7 == 0 or ply > 120)
        move = "pass" if passing or not points else points[0]
        assert move == "pass" or move.isupper()
        talk(engine, f"play {side} {move}")
        board = gogui_board(talk(engine, "gogui-rules_board"), size)
        if move != "pass" and name not in ("go", "othello"):  # no captures, no flips
            stones[move] = "X" if side == "black" else "O"
            assert {p: board[p] for p in stones} == stones
            assert sum(c != "." for c in board.values()) == len(stones)
        values = talk(engine, "boardq-values")
        assert len(values.split()) == size * size
    assert engine.match.over, f"{name}: no end in 400 plies"
    result = {1: "black", -1: "white", 0: "draw"}[engine.match.result()]
    assert talk(engine, "gogui-rules_final_result") == result
    assert talk(engine, "gogui-rules_legal_moves") == ""


def test_connect_four_names_the_point_its_piece_lands_on():
    engine = AgentEngine(get_game("connect_four"), first_legal)
    assert talk(engine, "play b D5") == ""  # any point of the column names it
    assert talk(engine, "genmove w") == "A1"
    assert talk(engine, "gogui-rules_legal_moves") == "A2 B1 C1 D2 E1 F1 G1"
    rows = talk(engine, "gogui-rules_board").strip().split("\n")
    assert rows[0] == ". . . . . . ." and rows[-1] == "O . . X . . ."  # 7 rows, top empty
    assert engine.answer("play b D7") == "? syntax error: invalid vertex 'D7': rows are 1-6\n\n"


def test_hex_speaks_htp():
    engine = AgentEngine(get_game("hex"), first_legal)
    assert engine.answer("boardsize 7 7") == "=\n\n"
    assert engine.answer("boardsize 11 11").startswith("? unacceptable size")
    assert talk(engine, "play black a1") == ""
    assert talk(engine, "play white g7") == ""
    assert engine.moves[0].action == 0 and engine.moves[1].action == 48  # a1 top left
    assert engine.answer("play b pass").startswith("? syntax error: this game has no pass")
    assert engine.answer("swap-pieces") == "? unknown command\n\n"  # no swap rule here
    assert talk(engine, "genmove b") == "b1"


def test_hexgui_session():
    """What HexGui sends on connecting and playing (HexGui.java), answered as it reads."""
    engine = AgentEngine(get_game("hex"), first_legal, values=lambda obs: np.zeros(49))
    for line in ("name", "version", "boardsize 7 7", "play black d4", "genmove white"):
        answer = engine.answer(line)
        assert answer[0] == "=" and answer.endswith("\n\n") and len(answer) > 2, line
    menu = talk(engine, "hexgui-analyze_commands").split("\n")
    assert all(len(entry.split("/")) == 3 for entry in menu)  # type/label/command
    pairs = talk(engine, "boardq-winrate_pairs").split()
    assert pairs[:4] == ["b1", "50", "c1", "50"] and len(pairs) == 2 * 47  # a1 d4 taken
    assert talk(engine, "undo") == "" and len(engine.moves) == 1


def test_board_rows_put_the_highest_row_number_first():
    dialect = GtpDialect(size=3, letters="ABC", bottom_up=True, pass_action=None)
    assert board_rows(dialect, lambda r, c: str(r)) == "0 0 0\n1 1 1\n2 2 2"
    top_down = GtpDialect(size=3, letters="abc", bottom_up=False, pass_action=None)
    assert board_rows(top_down, lambda r, c: str(r)) == "2 2 2\n1 1 1\n0 0 0"
    tall = GtpDialect(size=3, letters="ABC", bottom_up=True, pass_action=None, rows=2)
    assert board_rows(tall, lambda r, c: str(r), blank="-") == "- - -\n0 0 0\n1 1 1"


JUNK = [
    "",
    "   ",
    "#",
    "9" * 5000,
    "9" * 5000 + " name",
    "play",
    "play b " + "9" * 5000,
    "komi " + "9" * 5000,
    "komi nan",
    "komi inf",
    "boardsize " + "1" * 5000,
    "boardsize -9",
    "time_left b " + "9" * 5000 + " 0",
    "time_settings 1 2",
    "kgs-time_settings fischer 1 2 3",
    "fixed_handicap " + "9" * 5000,
    "lz-analyze b " + "9" * 5000,
    "kata-analyze b interval",
    "genmove purple",
    "final_status_list maybe",
    "\x00\x01play b E5\x7f",
    "play b \u00e9\u00e9",
    "1 2 3",
    "undo undo",
    "set_free_handicap E5",
    "printsgf /",
]


@pytest.mark.parametrize("name", ["go", "hex"])
def test_junk_is_answered_on_one_line_and_the_engine_plays_on(name):
    rng = np.random.default_rng(0)
    engine = AgentEngine(get_game(name), first_legal)
    for _ in range(3):
        for line in rng.permutation(JUNK):
            answer = engine.answer(str(line))
            if answer is None:
                continue
            head, _, rest = answer.partition("\n")
            assert head[0] in "=?" and (head[0] == "=" or rest == "\n"), (line, answer)
            assert "internal error" not in head, (line, answer)
    assert engine.answer("clear_board") == "=\n\n"
    assert engine.answer("genmove b").startswith("= ")


def test_the_real_engine_survives_a_long_run_of_junk():
    """`boardq gtp go` fed 1,500 lines of junk (bytes that are not UTF-8 among them):
    one answer a command, none an internal error, the game still playable after."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    rng = np.random.default_rng(7)
    names = [
        "play",
        "genmove",
        "komi",
        "boardsize",
        "time_left",
        "undo",
        "fixed_handicap",
        "kgs-time_settings",
        "lz-analyze",
        "gogui-rules_legal_moves",
        "final_score",
        "x",
    ]
    words = ["b", "w", "E5", "pass", "9" * 5000, "-1", "1e9", "nan", "\x00", "é", "byoyomi"]
    lines = []
    for _ in range(1500):
        args = rng.choice(words, size=rng.integers(0, 4))
        lines.append(" ".join([str(rng.choice(names)), *map(str, args)]))
    data = ("\n".join(lines) + "\n").encode() + b"\xff\xfe name\n1 clear_board\n2 genmove b\n"
    result = subprocess.run(
        [sys.executable, "-m", "boardq", "gtp", "go"],
        input=data,
        capture_output=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[3])},
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    out = result.stdout.decode()
    assert "internal error" not in out and b"Traceback" not in result.stderr
    answers = [block for block in out.split("\n\n") if block.strip()]
    assert answers[-2] == "=1" and answers[-1].startswith("=2 ")
    assert all(block.lstrip("\n")[0] in "=?i" for block in answers)
