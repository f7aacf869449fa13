"""`boardq play` end to end: scripted games through a pipe, bad agent files, and the
lookahead and symmetric values. On a pseudo-terminal: test_play_terminal.py.

The agents are exported without training: every kernel is zero and the output bias
ranks the actions, so an agent always plays its most preferred legal move and every
game below is known in advance (tests/support/play_runs.py). Each run imports
TensorFlow (seconds), so several checks share one scripted session.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from play_runs import lines_after, play, text_of, write_play_agents


@pytest.fixture(scope="module")
def agents(tmp_path_factory, preference_agent) -> Path:
    """A directory with runs/ (two tic-tac-toe runs) and loose agent files."""
    return write_play_agents(tmp_path_factory.mktemp("play"), preference_agent)


# --- piped games -------------------------------------------------------------------------------


def test_won_lost_and_drawn_tictactoe_with_the_newest_agent(agents):
    script = "\n".join(
        ["c1", "1", "B1", "y"]  # game 1, X: 3 1 2 wins the top row
        + ["2", "9", "8", "y"]  # game 2, O: the agent's 5 1 3 7 wins the diagonal
        + ["1", "2", "6", "7", "8", "n"]  # game 3, X: a draw
    )
    result = play(["tictactoe", "--ascii"], script + "\n", cwd=agents)
    out = text_of(result)
    assert result.returncode == 0
    assert out.isascii()
    assert "against the agent in runs/tictactoe/20250101-000000/agent.npz" in out
    assert out.index("You win!") < out.index("The agent wins.") < out.index("Draw.")
    assert "Game 2: you are O; the agent is X and moves first." in out
    assert "Game 3: you are X and move first; the agent is O." in out
    won = out.split("You win!")[0].splitlines()
    assert " 1  (X)|[X]|(X)" in won  # the winning move in brackets, its line in parentheses
    lost = out.split("The agent wins.")[0].splitlines()
    assert " 3  [X]| O | O" in lost
    assert "score: you won 1, drew 1, lost 1" in out
    assert out.rstrip().endswith("bye")


def test_bad_input_commands_undo_and_quit(agents):
    bad = ["", "hello", "3.0", "1_0", "+3", "٣", "0", "-1", "10", "d4"]
    script = bad + ["5", "5", "a1", "moves", "hint", "help", "undo", "undo", "quit", "9"]
    result = play(["tictactoe", "--agent", "ttt.npz", "--hints"], "\n".join(script) + "\n", agents)
    out = text_of(result)
    assert result.returncode == 0
    for message in [
        "no move typed",
        "'hello' is not a move",
        "'3.0' is not a move",
        "'1_0' is not a move",
        "'+3' is not a move",
        "'٣' is not a move",
        "there is no cell 0: the cells are numbered 1-9",
        "there is no cell -1",
        "there is no cell 10",
        "there is no cell d4: columns are a-c, rows 1-3",
        "cell 5 (b2) is taken",
        "cell 1 (a1) is taken",
        "nothing to undo",
    ]:
        assert message in out, message
    assert out.count("legal moves: 1 2 3 4 5 6 7 8 9") == len(bad)
    assert out.count("legal moves: 2 3 4 6 7 8 9") == 3  # after "5", "a1" and moves
    assert out.count("agent (O) plays") == 1  # nothing but the "5" was ever played
    assert "agent (O) plays 1 (a1)" in out
    assert "agent's values of its moves: 1 +0.68, 9 +0.45" in out  # --hints
    assert "the agent's values of your moves: 9 +0.45, 3 +0.22" in out  # hint
    assert "column letter a-c" in out and "undo    take back" in out  # help
    after_undo = lines_after(out, "took back your last move and the agent's reply")
    assert after_undo[2:8] == [
        " 1   1 │ 2 │ 3",
        "    ───┼───┼───",
        " 2   4 │ 5 │ 6",
        "    ───┼───┼───",
        " 3   7 │ 8 │ 9",
        "",
    ]
    assert out.rstrip().endswith("your move (X): quit\nbye")


def test_connect_four_full_column_zero_won_and_lost(agents):
    bad = ["4", "0", "8", "-1", "3.0", "1_0", "+3", "٣", "", "words"]
    script = ["4", "4", "4"] + bad + ["1", "1", "1", "1", "y", "1", "1", "1"]
    result = play(["connect_four", "--agent", "c4.npz"], "\n".join(script) + "\n", agents)
    out = text_of(result)
    assert result.returncode == 0  # the input ends at "play again?"
    assert "column 4 is full" in out
    assert "there is no column 0: the columns are numbered 1-7" in out
    assert "there is no column 8" in out and "there is no column -1" in out
    assert out.count("legal moves: 1 2 3 5 6 7") == len(bad)
    game_1, game_2 = out.split("You win!")
    boards = [line for line in game_1.splitlines() if line.startswith("│")]
    assert boards and all(line[20] == "·" for line in boards)  # column 7 never played
    assert "│ ○  ·  ·  ●  ·  ·  · │" not in game_1  # 0 never dropped a piece anywhere
    assert "Game 2: you are ○; the agent is ● and moves first." in game_2
    assert "The agent wins." in game_2
    assert "│ ·  ·  · [●] ·  ·  · │" in game_2
    assert "score: you won 1, drew 0, lost 1" in game_2
    assert game_2.rstrip().endswith("play again? [y/n] \nbye")


# --- bad agent files ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args, message",
    [
        (["--agent", "missing.npz"], "agent file missing.npz does not exist"),
        (["--agent", "corrupt.npz"], "corrupt.npz is not a boardq agent file"),
        (["--agent", "c4.npz"], "c4.npz is an agent for 'connect_four', not for 'tictactoe'"),
        (["--agent", "misfit.npz"], "misfit.npz: its network takes (6, 7, 2) planes"),
    ],
)
def test_a_bad_agent_file_is_one_line_and_exit_1(agents, args, message):
    result = play(["tictactoe", *args], "5\n", cwd=agents)
    assert result.returncode == 1
    assert result.stdout == b""
    err = result.stderr.decode()
    assert err.startswith("boardq play: error: ") and message in err
    assert err.count("\n") == 1


def test_no_run_and_no_agent_that_comes_with_the_game_says_how_to_train_one(agents):
    # Games built from a name ship no agent; tic-tac-toe's would play (test_bundled.py).
    result = play(["openspiel:tic_tac_toe", "--runs-dir", "nowhere"], "5\n", cwd=agents)
    assert result.returncode == 1 and result.stdout == b""
    err = result.stderr.decode()
    assert err.startswith("boardq play: error: no trained openspiel:tic_tac_toe agent in nowhere/")
    assert "train one with `boardq train openspiel:tic_tac_toe`" in err
    assert err.count("\n") == 1


# --- lookahead -------------------------------------------------------------------------------


@pytest.fixture
def this_checkout(monkeypatch):
    """Runs the checkout under test, also where the installed `boardq` is another copy."""
    monkeypatch.setenv("PYTHONPATH", str(Path(__file__).resolve().parents[3]))


@pytest.mark.usefixtures("this_checkout")
def test_search_blocks_a_threat_the_network_would_ignore(agents):
    # X: 1 then 2 threatens the top row. The agent's taste answers 5 then 1 (taken), 9.
    result = play(
        ["tictactoe", "--agent", "ttt.npz", "--search", "2"], "1\n2\nhint\nquit\n", agents
    )
    out = text_of(result)
    assert result.returncode == 0
    assert "against the agent in ttt.npz, searching 2 moves ahead" in out
    assert "agent (O) plays 5 (b2)" in out
    assert "agent (O) plays 3 (c1)" in out  # the block, not its favourite 9
    assert "the agent's depth-2 search values of your moves: 7 " in out


@pytest.mark.usefixtures("this_checkout")
def test_a_time_per_move_blocks_the_threat_too(agents):
    result = play(
        ["tictactoe", "--agent", "ttt.npz", "--move-time", "0.5"], "1\n2\nhint\nquit\n", agents
    )
    out = text_of(result)
    assert result.returncode == 0
    assert "against the agent in ttt.npz, tree search of 0.5 s a move" in out
    assert "agent (O) plays 3 (c1)" in out  # the block
    assert "the agent's tree search of 0.5 s a move values of your moves: " in out


@pytest.mark.usefixtures("this_checkout")
def test_symmetric_values_move_the_agent_from_the_edge_to_the_centre(agents, preference_agent):
    # Columns valued 0.9, 0.6, 0.3, ... in the order 1 4 3 5 2 6 7: alone the network
    # opens in column 1; averaged with the mirror image, column 1 is worth (0.9 - 0.9) / 2
    # and column 4 keeps its 0.6.
    preference_agent(agents / "c4-edge.npz", "connect_four", (6, 7, 2), [0, 3, 2, 4, 1, 5, 6])
    args = ["connect_four", "--agent", "c4-edge.npz", "--first", "agent"]
    plain = text_of(play(args, "quit\n", agents))
    symmetric = text_of(play([*args, "--symmetric"], "quit\n", agents))
    assert "│[●] ·  ·  ·  ·  ·  · │" in plain  # the bottom row: the agent's first piece
    assert "│ ·  ·  · [●] ·  ·  · │" in symmetric
    assert "against the agent in c4-edge.npz, values averaged over 2 symmetries" in symmetric


@pytest.mark.usefixtures("this_checkout")
def test_an_agent_its_ladder_chose_played_symmetric_plays_so_unless_told_otherwise(
    agents, preference_agent
):
    # A best agent its run's ladder played --symmetric (the Connect Four preset's), with
    # the edge-loving values above: averaged it opens in the centre, alone at the edge.
    info = {"ladder": "random,winblock,mcts:100 symmetric", "ladder_score": 0.9}
    preference_agent(
        agents / "c4-chosen.npz", "connect_four", (6, 7, 2), [0, 3, 2, 4, 1, 5, 6], info=info
    )
    args = ["connect_four", "--agent", "c4-chosen.npz", "--first", "agent"]
    chosen = text_of(play(args, "quit\n", agents))
    alone = text_of(play([*args, "--no-symmetric"], "quit\n", agents))
    assert "│ ·  ·  · [●] ·  ·  · │" in chosen
    assert (
        "against the agent in c4-chosen.npz, values averaged over 2 symmetries as its run "
        "chose (--no-symmetric: the network alone)"
    ) in chosen
    assert "│[●] ·  ·  ·  ·  ·  · │" in alone
    assert "averaged" not in alone


@pytest.mark.usefixtures("this_checkout")
def test_symmetric_for_a_game_without_symmetries_is_one_line_and_exit_1(agents):
    game = "openspiel:breakthrough(rows=6,columns=6)"
    result = play([game, "--agent", "ttt.npz", "--symmetric"], "", agents)
    assert result.returncode == 1
    assert result.stderr.decode() == (
        "boardq play: error: --symmetric needs board symmetries, and "
        "Breakthrough(columns=6,rows=6) has none\n"
    )


@pytest.mark.usefixtures("this_checkout")
@pytest.mark.parametrize("depth", ["-1", "two"])
def test_a_bad_search_depth_is_one_line_and_exit_2(agents, depth):
    result = play(["tictactoe", "--agent", "ttt.npz", "--search", depth], "", agents)
    assert result.returncode == 2
    err = result.stderr.decode()
    assert err.startswith("boardq play: error: argument --search: expected a whole number")
    assert err.count("\n") == 1


@pytest.mark.usefixtures("this_checkout")
@pytest.mark.parametrize(
    "game, stones, code, message",
    [
        ("tictactoe", "2", 1, "--handicap 2: Tic-tac-toe has no handicap stones"),
        ("go", "10", 1, "--handicap 10: Go places 2-9 handicap stones, not 10"),
        ("go", "1", 2, "argument --handicap:"),
    ],
)
def test_a_handicap_the_game_cannot_have_is_one_line(agents, game, stones, code, message):
    agent = "ttt.npz" if game == "tictactoe" else "bundled"
    result = play([game, "--agent", agent, "--handicap", stones], "", agents)
    assert result.returncode == code and result.stdout == b""
    err = result.stderr.decode()
    assert err.startswith("boardq play: error: ") and message in err
    assert err.count("\n") == 1
