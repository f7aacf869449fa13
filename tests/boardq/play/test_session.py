"""Tests of the play loop in-process: Match (undo by replay) and Session with a stub agent.

No TensorFlow: the stub agent plays its most preferred legal move, like the exported
test agents in test_play.py.
"""

import io
import re

import numpy as np
import pytest
from rich.console import Console

from boardq.commands.agents import newest_agent
from boardq.commands.play import first_human_seat
from boardq.errors import EXIT_OK, AgentFileError
from boardq.play.match import Match
from boardq.play.session import LineReader, Session, View
from boardq.players.advisor import SharedAgent
from boardq.records import PlayerInfo
from boardq.search.spec import NETWORK, SearchSpec
from boardq_games import get_game

TTT = get_game("tictactoe")
C4 = get_game("connect_four")
TTT_TEXT = get_game("tictactoe").text


def ttt(*labels: int) -> list[int]:
    """Tic-tac-toe actions of cell numbers 1-9 (reading order)."""
    return [TTT_TEXT.parse(str(n), np.ones(9, bool)) for n in labels]


class PreferenceAgent:
    """Plays its most preferred legal move; records the boards it is asked about.

    A session's `Advisor`, whatever the search it is asked with.
    """

    def __init__(self, game, order: list[int]) -> None:
        self.values = np.zeros(game.num_actions)
        self.values[order] = np.linspace(0.9, -0.9, len(order))
        self.rules = game.rules
        self.seen: list[np.ndarray] = []

    def q_values(self, observation, search: SearchSpec = NETWORK) -> np.ndarray:
        q = self.values.copy()
        q[~np.asarray(observation["action_mask"], bool)] = np.nan
        return q

    def move(self, observation, search: SearchSpec = NETWORK) -> tuple[int, float]:
        self.seen.append(self.rules.board_from_planes(observation["observation"]))
        action = int(np.nanargmax(self.q_values(observation)))
        return action, float(self.values[action])

    def info(self, search: SearchSpec = NETWORK) -> PlayerInfo:
        return PlayerInfo("boardq agent", {"kind": "agent"})


def session(
    game, agent, script: str, hints: bool = False, search: SearchSpec = NETWORK, **kwargs
) -> tuple[Session, io.StringIO]:
    out = io.StringIO()
    console = Console(file=out, highlight=False, emoji=False, soft_wrap=True)
    view = View(console, game.text, ascii_only=True)
    reader = LineReader(console, io.StringIO(script))
    return Session(game, agent, view, reader, hints=hints, search=search, **kwargs), out


# --- Match ------------------------------------------------------------------------------------


def test_match_plays_through_the_env_and_reports_the_result():
    match = Match(TTT)
    for action in ttt(1, 4, 2, 5, 3):
        assert not match.over
        match.play(action)
    assert match.over and match.result() == 1
    assert match.board()[0].tolist() == [1, 1, 1]
    assert not match.legal().any()
    with pytest.raises(ValueError, match="over"):
        match.play(ttt(9)[0])


def test_match_refuses_illegal_moves_without_playing_them():
    match = Match(C4)
    for _ in range(6):
        match.play(3)
    with pytest.raises(ValueError, match="not legal"):
        match.play(3)
    with pytest.raises(ValueError, match="not legal"):
        match.play(-1)
    assert match.moves == [3] * 6 and not match.over and match.to_move == 0


def test_match_take_back_replays_the_rest():
    match = Match(TTT)
    for action in ttt(5, 1, 9):
        match.play(action)
    before = match.board()
    match.play(ttt(3)[0])
    match.take_back(1)
    np.testing.assert_array_equal(match.board(), before)
    assert match.to_move == 1 and match.last_move() == ttt(9)[0]
    match.take_back(3)
    assert match.moves == [] and match.to_move == 0 and match.last_move() is None
    with pytest.raises(ValueError):
        match.take_back(1)


def test_match_draw_and_second_player_win():
    draw = Match(TTT)
    for action in ttt(1, 5, 2, 3, 7, 4, 6, 9, 8):
        draw.play(action)
    assert draw.result() == 0
    lost = Match(C4)
    for action in [0, 3, 0, 3, 1, 3, 1, 3]:
        lost.play(action)
    assert lost.result() == -1


# --- Session ----------------------------------------------------------------------------------


def test_bad_input_plays_nothing_and_asks_the_same_player_again():
    agent = PreferenceAgent(C4, [6, 5, 4, 3, 2, 1, 0])
    bad = ["", "hello", "3.0", "1_0", "+3", "٣", "0", "-1", "8"]
    s, out = session(C4, agent, "\n".join(bad + ["2"]) + "\n")
    assert s.run(human_seat=0) == EXIT_OK
    text = out.getvalue()
    assert text.count("your move (X):") == len(bad) + 2
    assert text.count("legal moves: 1 2 3 4 5 6 7") == len(bad)
    # The agent was asked once, after the one real move: column 2.
    assert len(agent.seen) == 1
    expected = np.zeros((6, 7), np.int8)
    expected[5, 1] = -1  # the human's piece, from the agent's side
    np.testing.assert_array_equal(agent.seen[0], expected)
    assert "there is no column 0" in text and "'+3' is not a move" in text
    assert text.rstrip().endswith("bye")


def test_undo_takes_back_the_move_and_the_reply_then_nothing():
    agent = PreferenceAgent(TTT, ttt(5, 1, 9, 3, 7, 2, 4, 6, 8))
    s, out = session(TTT, agent, "3\nundo\nundo\n1\nquit\n")
    assert s.run(human_seat=0) == EXIT_OK
    text = out.getvalue()
    assert "took back your last move and the agent's reply" in text
    assert "nothing to undo" in text
    # After the undo the agent saw only the new move (cell 1), not cell 3.
    assert [np.count_nonzero(b) for b in agent.seen] == [1, 1]
    assert agent.seen[1][0].tolist() == [-1, 0, 0]


def test_undo_when_the_agent_moved_first_keeps_its_first_move():
    agent = PreferenceAgent(TTT, ttt(5, 1, 9, 3, 7, 2, 4, 6, 8))
    s, out = session(TTT, agent, "2\nundo\nquit\n")
    s.run(human_seat=1)
    after_undo = out.getvalue().split("took back")[1].splitlines()
    row_2 = next(line for line in after_undo if line.startswith(" 2 "))
    assert row_2 == " 2   4 |[X]| 6"  # the agent's 5 stays, highlighted
    assert "took back your last move and the agent's reply" in out.getvalue()


def test_hint_lists_the_humans_legal_moves_best_first():
    agent = PreferenceAgent(TTT, ttt(5, 1, 9, 3, 7, 2, 4, 6, 8))
    s, out = session(TTT, agent, "hint\nquit\n", hints=True)
    s.run(human_seat=1)
    text = out.getvalue()
    assert "agent (X) plays 5 (b2)\n" in text and "searched" not in text  # no search, no time
    assert "agent's values of its moves: 5 +0.90, 1 +0.68, 9 +0.45" in text
    assert "the agent's values of your moves: 1 +0.68, 9 +0.45, 3 +0.22" in text


def test_seats_swap_and_the_score_is_kept():
    agent = PreferenceAgent(TTT, ttt(5, 1, 9, 3, 7, 2, 4, 6, 8))
    script = "3\n1\n2\nmaybe\ny\n2\n9\n8\ny\n1\n2\n6\n7\n8\nn\n"
    s, out = session(TTT, agent, script)
    assert s.run(human_seat=0) == EXIT_OK
    text = out.getvalue()
    assert "You win!" in text and "The agent wins." in text and "Draw." in text
    assert "answer y or n" in text
    assert "Game 2: you are O; the agent is X and moves first." in text
    assert s.score == {"won": 1, "drawn": 1, "lost": 1}


def test_end_of_input_says_bye_and_exits_normally():
    agent = PreferenceAgent(TTT, list(range(9)))
    s, out = session(TTT, agent, "5")  # no newline, then EOF
    assert s.run(human_seat=0) == EXIT_OK
    assert out.getvalue().rstrip().endswith("bye")


def test_first_seat_choice():
    assert first_human_seat("human") == 0
    assert first_human_seat("agent") == 1
    seats = {first_human_seat("random", seed) for seed in range(20)}
    assert seats == {0, 1}
    assert first_human_seat("random", 7) == first_human_seat("random", 7)


def test_newest_agent_is_the_last_written(tmp_path):
    import os

    for name, mtime in [("20250101-000000", 200), ("20240101-000000", 100)]:
        run = tmp_path / "tictactoe" / name
        run.mkdir(parents=True)
        (run / "agent.npz").write_bytes(b"x")
        os.utime(run / "agent.npz", (mtime, mtime))
    (tmp_path / "tictactoe" / "20260101-000000").mkdir()  # a run without an agent yet
    assert newest_agent(tmp_path, "tictactoe").name == "20250101-000000"  # the run directory
    with pytest.raises(AgentFileError, match="boardq train connect_four"):
        newest_agent(tmp_path, "connect_four")


def test_a_searching_agent_blocks_and_hints_show_the_searched_values():
    from boardq.search.alphabeta import SearchPlayer

    # The network alone would answer 1 with 5, then 2 with 9 (its taste), never blocking.
    taste = PreferenceAgent(TTT, ttt(5, 9, 1, 3, 7, 2, 4, 6, 8))

    def q_batch(planes):
        return np.tile(taste.values, (len(planes), 1))

    class Searching:
        """An agent file's `Agent` as `SharedAgent` asks it: its player of any search."""

        path = "searching"

        def player(self, search):
            return searcher

    searcher = SearchPlayer(TTT.rules, q_batch, depth=2)
    depth_2 = SearchSpec.alpha_beta(depth=2)
    script = "1\n2\nhint\nquit\n"
    s, out = session(TTT, SharedAgent(Searching()), script, hints=True, search=depth_2)
    s.run(human_seat=0)
    text = out.getvalue()
    assert re.search(r"agent \(O\) plays 5 \(b2\) \(searched \d+\.\d\d s\)\n", text)
    assert "agent (O) plays 3 (c1)" in text  # blocks the top row
    assert "agent's depth-2 search values of its moves: 3 " in text
    # X to move after 1, 2 / 5, 3: every move but 7 lets O win on the diagonal 3-5-7.
    hint = text.split("the agent's depth-2 search values of your moves: ")[1].splitlines()[0]
    assert hint.startswith("7 ")
    assert hint.count("-0.99") == 4  # 4, 6, 8, 9: lost on the reply


def test_a_handicap_game_starts_with_blacks_stones_whoever_plays_black(tmp_path):
    from boardq.players.evaluation import fixed_handicap
    from boardq.records import read_records

    go = get_game("go")
    handicap = fixed_handicap(go, 3)
    stones = handicap.points  # C7 G7 C3
    agent = PreferenceAgent(go, [40, 30, 50, 22, 58])  # E5, D6, F4, E7, E3
    script = "D4\nundo\nundo\nD4\nsave " + str(tmp_path / "h.sgf") + "\nquit\n"
    s, out = session(go, agent, script, handicap=handicap)
    s.run(human_seat=0)
    text = out.getvalue()
    assert "Game 1: you are X with 3 handicap stones; the agent is O.\nWhite moves first." in text
    # The agent (white) moved first and saw the three stones.
    board = agent.seen[0][:81]  # the points; what follows is the position's state
    assert np.count_nonzero(board == -1) == 3 and np.count_nonzero(board) == 3
    assert "took back your last move and the agent's reply" in text
    assert "nothing to undo: you have not moved yet in this game" in text  # stones stay
    [record] = read_records(tmp_path / "h.sgf").records
    assert record.settings["handicap"] == 3
    assert record.actions == [stones[0], 81, stones[1], 81, stones[2], 40, 48, 30]  # D4 48
    # As white, the person moves first against the agent's stones.
    agent = PreferenceAgent(go, [40, 30, 22, 58])  # E5, D6, E7, E3: D6 valued +0.3
    s, out = session(go, agent, "E5\nquit\n", handicap=handicap)
    s.run(human_seat=1)
    text = out.getvalue()
    assert "you are O; the agent is X with 3 handicap stones" in text
    assert "agent (X) plays D6" in text
    assert np.count_nonzero(agent.seen[0][:81] == 1) == 3  # its stones, seen as the mover's


def test_the_agent_resigns_a_lost_game_past_the_opening_only(tmp_path):
    # Connect Four: 42 points, so no resigning in the first 10 plies; every value -0.8
    # is a win rate of 0.1, under 0.2. The agent moves first and stacks the leftmost
    # column it can; the person stacks on it, then on the next.
    agent = PreferenceAgent(C4, list(range(7)))
    agent.values[:] = -0.8
    script = "1\n1\n1\n2\n2\nn\n"
    s, out = session(C4, agent, script, resign_below=0.2, record_to=tmp_path / "g.jsonl")
    assert s.run(human_seat=1) == EXIT_OK
    text = out.getvalue()
    assert "agent (X) resigns" in text and "You win!" in text
    assert s.score == {"won": 1, "drawn": 0, "lost": 0}
    record = s.last_record
    assert record.result == -1 and "resigned" in record.result_text
    assert len(record.moves) == 10  # its move at ply 10 was the resignation
    # A threshold it never falls under: it plays on.
    s, out = session(C4, agent, script, resign_below=0.05)
    s.run(human_seat=1)
    assert "resigns" not in out.getvalue()


def test_a_go_game_with_another_komi_is_counted_with_it_and_says_so_once():
    go = get_game("go")
    agent = PreferenceAgent(go, [40, 81])
    agent.values[:] = -1.0
    agent.values[[40, 81]] = [0.9, 0.5]  # E5, then it passes
    s, out = session(go, agent, "pass\nn\n", komi=0.5)
    s.run(human_seat=1)
    text = out.getvalue()
    assert text.count("the agent learnt Go with komi 7.5") == 1
    record = s.last_record
    assert record.settings["komi"] == 0.5
    assert record.result == 1 and record.result_text == "B+80.5"  # 81 points, komi 0.5
    s, out = session(go, agent, "pass\nn\n", komi=7.5)  # the game's own: nothing said
    s.run(human_seat=1)
    assert "learnt" not in out.getvalue() and s.last_record.result_text == "B+73.5"
