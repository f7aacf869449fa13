"""A game added by nothing but the steps of docs/games.md ("Adding your own game").

The page's code blocks are written to a package of their own, `noughts`, beside the
project; its entry point is registered as `pip install` would (a .dist-info folder
on the path), and then the game is checked as the project's games are, trained and
evaluated by name through the command line.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[1] / "docs" / "games.md"
STEP = re.compile(r"^\d+\. `([\w/]+\.py)`", re.M)
BLOCK = re.compile(r"^```(\w+)\n(.*?)^```", re.M | re.S)


def steps_from_docs() -> tuple[dict[str, str], dict[str, dict[str, str]]]:
    """The files the section's steps name, and its entry points (group -> name -> value)."""
    text = DOC.read_text()
    section = text[text.index("## Adding your own game") :]
    section = section[: section.index("\n## ", 3)]
    files: dict[str, str] = {}
    entry_points: dict[str, dict[str, str]] = {}
    for block in BLOCK.finditer(section):
        language, code = block.group(1), block.group(2)
        if language == "toml":
            for group, names in tomllib.loads(code)["project"]["entry-points"].items():
                entry_points.setdefault(group, {}).update(names)
        else:
            steps = STEP.findall(section[: block.start()])
            assert steps, "every python block follows the step naming its file"
            files[steps[-1]] = code
    return files, entry_points


def install(root: Path, files: dict[str, str], entry_points: dict[str, dict[str, str]]) -> None:
    for name, code in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(code)
    dist = root / "noughts-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: noughts\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text(
        "".join(
            f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in names.items())
            for group, names in entry_points.items()
        )
    )


def test_the_page_names_each_file_and_the_entry_point():
    files, entry_points = steps_from_docs()
    assert sorted(files) == ["noughts/__init__.py", "noughts/env.py", "noughts/text.py"]
    assert entry_points == {"boardq.games": {"noughts": "noughts:CATALOG"}}


@pytest.mark.timeout(400)
def test_a_game_added_by_the_pages_steps_is_checked_trained_and_evaluated(tmp_path):
    install(tmp_path, *steps_from_docs())
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(tmp_path), env.get("PYTHONPATH")]))

    def run(*args: str) -> subprocess.CompletedProcess:
        done = subprocess.run(
            [sys.executable, *args], cwd=tmp_path, env=env, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stdout + done.stderr
        return done

    # The checks the project's own games pass (docs/games.md, "Tests go under...").
    run(
        "-c",
        "from boardq.catalog import game_names, get_game\n"
        "from boardq_games.env_check import (\n"
        "    random_games, reward_differences, symmetry_differences)\n"
        "from pettingzoo.test import api_test\n"
        "game = get_game('Noughts')\n"
        "assert 'noughts' in game_names() and 'tictactoe' in game_names()\n"
        "api_test(game.make_env(), num_cycles=30)\n"
        "played = random_games(game, 20)\n"
        "assert reward_differences(game, played) == []\n"
        "assert symmetry_differences(game, played) == []\n"
        "assert game.text.label(4) == 'b2'\n",
    )
    run(
        "-m", "boardq", "train", "noughts", "--budget-steps", "300", "--warmup-transitions",
        "1000", "--eval-games", "0", "--hidden-units", "32", "--out-dir", "runs",
    )  # fmt: skip
    (run_dir,) = (tmp_path / "runs").glob("noughts/*/")
    report = json.loads(
        run(
            "-m", "boardq", "evaluate", "noughts", "--agent", str(run_dir), "--opponent",
            "random", "--opponent", "mcts:5", "--games", "3", "--json",
        ).stdout
    )  # fmt: skip
    assert report["games_per_seat"] == 3
    assert sorted(report["opponents"]) == ["mcts:5", "random"]
