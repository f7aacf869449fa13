"""Every command the README shows runs as written: the quick ones are run, the rest parsed.

The commands are the lines of the README's plain fenced blocks (```, no language), with
`# comments` dropped and `&&` splitting a line into its commands. Every `boardq` command
is parsed by the real command line's parser; the ones that take seconds are run as a new
user would (in an empty folder, no runs yet, so the agents that come with boardq play),
with input typed at them where they read it. Training and the benchmark take minutes:
they are parsed, and training's game and preset are resolved (`--show-config`). The
docs' `boardq` commands are parsed too, their placeholders (GAME, RUN_DIR...) filled in,
and the README's Python example runs with the agent that comes with boardq.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import re
import shlex
import subprocess
import sys
import tomllib
import urllib.request
from pathlib import Path
from types import SimpleNamespace

import pytest

from boardq.commands import build_parser

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
START_SEC = 120  # a command that loads TensorFlow and an agent, on a busy 2-core machine
QUICK_START = [
    "python3 -m pip install -e . && boardq train tictactoe",
    'python3 -m pip install -e ".[test]" && python3 -m pytest',
]


def fenced_lines(text: str) -> list[str]:
    """The lines of the plain fenced blocks (```, no language), a shell prompt dropped."""
    lines, fence = [], None  # fence: the open block's language ("" plain), None outside
    for line in text.splitlines():
        if line.startswith("```"):
            fence = line[3:].strip() if fence is None else None
        elif fence == "":
            line = re.sub(r"^\$ ", "", line.strip())
            if line and not line.startswith("#"):
                lines.append(line)
    return lines


def commands(text: str) -> list[list[str]]:
    """Each command of each line, as its words: comments dropped, `&&` parts apart.

    Lines a shell would not read (program output with an odd quote) are left out.
    """
    out = []
    for line in fenced_lines(text):
        try:
            words = shlex.split(line, comments=True)
        except ValueError:
            continue
        while "&&" in words:
            i = words.index("&&")
            out.append(words[:i])
            words = words[i + 1 :]
        if words:
            out.append(words)
    return out


README_COMMANDS = commands(README.read_text())
BOARDQ = [words for words in README_COMMANDS if words[0] == "boardq"]
# The Commands section's lines: the quick start's training is the first README command.
SHOWN = [words for words in BOARDQ if words not in commands("```\n" + QUICK_START[0] + "\n```\n")]


def parses(argv: list[str]) -> int | None:
    """None when the real parser takes argv (or shows its help); else its exit code."""
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            build_parser().parse_args(argv)
    except SystemExit as e:
        return e.code or None
    return None


def boardq(args: list[str], cwd: Path, stdin: str = "") -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in {"NO_COLOR", "COLUMNS"}}
    env.update(PYTHONPATH=str(ROOT), TF_CPP_MIN_LOG_LEVEL="3")
    return subprocess.run(
        [sys.executable, "-m", "boardq", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=START_SEC,
        check=False,
    )


def shown(command: str) -> list[str]:
    """The README's one `boardq COMMAND ...` line, as its arguments (after `boardq`)."""
    found = [words[1:] for words in SHOWN if words[1] == command]
    assert len(found) == 1, f"the README shows {len(found)} `boardq {command}` lines"
    return found[0]


def test_the_quick_start_is_the_two_commands_ci_runs_first():
    assert fenced_lines(README.read_text())[:2] == QUICK_START
    assert "python3 -m pytest" in (ROOT / ".ci" / "run").read_text()


def test_the_commands_are_found_as_a_reader_sees_them():
    shell = "$ boardq play go  # a comment\na && b 'c d'\nit's output\n"
    text = f"```\n{shell}```\n```python\nx = 1\n```\n"
    assert commands(text) == [["boardq", "play", "go"], ["a"], ["b", "c d"]]


def test_a_command_the_parser_refuses_is_told_from_one_it_takes():
    assert parses(["play", "go", "--bogus"]) == 2
    assert parses(["train", "tictactoe", "--help"]) is None


def test_what_the_python_commands_name_exists():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    extras = project["project"]["optional-dependencies"]
    markers = {m.split(":")[0] for m in project["tool"]["pytest"]["ini_options"]["markers"]}
    python = [w for w in README_COMMANDS if w[:2] == ["python3", "-m"]]
    assert python, "the README shows no python3 -m command"
    for words in python:
        if words[2] == "pip":
            assert words[3:5] == ["install", "-e"], words
            target = words[5]
            assert target == "." or re.fullmatch(r"\.\[(\w+)\]", target), words
            assert target == "." or target[2:-1] in extras, f"no extra {target}"
        else:
            assert words[2] == "pytest", words
            assert words[3:] in ([], ["-m", "slow"], ["-m", "perf"]), words
            assert all(w in markers for w in words[4:]), words
    for mark in re.findall(r"`python3 -m pytest -m (\w+)`", README.read_text()):
        assert mark in markers, f"the README's `pytest -m {mark}` is no marker"


@pytest.mark.parametrize("argv", [w[1:] for w in BOARDQ], ids=shlex.join)
def test_every_boardq_command_of_the_readme_parses(argv):
    assert parses(argv) is None, f"boardq {shlex.join(argv)} is refused by the parser"


def test_the_readme_shows_every_command_once():
    names = sorted(words[1] for words in SHOWN)
    sub = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    assert names == sorted(sub[0].choices)


def test_train_knows_the_game_and_its_preset(tmp_path):
    for game in ("tictactoe", shown("train")[1]):
        result = boardq(["train", game, "--show-config"], tmp_path)
        assert result.returncode == 0, result.stderr
        assert json.loads(result.stdout)["game"] == game, result.stdout


def test_play_with_no_run_plays_the_agent_that_comes_with_boardq(tmp_path):
    result = boardq(shown("play"), tmp_path, stdin="quit\n")
    assert result.returncode == 0, result.stderr
    assert "against the agent that comes with boardq" in result.stdout
    assert result.stdout.rstrip().endswith("bye")


def test_gtp_answers_a_controller(tmp_path):
    result = boardq(shown("gtp"), tmp_path, stdin="name\nboardsize 9\ngenmove b\nquit\n")
    assert result.returncode == 0, result.stderr
    answers = [a for a in result.stdout.split("\n\n") if a.strip()]
    assert answers[0] == "= boardq" and answers[1] == "="
    assert re.fullmatch(r"= ([A-HJ][1-9]|pass)", answers[2]), answers


def test_league_replay_and_export_run_as_written(tmp_path):
    league = boardq(shown("league"), tmp_path)
    assert league.returncode == 0, league.stderr
    assert re.search(r"^  perfect\s+\d+", league.stdout, flags=re.M), league.stdout

    replay = shown("replay")
    record = Path(replay[1]).parent  # the README's file comes from a --record run
    kept = boardq([*shown("league"), "--games", "1", "--record", str(record)], tmp_path)
    assert kept.returncode == 0, kept.stderr
    result = boardq(replay, tmp_path, stdin="1\nend\nq\n")
    assert result.returncode == 0, result.stderr
    assert "the end:" in result.stdout

    export = boardq(shown("export"), tmp_path)
    assert export.returncode == 0, export.stderr
    assert (tmp_path / "connect_four.onnx").stat().st_size > 0
    assert json.loads((tmp_path / "connect_four.onnx.json").read_text())


@pytest.mark.timeout(START_SEC)
def test_serve_answers_in_the_browser(tmp_path):
    args = shown("serve")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TF_CPP_MIN_LOG_LEVEL": "3"}
    server = subprocess.Popen(
        [sys.executable, "-m", "boardq", *args, "--port", "0"],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        url = None
        for line in server.stdout:  # the agent loads, then the address is printed
            match = re.search(r"open (http://\S+/) in a browser", line)
            if match:
                url = match.group(1)
                break
        assert url, "boardq serve printed no address"
        with urllib.request.urlopen(url + "api/games", timeout=30) as answer:
            assert json.load(answer)["default"] == args[1]
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_the_python_example_runs_with_the_agent_that_comes_with_boardq(tmp_path):
    blocks = re.findall(r"^```python\n(.*?)^```", README.read_text(), flags=re.M | re.S)
    assert len(blocks) == 1, "the README shows one Python example"
    run = re.search(r'Agent\.load\("(runs/[^"]+)"\)', blocks[0]).group(1)
    code = blocks[0].replace(run, "bundled:tictactoe")  # no run yet: the shipped agent
    code += "\nassert 0 <= agent.act(obs) < 9 and len(agent.q_values(obs)) == 9\n"
    script = tmp_path / "example.py"
    script.write_text(code)
    result = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT), "TF_CPP_MIN_LOG_LEVEL": "3"},
        timeout=START_SEC,
        check=False,
    )
    assert result.returncode == 0, result.stderr


def test_the_commands_that_take_minutes_parse():
    for command in ("train", "evaluate", "bench"):
        assert parses(shown(command)) is None


# The docs' commands: placeholders as a reader fills them in, a run of a game by the
# agent file that comes with boardq for it (some commands check that a path exists).
RUN = r"^runs/(\w+)/[\w-]+(/[\w.-]+)?$"
AGENT = str(ROOT / "games" / r"\1" / "bundled-agent.npz")
PLACEHOLDERS = {
    "GAME": "tictactoe",
    "RUN_DIR": re.sub(RUN, AGENT, "runs/tictactoe/RUN"),
    "RUN_OR_AGENT": "bundled:tictactoe",
    "PATH": re.sub(RUN, AGENT, "runs/tictactoe/RUN"),
    "FILE": "game.sgf",
    "P": "2",
    "N": "2",
    "L": "1",
    "S": "0",
}


def docs_commands() -> list:
    """Each doc's `boardq` command as a test case: the doc, and the command filled in."""
    found = []
    for doc in sorted((ROOT / "docs").rglob("*.md")):
        name = str(doc.relative_to(ROOT))
        for words in commands(doc.read_text()):
            if "|" in words:  # a pipe: the command after it
                words = words[words.index("|") + 1 :]
            if words[:1] != ["boardq"] or words[1].endswith(":"):
                continue  # not boardq, or its output ("boardq replay: error: ...")
            if any(re.search(r"[\[\]]|\.\.\.", w) for w in words):
                continue  # a synopsis with [options] and ...
            filled = [PLACEHOLDERS.get(w, re.sub(RUN, AGENT, w)) for w in words[1:]]
            found.append(pytest.param(name, filled, id=f"{name}: {shlex.join(words)}"))
    return found


@pytest.mark.parametrize(("doc", "argv"), docs_commands())
def test_every_boardq_command_of_the_docs_parses(doc, argv):
    assert parses(argv) is None, f"{doc}: boardq {shlex.join(argv)} is refused by the parser"


@pytest.mark.parametrize(
    ("markexpr", "spread"),
    [
        ("not slow and not perf", True),  # pyproject's default: the README's test command
        ("not slow and not perf and not gui", True),
        ("slow", False),  # `pytest -m slow` trains against the clock
        ("perf", False),  # `pytest -m perf` times code
        ("slow or perf", False),
        ("not perf", False),  # chooses the slow checks too
        ("", False),  # no expression: every check
    ],
)
def test_only_the_default_checks_are_spread_over_processes(request, markexpr, spread):
    """The suite's `-n auto` asks tests/conftest.py how many processes to run in."""
    config = SimpleNamespace(option=SimpleNamespace(markexpr=markexpr))
    workers = request.config.hook.pytest_xdist_auto_num_workers(config=config)
    assert (workers > 0) is spread, workers
    assert workers <= 4
    addopts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]
    assert "-n auto" in addopts["ini_options"]["addopts"]
