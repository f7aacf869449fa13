"""`boardq evaluate` end to end: opponents by spec, lookahead, JSON, and one-line refusals.

The agents are exported without training (zero kernels, the output bias ranks the
moves), so they play known moves. Refusals happen before TensorFlow loads, so they
cost a fraction of a second each; the two real runs cost seconds.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]  # the checkout under test, not an installed copy
TTT_ORDER = [4, 0, 8, 6, 2, 3, 1, 5, 7]  # centre, corners, edges (PettingZoo actions)
C4_ORDER = [3, 2, 4, 1, 5, 0, 6]


@pytest.fixture(scope="module")
def agents(tmp_path_factory, preference_agent) -> Path:
    root = tmp_path_factory.mktemp("evaluate")
    preference_agent(root / "ttt.npz", "tictactoe", (3, 3, 2), TTT_ORDER)
    preference_agent(root / "ttt-edges.npz", "tictactoe", (3, 3, 2), TTT_ORDER[::-1])
    preference_agent(root / "c4.npz", "connect_four", (6, 7, 2), C4_ORDER)
    return root


def boardq(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "boardq", "evaluate", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=300,
        check=False,
    )


@pytest.mark.parametrize(
    "args, code, message",
    [
        (["--opponent", "mcts:0"], 2, "argument --opponent: bad player 'mcts:0': mcts simulations"),
        (["--opponent", "mcts:x"], 2, "expected a whole number of simulations, got 'x'"),
        (["--opponent", "bogus"], 2, "unknown player 'bogus'; expected one of random"),
        (["--opponent", "search:-1"], 2, "search plies must be >= 0, got -1"),
        (["--search", "-1"], 2, "argument --search: expected a whole number >= 0, got '-1'"),
        (["--search", "deep"], 2, "argument --search: expected a whole number, got 'deep'"),
        (["--move-time", "0"], 2, "argument --move-time: expected a number >= 0.001, got '0'"),
        (["--search", "2", "--move-time", "1"], 2, "argument --move-time: not allowed with"),
        (["--opponent", "agent:/missing"], 1, "agent file /missing does not exist"),
        (["--opponent", "agent:c4.npz"], 1, "c4.npz is an agent for 'connect_four'"),
    ],
)
def test_bad_opponents_and_depths_are_one_line(agents, args, code, message):
    result = boardq(["tictactoe", "--agent", "ttt.npz", *args], agents)
    assert result.returncode == code
    assert result.stdout == ""
    assert result.stderr.startswith("boardq evaluate: error: ")
    assert message in result.stderr and result.stderr.count("\n") == 1


@pytest.mark.parametrize(
    "args, message",
    [
        (["connect_four", "--agent", "c4.npz", "--opponent", "perfect"], "for tictactoe only"),
        (["tictactoe", "--agent", "missing.npz"], "agent file missing.npz does not exist"),
        (["tictactoe", "--agent", "c4.npz"], "c4.npz is an agent for 'connect_four'"),
    ],
)
def test_bad_agents_and_games_are_one_line_and_exit_1(agents, args, message):
    result = boardq(args, agents)
    assert result.returncode == 1, result.stderr
    assert message in result.stderr and result.stderr.count("\n") == 1
    assert "Traceback" not in result.stderr


def test_json_with_every_kind_of_opponent(agents):
    pytest.importorskip("pyspiel")
    opponents = ["random", "winblock", "perfect", "mcts:20", "agent:ttt-edges.npz", "search:0"]
    args = ["tictactoe", "--agent", "ttt.npz", "--games", "3", "--search", "1", "--json"]
    result = boardq(args + [x for o in opponents for x in ("--opponent", o)], agents)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["search_depth"] == 1 and report["games_per_seat"] == 3
    assert report["score"] == "mean points per game: win 1, draw 0.5, loss 0"
    assert report["rules_checked_by_openspiel"] is True
    assert list(report["opponents"]) == opponents
    for r in report["opponents"].values():
        for seat in ("first/", "second/"):
            assert r[seat + "games"] == 3
            assert r[seat + "win"] + r[seat + "draw"] + r[seat + "loss"] == pytest.approx(1)
            assert 0 <= r[seat + "score_low"] <= r[seat + "score"] <= r[seat + "score_high"] <= 1
        assert r["seconds"] > 0
        assert r["move_sec_max"] >= r["move_sec_mean"] > 0 and r["moves"] >= 6
    # Perfect play never loses; random play rarely wins.
    assert report["opponents"]["perfect"]["score"] <= 0.5
    assert report["opponents"]["random"]["score"] > 0.5


def test_a_time_per_move_says_how_deep_its_tree_searched(agents):
    args = ["connect_four", "--agent", "c4.npz", "--games", "1", "--opponent", "winblock"]
    result = boardq([*args, "--move-time", "0.05", "--json"], agents)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["move_time_sec"] == 0.05 and report["search_depth"] == 0
    r = report["opponents"]["winblock"]
    assert 1 <= r["depth_min"] <= r["depth_mean"] <= r["depth_max"]
    assert r["move_sec_max"] >= r["move_sec_mean"] > 0
    # That the search stops at its time is test_tree_player's, on a stepped clock; how close
    # the seconds come on a real one is test_a_time_per_move_is_kept_on_a_quiet_machine.
    text = boardq([*args, "--move-time", "0.05"], agents).stdout.splitlines()
    assert text[0] == "Connect Four: c4.npz (tree search of 0.05 s a move), 1 game per seat"
    assert re.search(r"; depth \d+\.\d on average, \d+-\d+\)$", text[5])


@pytest.mark.perf
def test_a_time_per_move_is_kept_on_a_quiet_machine(agents):
    args = ["connect_four", "--agent", "c4.npz", "--games", "1", "--opponent", "winblock"]
    result = boardq([*args, "--move-time", "0.05", "--json"], agents)
    assert result.returncode == 0, result.stderr
    # The time is checked between calls of the network: a move of 0.05 s ends well
    # within 0.5 s, where nothing else wants the cores.
    assert json.loads(result.stdout)["opponents"]["winblock"]["move_sec_max"] < 0.5


def test_visits_a_move_are_named_and_kept(agents):
    args = ["connect_four", "--agent", "c4.npz", "--games", "1", "--opponent", "tree:20"]
    result = boardq([*args, "--visits", "30", "--json"], agents)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["visits"] == 30 and report["move_time_sec"] is None
    text = boardq([*args, "--visits", "30"], agents).stdout.splitlines()
    assert text[0] == "Connect Four: c4.npz (tree search of 30 visits a move), 1 game per seat"


def test_text_table_for_connect_four(agents):
    args = ["connect_four", "--agent", "c4.npz", "--games", "2", "--opponent", "winblock"]
    result = boardq([*args, "--search", "2"], agents)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "Connect Four: c4.npz (depth-2 search), 2 games per seat"
    assert (
        lines[1] == "score = mean points per game (win 1, draw 0.5, loss 0), with its 95% interval"
    )
    assert lines[3].split()[:2] == ["winblock", "first"]
    assert lines[4].split()[0] == "second"
    assert lines[5].split()[0] == "both" and lines[5].endswith(" s)")
    assert re.search(r"; the agent's move \d+\.\d{3} s, at most \d+\.\d{3} s\)$", lines[5])
    counts = [int(x) for x in lines[3].split()[2:5]]
    assert sum(counts) == 2


def test_symmetric_agent_says_so_in_its_header_and_json(agents):
    args = ["connect_four", "--agent", "c4.npz", "--games", "2", "--opponent", "random"]
    result = boardq([*args, "--symmetric"], agents)
    assert result.returncode == 0, result.stderr
    first = result.stdout.splitlines()[0]
    assert first == (
        "Connect Four: c4.npz (greedy, no search, values averaged over 2 symmetries), "
        "2 games per seat"
    )
    report = json.loads(boardq([*args, "--symmetric", "--json"], agents).stdout)
    assert report["symmetries"] == 2
    assert json.loads(boardq([*args, "--json"], agents).stdout)["symmetries"] == 1


def test_an_agent_its_ladder_chose_played_symmetric_is_evaluated_so_unless_told_otherwise(
    agents, preference_agent
):
    # What a Connect Four preset run keeps as its best agent: the ladder played it
    # --symmetric (docs/training.md).
    info = {"ladder": "random,winblock,mcts:100 symmetric", "ladder_score": 0.9}
    preference_agent(agents / "c4-chosen.npz", "connect_four", (6, 7, 2), C4_ORDER, info=info)
    args = ["connect_four", "--agent", "c4-chosen.npz", "--games", "1", "--opponent", "random"]
    chosen = boardq(args, agents)
    assert chosen.returncode == 0 and chosen.stderr == "", chosen.stderr
    assert chosen.stdout.splitlines()[0] == (
        "Connect Four: c4-chosen.npz (greedy, no search, values averaged over 2 symmetries as "
        "its run chose), 1 game per seat"
    )
    report = json.loads(boardq([*args, "--json"], agents).stdout)
    assert report["symmetries"] == 2 and report["symmetric_as_its_run_chose"] is True
    alone = json.loads(boardq([*args, "--no-symmetric", "--json"], agents).stdout)
    assert alone["symmetries"] == 1 and alone["symmetric_as_its_run_chose"] is False
    # An agent without the mark plays its network alone unless --symmetric.
    plain = json.loads(
        boardq(["connect_four", "--agent", "c4.npz", "--games", "1", "--json"], agents).stdout
    )
    assert plain["symmetries"] == 1


def test_symmetric_for_a_game_without_symmetries_is_one_line(agents):
    game = "openspiel:breakthrough(rows=6,columns=6)"
    result = boardq([game, "--agent", "ttt.npz", "--symmetric"], agents)
    assert result.returncode == 1, result.stderr
    assert result.stderr == (
        "boardq evaluate: error: --symmetric needs board symmetries, and "
        "Breakthrough(columns=6,rows=6) has none\n"
    )


def test_mcts_without_openspiel_is_one_line(agents):
    code = (
        "import sys\n"
        "sys.modules['pyspiel'] = None  # as if OpenSpiel were not installed\n"
        "from boardq.commands import main\n"
        "sys.exit(main(['evaluate', *sys.argv[1:]]))\n"
    )
    args = ["tictactoe", "--agent", "ttt.npz", "--opponent", "mcts:5"]
    result = subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        cwd=agents,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=300,
        check=False,
    )
    assert result.returncode == 1
    assert result.stderr == (
        "boardq evaluate: error: OpenSpiel is not installed (pip install open_spiel); "
        "mcts opponents need it\n"
    )
