"""`boardq serve`: the command's errors in one line, and one real server stopped by Ctrl-C.

The HTTP API itself is tested in tests/boardq/play/test_web.py, the page in a browser
in tests/boardq/play/test_web_browser.py.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from boardq.commands import main
from boardq.errors import EXIT_ERROR, EXIT_OK

BOARDQ = [shutil.which("boardq")] if shutil.which("boardq") else [sys.executable, "-m", "boardq"]
START_SEC = 180  # imports TensorFlow on a machine that may be busy training
TTT_ORDER = [4, 0, 2, 6, 8, 1, 3, 5, 7]  # centre, corners, edges (PettingZoo's numbers)


@pytest.fixture(scope="module")
def ttt_agent(tmp_path_factory, preference_agent) -> Path:
    path = tmp_path_factory.mktemp("serve") / "ttt.npz"
    return preference_agent(path, "tictactoe", (3, 3, 2), TTT_ORDER)


def one_error_line(capsys, *args: str) -> str:
    assert main(["serve", *args]) == EXIT_ERROR
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1, err
    assert err.startswith("boardq serve: error: ")
    return err


def test_bad_settings_are_one_line_each(capsys, tmp_path):
    assert "unknown game 'chess'" in one_error_line(capsys, "chess")
    no_rules = one_error_line(capsys, "openspiel:tic_tac_toe", "--search", "2")
    assert "--search needs rules" in no_rules
    assert "--search is at most 6" in one_error_line(capsys, "tictactoe", "--search", "7")
    # Each game to its own deepest depth; a time per move instead, up to 10 s.
    assert "--search is at most 3 in Go" in one_error_line(capsys, "go", "--search", "4")
    assert "at most 10 seconds" in one_error_line(capsys, "hex", "--move-time", "11")
    no_rules = one_error_line(capsys, "openspiel:tic_tac_toe", "--move-time", "1")
    assert "--move-time needs rules" in no_rules
    assert "--port must be from 0 to 65535" in one_error_line(capsys, "go", "--port", "70000")
    assert "--komi 6.5: " in one_error_line(capsys, "connect_four", "--komi", "6.5")
    assert "--komi " in one_error_line(capsys, "go", "--komi", "1e6")
    missing = tmp_path / "missing.npz"
    assert str(missing) in one_error_line(capsys, "tictactoe", "--agent", str(missing))
    empty_runs = str(tmp_path / "runs")
    agent = one_error_line(capsys, "openspiel:tic_tac_toe", "--runs-dir", empty_runs)
    assert "no trained" in agent and "boardq train" in agent


def test_a_depth_and_a_time_per_move_together_are_a_usage_error(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["serve", "hex", "--search", "2", "--move-time", "1"])
    assert stop.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err


def test_an_address_in_use_is_one_line(capsys, ttt_agent):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        err = one_error_line(capsys, "tictactoe", "--agent", str(ttt_agent), "--port", str(port))
    assert f"cannot listen on 127.0.0.1:{port}" in err


def test_the_command_serves_until_ctrl_c(ttt_agent, tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    process = subprocess.Popen(
        [*BOARDQ, "serve", "tictactoe", "--agent", str(ttt_agent), "--port", "0"]
        + ["--allow-host", "board.example"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=tmp_path,
        env=env,
        text=True,
    )
    try:
        first = process.stdout.readline()
        assert first == f"Tic-tac-toe against the agent in {ttt_agent}\n"
        url = process.stdout.readline().split()[1]
        assert url.startswith("http://127.0.0.1:") and url.endswith("/")
        with urllib.request.urlopen(url + "api/games", timeout=START_SEC) as response:
            assert json.load(response)["default"] == "tictactoe"
        request = urllib.request.Request(
            url + "api/sessions", data=b'{"game": "tictactoe", "seat": 1}', method="POST"
        )
        with urllib.request.urlopen(request, timeout=START_SEC) as response:
            assert json.load(response)["moves"][0]["label"] == "5"  # the agent's centre
        # The name given with --allow-host reaches it; another name does not.
        named = urllib.request.Request(url + "api/games", headers={"Host": "board.example"})
        with urllib.request.urlopen(named, timeout=START_SEC) as response:
            assert response.status == 200
        other = urllib.request.Request(url + "api/games", headers={"Host": "other.example"})
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(other, timeout=START_SEC)
        assert refused.value.code == 400
    finally:
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=START_SEC)
    assert process.returncode == EXIT_OK
    assert (out, err) == ("", "stopped\n")


def test_komi_sets_go_up_says_so_once_and_the_page_is_told(capsys):
    from boardq.catalog import get_game
    from boardq.commands.serve import _set_up
    from boardq.web.state import _komi_json

    args = argparse.Namespace(komi=6.5)
    go = _set_up(args, get_game("go"), needs_komi=True)
    assert go.setup.komi == 6.5 and go.make_env().unwrapped is not None
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "learnt Go with komi 7.5" in err and "komi 6.5" in err
    # The page draws the game's komi and, where it differs, the komi the agent learnt with.
    assert _komi_json(go) == {"komi": 6.5, "learnt_komi": 7.5}
    assert _komi_json(get_game("go")) == {"komi": 7.5, "learnt_komi": 7.5}
    assert _komi_json(get_game("tictactoe")) == {}
    # Serving every game, only Go's komi changes.
    hex_game = get_game("hex")
    assert _set_up(args, hex_game) is hex_game
