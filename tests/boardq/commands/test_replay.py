"""Records end to end: `evaluate --record` and `league --record` keep games, `replay` opens them.

The agent is exported without training (zero kernels, the output bias ranks the
moves), so it plays known moves; the league has rules-based players only and loads no
TensorFlow. `replay` runs once as a program and otherwise in this process (`main`,
its input from a replaced stdin).
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from boardq.commands import main
from boardq.records import from_sgf, read_records

ROOT = Path(__file__).resolve().parents[3]  # the checkout under test, not an installed copy
GNUGO = shutil.which("gnugo") or shutil.which("gnugo", path="/usr/games")


def boardq(args: list[str], cwd: Path, stdin: str = "") -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "BOARDQ_PROGRESS_EVERY_SEC": "86400"}
    return subprocess.run(
        [sys.executable, "-m", "boardq", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=300,
        check=False,
    )


@pytest.fixture(scope="module")
def kept(tmp_path_factory, preference_agent) -> Path:
    """Hex games of `evaluate --record` (SGF and JSON) and tic-tac-toe games of a league."""
    root = tmp_path_factory.mktemp("records")
    preference_agent(root / "hex.npz", "hex", (7, 7, 3), list(range(49)))
    result = boardq(
        ["evaluate", "hex", "--agent", "hex.npz", "--opponent", "random", "--games", "2",
         "--record", "hex-games"], root,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "games kept in hex-games" in result.stdout
    result = boardq(["league", "tictactoe", "winblock", "--games", "1", "--record", "league"], root)
    assert result.returncode == 0, result.stderr
    return root


def test_evaluate_keeps_an_sgf_file_and_a_json_line_a_game(kept):
    folder = kept / "hex-games"
    assert sorted(p.name for p in folder.iterdir()) == [
        "game-0001.sgf", "game-0002.sgf", "game-0003.sgf", "game-0004.sgf", "games.jsonl",
    ]  # fmt: skip
    lines = read_records(folder / "games.jsonl").records
    assert [r.event for r in lines] == ["boardq evaluate vs random"] * 4
    assert [r.players[0].details["kind"] for r in lines] == ["agent", "agent", "random", "random"]
    for number, record in enumerate(lines, start=1):
        [sgf] = from_sgf((folder / f"game-{number:04d}.sgf").read_bytes(), "x.sgf")
        assert sgf.actions == record.actions and sgf.result_text == record.result_text
        agent_seat = 0 if number <= 2 else 1
        assert all(m.value is not None for m in record.moves[agent_seat::2])
        assert all(m.value is None for m in record.moves[1 - agent_seat :: 2])


def test_league_keeps_every_pairing_s_games(kept):
    lines = read_records(kept / "league" / "games.jsonl").records
    assert len(lines) == 2 and {r.event for r in lines} == {"boardq league"}
    assert {frozenset(p.name for p in r.players) for r in lines} == {
        frozenset({"random", "winblock"})
    }


def test_replay_opens_an_sgf_file_and_steps_to_its_end(kept):
    record = read_records(kept / "hex-games" / "games.jsonl").records[0]
    result = boardq(["replay", "hex-games/game-0001.sgf", "--ascii"], kept, "n\nend\nq\n")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert "move 1: X black plays a1" in result.stdout
    assert f"the end: {record.result_text}" in result.stdout


def replay(args: list[str], stdin: str, monkeypatch, capsys) -> tuple[int, str, str]:
    """`boardq replay ARGS` in this process: (exit code, stdout, stderr)."""
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = main(["replay", *args, "--ascii"])
    out, err = capsys.readouterr()
    return code, out, err


def test_replay_lists_the_games_of_a_jsonl_file_and_opens_the_one_picked(kept, monkeypatch, capsys):
    path = str(kept / "league" / "games.jsonl")
    code, out, err = replay([path], "7\n2\nend\nq\nq\n", monkeypatch, capsys)
    assert (code, err) == (0, "")
    assert "   1. random vs winblock: " in out and "   2. winblock vs random: " in out
    assert "type a game's number, 1-2, or q" in out
    assert "which game? (1-2, q to leave): 2\ntictactoe: " in out
    assert "the end: the " in out
    code, out, err = replay([path, "--game", "2"], "end\n", monkeypatch, capsys)
    assert code == 0 and "the end: the " in out and "   1. " not in out


def test_replay_skips_a_bad_line_with_one_line_and_opens_the_rest(
    kept, tmp_path, monkeypatch, capsys
):
    lines = (kept / "league" / "games.jsonl").read_text().splitlines()
    path = tmp_path / "games.jsonl"
    path.write_text(lines[0] + "\n" + lines[1][:30] + "\n")
    code, out, err = replay([str(path)], "end\n", monkeypatch, capsys)
    assert code == 0
    assert err == "boardq replay: skipped games.jsonl, line 2: not a JSON record " \
        "(Unterminated string starting at; cut short?)\n"  # fmt: skip
    assert "the end: " in out


def test_a_record_of_a_game_boardq_does_not_play_is_one_line_and_exit_1(
    kept, tmp_path, monkeypatch, capsys
):
    import json

    line = json.loads((kept / "league" / "games.jsonl").read_text().splitlines()[0])
    (tmp_path / "x.jsonl").write_text(json.dumps({**line, "game": "chess"}) + "\n")
    monkeypatch.chdir(tmp_path)
    code, out, err = replay(["x.jsonl"], "", monkeypatch, capsys)
    assert (code, out) == (1, "")
    assert (
        err
        == "boardq replay: error: x.jsonl, line 1: a game of 'chess', which boardq does not play\n"
    )


@pytest.mark.parametrize(
    "content, args, message",
    [
        (None, [], "cannot read missing.sgf: No such file or directory"),
        (b"", [], "x.sgf is empty"),
        (b"(;GM[1]SZ[9];B[ee];W[ee])", [], "x.sgf: move 2 (E5) is not legal there"),
        (b"(;GM[1]SZ[13];B[ee])", [], "x.sgf: a 13x13 board; boardq's Go is 9x9"),
        (b"(;GM[1]SZ[9];B[ee])", ["--game", "2"], "x.sgf holds 1 game; --game takes 1-1"),
    ],
)
def test_a_record_boardq_cannot_replay_is_one_line_and_exit_1(
    tmp_path, monkeypatch, capsys, content, args, message
):
    name = "missing.sgf" if content is None else "x.sgf"
    if content is not None:
        (tmp_path / name).write_bytes(content)
    monkeypatch.chdir(tmp_path)
    code, out, err = replay([name, *args], "", monkeypatch, capsys)
    assert code == 1
    assert err == f"boardq replay: error: {message}\n"
    assert out == ""


@pytest.mark.slow
@pytest.mark.skipif(GNUGO is None, reason="GNU Go is not installed (apt-get install gnugo)")
def test_the_bundled_go_agent_s_games_open_in_replay_and_in_gnugo_alike(tmp_path):
    result = boardq(
        ["evaluate", "go", "--agent", "bundled:go", "--opponent", "mcts:50", "--games", "2",
         "--record", "go"], tmp_path,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    files = sorted((tmp_path / "go").glob("*.sgf"))
    assert len(files) == 4
    for path in files:
        [record] = read_records(path).records
        shown = boardq(["replay", str(path), "--ascii"], tmp_path, "end\n").stdout
        gtp = f"loadsgf {path}\nshowboard\nquit\n"
        out = subprocess.run([GNUGO, "--mode", "gtp"], input=gtp, capture_output=True,
                             text=True, timeout=60).stdout  # fmt: skip
        gnugo_rows = [line.split()[1:10] for line in out.splitlines() if line[:2].strip().isdigit()]
        ours = [line.split()[1:10] for line in shown.splitlines() if line[:3].strip().isdigit()]
        assert len(ours) >= 9 and all(len(row) == 9 for row in ours[-9:])
        mapping = {"X": "X", "O": "O", ".": "+", "+": "+"}
        assert [[mapping[c] for c in row] for row in gnugo_rows[-9:]] == ours[-9:], path.name
        assert record.result_text in shown


def test_an_evaluation_with_handicap_keeps_its_stones_as_setup_and_replay_says_so(
    tmp_path, monkeypatch, capsys
):
    result = boardq(
        ["evaluate", "go", "--agent", "bundled:go", "--opponent", "random", "--games", "1",
         "--handicap", "3", "--record", "go"], tmp_path,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    black, white = read_records(tmp_path / "go" / "games.jsonl").records
    assert black.settings["handicap"] == 3 and "handicap" not in white.settings
    black_file = (tmp_path / "go" / "game-0001.sgf").read_text()
    assert "HA[3]" in black_file and "AB[" in black_file
    assert "AB[" not in (tmp_path / "go" / "game-0002.sgf").read_text()
    code, out, err = replay(
        [str(tmp_path / "go" / "game-0001.sgf")], "end\nq\n", monkeypatch, capsys
    )
    assert code == 0, err
    assert "handicap: 3 stones" in out and black.result_text in out
    code, out, err = replay(
        [str(tmp_path / "go" / "game-0002.sgf")], "end\nq\n", monkeypatch, capsys
    )
    assert code == 0, err
    assert "handicap" not in out
