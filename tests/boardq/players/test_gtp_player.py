"""GTP engines as players: tiny fake engines for every failure, and the real ones.

Each failure (not found, not GTP, dying, hanging, an illegal or unreadable move) must
stop the match with one `EngineError` that names the engine, and leave no process
behind: the tests compare this process's children before and after.
"""

from __future__ import annotations

import os
import sys
import textwrap
from pathlib import Path

import pytest

from boardq.catalog import get_game
from boardq.errors import BoardqError
from boardq.gtp.client import EngineError, find_program
from boardq.gtp.player import GtpPlayer, check_engine, engine_warnings, opening_plies
from boardq.players.evaluation import Openings, RandomPlayer, evaluate, play_game

GO = get_game("go")
OTHELLO = get_game("othello")
GNUGO = "gnugo --mode gtp --level 1 --chinese-rules --capture-all-dead"
needs_gnugo = pytest.mark.skipif(
    find_program("gnugo") is None, reason="GNU Go is not installed (apt-get install gnugo)"
)
needs_grhino = pytest.mark.skipif(
    find_program("gtp-rhino") is None, reason="GRhino is not installed (apt-get install grhino)"
)

FAKE = textwrap.dedent(
    """
    import sys, time
    mode, arg = (sys.argv[1:] + ["", ""])[:2]
    if mode == "banner":
        print("Hello! Type a move:", flush=True)
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        name = words[0]
        if mode == "die" and name == arg:
            print("fake: out of memory", file=sys.stderr, flush=True)
            sys.exit(3)
        if mode == "hang" and name == arg:
            time.sleep(600)
        answers = {"protocol_version": "2", "name": "Fake", "version": "1.0",
                   "list_commands": "protocol_version\\nname\\nversion\\nboardsize\\n"
                   "clear_board\\nplay\\ngenmove\\nquit",
                   "genmove": arg if mode == "move" else "pass"}
        if mode == "refuse" and name == arg:
            print("? no thanks\\n", flush=True)
        else:
            print("= " + answers.get(name, "") + "\\n", flush=True)
        if name == "quit":
            break
    """
)


@pytest.fixture
def fake(tmp_path) -> str:
    path = tmp_path / "fake_engine.py"
    path.write_text(FAKE)
    return f"{sys.executable} {path}"


def children() -> set[int]:
    """This process's child processes (zombies included)."""
    found = set()
    for task in Path(f"/proc/{os.getpid()}/task").iterdir():
        try:
            found.update(int(p) for p in (task / "children").read_text().split())
        except (FileNotFoundError, ProcessLookupError):
            pass  # a thread that ended while listed (say, a web server's worker) has none
    return found


@pytest.fixture
def no_process_left():
    """Fails the test if a child process it started is still there (running or a zombie)."""
    if not Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children").exists():
        pytest.skip("this kernel does not list a process's children in /proc")
    before = children()
    yield
    left = children() - before
    assert not left, f"processes left behind: {left}"


def go_game(engine: GtpPlayer, seed: int = 0) -> int:
    return play_game(GO.make_env, (RandomPlayer(seed), engine), seed)


def test_a_fake_engine_plays_through_boardqs_rules(fake, no_process_left):
    engine = GtpPlayer(GO, f"{fake} move pass")
    try:
        assert engine.title.startswith("Fake 1.0 (")
        # It passes every move, so random play wins or loses by boardq's count alone.
        assert go_game(engine) in (-1, 0, 1)
        assert engine.summary()["engine/games"] == 1.0
        assert engine.summary()["engine/scored"] == 0.0  # it cannot count (no final_score)
    finally:
        engine.close()


@pytest.mark.parametrize(
    "args, message",
    [
        ("banner", "is not a GTP engine: .* answered 'protocol_version' outside GTP: 'Hello!"),
        ("die protocol_version", "is not a GTP engine:"),
        (
            "refuse boardsize",
            r"cannot set up the game: Fake 1.0 .* refused 'boardsize 9': no thanks",
        ),
    ],
)
def test_engines_that_cannot_start_a_game(fake, no_process_left, args, message):
    with pytest.raises(EngineError, match=message) as caught:
        engine = GtpPlayer(GO, f"{fake} {args}")
        go_game(engine)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(
    "args, message",
    [
        (
            "die genmove",
            r"Fake 1.0 \(.*\) ended \(exit code 3\) at 'genmove white'; "
            "it said: fake: out of memory",
        ),
        ("die play", r"ended \(exit code 3\) at 'play black "),
        (
            "move E5",
            r"answered 'genmove white' with 'E5', which is not legal here by boardq's rules",
        ),
        ("move Z99", r"answered 'genmove white' with 'Z99', which is no move"),
        ("refuse play", r"refused 'play black .*': no thanks \(legal in boardq's rules\)"),
    ],
)
def test_failures_mid_game_are_one_line_and_end_the_engine(fake, no_process_left, args, message):
    engine = GtpPlayer(GO, f"{fake} {args}")
    try:
        with pytest.raises(EngineError, match=message) as caught:
            # Random black plays E5 first in this game, so E5 is taken when white moves.
            play_game(GO.make_env, (OpeningE5(), engine), 0)
        assert "\n" not in str(caught.value)
    finally:
        engine.close()


class OpeningE5(RandomPlayer):
    """Plays E5 first, then random moves."""

    def __init__(self):
        super().__init__(0)
        self.first = True

    def act(self, observation):
        if self.first:
            self.first = False
            return GO.gtp.action("E5")
        return super().act(observation)


@pytest.mark.timeout(120)  # the fake engine hangs for 600 s: only the timeout ends the game
def test_an_engine_that_hangs_is_stopped_after_its_timeout(fake, no_process_left):
    # The handshake has the default timeout (a process that starts on a busy machine may
    # take over a second); then each answer has 1 s.
    engine = GtpPlayer(GO, f"{fake} hang genmove")
    engine.engine.timeout_sec = 1.0
    try:
        with pytest.raises(EngineError, match=r"did not answer 'genmove white' within 1 s"):
            go_game(engine)
    finally:
        engine.close()


def test_an_engine_that_resigns_loses(fake, no_process_left):
    engine = GtpPlayer(GO, f"{fake} move resign")
    try:
        assert play_game(GO.make_env, (RandomPlayer(0), engine), 0) == 1
        assert play_game(GO.make_env, (engine, RandomPlayer(0)), 1) == -1
        assert engine.summary()["engine/resigned"] == 2.0
    finally:
        engine.close()


def test_commands_that_cannot_be_engines(tmp_path):
    with pytest.raises(
        EngineError, match="engine 'no-such-engine' not found on PATH or in /usr/games"
    ):
        check_engine("no-such-engine --mode gtp", GO)
    with pytest.raises(BoardqError, match="GTP engines play .*go.*; Breakthrough.*'s have none"):
        check_engine("gnugo", get_game("openspiel:breakthrough(rows=6,columns=6)"))
    with pytest.raises(EngineError, match="cannot read the engine command"):
        check_engine('gnugo "--mode', GO)


def test_gnu_go_without_the_area_flags_is_warned_about():
    assert len(engine_warnings("gnugo --mode gtp", GO)) == 2
    assert engine_warnings(GNUGO, GO) == []
    assert engine_warnings("gtp-rhino -l 1", OTHELLO) == []


@needs_gnugo
def test_gnu_go_plays_seeded_games_and_its_count_agrees(no_process_left):
    engine = GtpPlayer(GO, GNUGO, seed=5)
    try:
        assert engine.seeded and engine.scores and opening_plies(engine) == 0
        results = evaluate(RandomPlayer(0), engine, GO.make_env, games_per_seat=1)
        assert results["score"] == 0.0  # random play loses to GNU Go
        summary = engine.summary()
        assert summary["engine/scored"] == 2.0 and summary["engine/disagreements"] == 0.0
        assert summary["engine/opponent_margin"] < -20  # random play is far behind
    finally:
        engine.close()


@needs_gnugo
def test_gnu_go_in_ascii_mode_is_not_a_gtp_engine(no_process_left):
    # Without --mode gtp, GNU Go waits for moves typed at a board and says nothing.
    with pytest.raises(
        EngineError,
        match=r"'gnugo --level 1' is not a GTP engine \(GNU Go needs --mode gtp\): .* within 3 s",
    ):
        GtpPlayer(GO, "gnugo --level 1", timeout_sec=3)


@needs_grhino
def test_grhino_gets_openings_and_its_count_agrees(no_process_left):
    engine = GtpPlayer(OTHELLO, "gtp-rhino -l 1")
    try:
        assert not engine.seeded and opening_plies(engine) == 4
        openings = Openings(opening_plies(engine), OTHELLO.gtp.pass_action)
        evaluate(RandomPlayer(0), engine, OTHELLO.make_env, games_per_seat=2, openings=openings)
        summary = engine.summary()
        assert summary["engine/scored"] == 4.0 and summary["engine/disagreements"] == 0.0
    finally:
        engine.close()


class Moves:
    """An observer that keeps the moves of a game."""

    def new_game(self):
        self.actions = []

    def moved(self, action, result):
        self.actions.append(action)


def forced_pass_opening() -> tuple[int, int]:
    """(seed, plies): random Othello moves of that seed reach a position whose mover
    can only pass (the random moves `Openings` plays, move for move)."""
    import numpy as np

    from boardq.play.match import Match

    for seed in range(1000):
        match, player = Match(OTHELLO), RandomPlayer(seed)
        while not match.over:
            if np.flatnonzero(match.legal()).tolist() == [OTHELLO.gtp.pass_action]:
                return seed, len(match.moves)
            match.play(player.act(match.observation()))
    raise AssertionError("no forced pass in 1000 random games")


@needs_grhino
@pytest.mark.parametrize("engine_seat", [0, 1])
def test_forced_passes_with_grhino_either_side(no_process_left, engine_seat):
    seed, plies = forced_pass_opening()
    engine = GtpPlayer(OTHELLO, "gtp-rhino -l 1")
    try:
        players = [RandomPlayer(seed)]
        players.insert(engine_seat, engine)
        # The opening ends where the side to move must pass: GRhino either answers
        # genmove with pass, or is not told of the random player's pass (it refuses that).
        moves = Moves()
        play_game(OTHELLO.make_env, players, 0, [moves], Openings(plies), opening_seed=seed)
        assert moves.actions[plies] == OTHELLO.gtp.pass_action  # the forced pass was played
        assert engine.summary()["engine/scored"] == 1.0
        assert engine.summary()["engine/disagreements"] == 0.0
    finally:
        engine.close()
