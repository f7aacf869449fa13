"""Strength against time a move (`boardq.benchmark.timecurve`, scripts/strength_time.py)."""

from __future__ import annotations

import json

import pytest
from project_scripts import load_script

from boardq.benchmark import timecurve
from boardq.benchmark.timecurve import Cell
from boardq.players.factory import PlayerFactory
from boardq_games import get_game

TTT = get_game("tictactoe")


class CountingFactory(PlayerFactory):
    """The real factory, counting the opponents it builds (one a cell played) and the
    times it is told to end its engines."""

    made = closed = 0

    def make(self, spec, seed):
        self.made += 1
        return super().make(spec, seed)

    def close(self):
        self.closed += 1
        super().close()


@pytest.fixture(scope="module")
def factory():
    f = CountingFactory(TTT)
    f.evaluated = f.agent("bundled:tictactoe")
    return f


def test_measure_plays_each_cell_once_and_carries_on(factory, tmp_path):
    out = tmp_path / "curve.jsonl"
    cells = [Cell(s, 0.01, "random") for s in timecurve.SEARCHES]
    factory.made = factory.closed = 0
    rows = timecurve.measure(TTT, factory, cells, 2, out, log=lambda _: None)
    assert factory.made == 2
    assert factory.closed == 2  # an engine opponent ends with its cell, not with the run
    assert [(r["search"], r["move_time"], r["opponent"]) for r in rows] == [
        ("tree", 0.01, "random"),
        ("alpha-beta", 0.01, "random"),
    ]
    for r in rows:
        assert r["games"] == 4 and r["first/games"] == 2 and r["second/games"] == 2
        assert 0.0 <= r["score_low"] <= r["score"] <= r["score_high"] <= 1.0
        assert r["score"] == pytest.approx((r["first/score"] + r["second/score"]) / 2)
        assert r["moves"] >= 4 * 2 and r["move_sec_mean"] > 0  # at least 2 moves a game
        assert r["game"] == "tictactoe" and r["games_per_seat"] == 2
    # Again with one more time: only the new cell is played; the old lines stay as they were.
    before = out.read_text()
    rows = timecurve.measure(
        TTT, factory, [*cells, Cell("tree", 0.02, "random")], 2, out, log=print
    )
    assert factory.made == 3
    assert out.read_text().startswith(before)
    assert len(rows) == 3 and rows[2]["move_time"] == 0.02


class StoppingFactory(CountingFactory):
    """Its opponents raise KeyboardInterrupt at their `at`-th move, as Ctrl-C would."""

    at = 6

    def make(self, spec, seed):
        opponent, factory = super().make(spec, seed), self

        class Stops:
            moves = 0

            def act(self, observation):
                self.moves += 1
                if self.moves == factory.at:
                    raise KeyboardInterrupt
                return opponent.act(observation)

        return Stops()


def test_a_stopped_cell_keeps_its_games_and_is_played_again_whole(factory, tmp_path):
    out = tmp_path / "curve.jsonl"
    cell = Cell("alpha-beta", 0.01, "random")
    stopping = StoppingFactory(TTT)
    stopping.evaluated = factory.evaluated
    with pytest.raises(KeyboardInterrupt):
        timecurve.measure(TTT, stopping, [cell], 2, out, log=lambda _: None)
    # Random moves 2-5 times a game: its 6th move is in the 2nd-3rd game.
    (row,) = timecurve.load_rows(out)
    assert row["stopped"] == "interrupted (Ctrl-C)"
    assert 1 <= row["games"] < 4 and row["first/games"] == min(row["games"], 2)
    assert "stopped early" in timecurve.table([row])[2]
    rows = timecurve.measure(TTT, factory, [cell], 2, out, log=lambda _: None)
    assert len(rows) == 2 and "stopped" not in rows[1] and rows[1]["games"] == 4
    assert "stopped early" not in timecurve.table(rows)[2]  # the whole cell's line


def test_tree_cell_starts_from_a_fresh_tree(factory):
    player = factory.evaluated.searcher(move_time=0.01)
    env = TTT.make_env()
    env.reset(seed=0)
    player.act(env.observe(env.agent_selection))
    assert player.root is not None  # the agent's one tree searcher keeps its tree
    # A cell takes the same searcher, its kept tree dropped: the cell's games start afresh.
    assert timecurve._player(factory.evaluated, "tree", 0.01) is player
    assert player.root is None


def test_unknown_search_is_refused(factory):
    with pytest.raises(ValueError, match="search must be one of tree, alpha-beta"):
        timecurve._player(factory.evaluated, "minimax", 0.1)


def test_load_rows_names_a_bad_line(tmp_path):
    assert timecurve.load_rows(tmp_path / "none.jsonl") == []
    path = tmp_path / "bad.jsonl"
    path.write_text('{"search": "tree"}\n\n[1, 2]\n')
    with pytest.raises(ValueError, match=r"bad.jsonl:3: not a JSON object"):
        timecurve.load_rows(path)
    path.write_text('{"search": "tree"}\n{"search": \n')
    with pytest.raises(ValueError, match=r"bad.jsonl:2: not JSON"):
        timecurve.load_rows(path)


def _row(search, t, opponent, score, **extra):
    return {
        "search": search, "move_time": t, "opponent": opponent, "score": score,
        "score_low": score - 0.1, "score_high": min(1.0, score + 0.1), "games": 20.0,
        "first/score": score, "second/score": score, "move_sec_mean": t, **extra,
    }  # fmt: skip


def test_table_has_a_line_per_opponent_and_time_and_a_column_per_search():
    rows = [
        _row("tree", 1.0, "mcts:10000", 0.75, depth_mean=9.5),
        _row("alpha-beta", 1.0, "mcts:10000", 0.5, depth_mean=4.0),
        _row("tree", 0.1, "mcts:10000", 0.25, **{"lead/mean": -3.25}),
    ]
    lines = timecurve.table(rows)
    assert lines[0] == "| opponent | time a move | tree search | alpha-beta |"
    assert len(lines) == 4
    assert lines[2].startswith("| mcts:10000 | 0.1 s | 0.25 (0.15-0.35), 0.25 / 0.25, 20 games")
    assert "lead -3.2" in lines[2] and lines[2].endswith("| - |")  # no alpha-beta cell
    assert "0.75 (0.65-0.85)" in lines[3] and "depth 9.5" in lines[3]
    assert lines[3].endswith("0.50 (0.40-0.60), 0.50 / 0.50, 20 games; 1.00 s a move, depth 4.0 |")


def test_plot_writes_a_png(tmp_path):
    pytest.importorskip("matplotlib")
    rows = [_row(s, t, "random", 0.5) for s in timecurve.SEARCHES for t in (0.1, 1.0)]
    path = timecurve.plot(rows, tmp_path / "curve.png", "test")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_script_reports_a_file_and_refuses_bad_input(tmp_path, capsys):
    script = load_script("strength_time")
    out = tmp_path / "curve.jsonl"
    out.write_text(json.dumps(_row("tree", 0.3, "random", 1.0)) + "\n")
    assert script.main(["tictactoe", "--agent", "x", "--out", str(out), "--report-only"]) == 0
    assert "| random | 0.3 s | 1.00 (0.90-1.00)" in capsys.readouterr().out
    assert script.main(["tictactoe", "--agent", "bundled:tictactoe", "--out", str(out)]) == 1
    assert "give at least one --opponent" in capsys.readouterr().err
    args = ["tictactoe", "--agent", "bundled:tictactoe", "--opponent", "mcts:10", "--out", "x"]
    bad_args = (
        ["--times", "0.1,soon"],
        ["--times", "0,1"],
        ["--times", "nan"],
        ["--times", "1e999"],
        ["--games", "0"],
        ["--opening-plies", "-1"],
    )
    for bad in bad_args:
        with pytest.raises(SystemExit) as e:
            script.main(args + bad)
        assert e.value.code == 2
    out.write_text("not json\n")
    assert script.main(["tictactoe", "--agent", "x", "--out", str(out), "--report-only"]) == 1
    assert "curve.jsonl:1: not JSON" in capsys.readouterr().err
