"""The CPU share of the processes boardq starts in sessions of their own.

Where the kernel groups sessions (`sched_autogroup`), a child in a new session shares
the CPU equally with the whole run unless its session's nice says otherwise: the
ladder's evaluation and the engines it plays must carry theirs.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from boardq.priority import process_nice, session_nice, set_session_nice

pytestmark = pytest.mark.skipif(
    session_nice() is None,
    reason="the kernel has no session groups here (CONFIG_SCHED_AUTOGROUP, /proc/PID/autogroup)",
)


def process_nice_of(pid: int) -> int:
    return os.getpriority(os.PRIO_PROCESS, pid)


@pytest.fixture
def session_child():
    """A sleeping child in a session of its own."""
    proc = subprocess.Popen(["sleep", "60"], start_new_session=True)
    yield proc
    proc.kill()
    proc.wait()


def test_a_new_session_starts_at_nice_0_and_takes_the_nice_it_is_given(session_child):
    pid = session_child.pid
    assert session_nice(pid) == 0  # what every session gets: an equal share
    assert set_session_nice(19, pid)
    assert session_nice(pid) == 19
    assert set_session_nice(19, pid)  # already so: no change asked of the kernel


def test_bad_nices_and_gone_processes():
    with pytest.raises(ValueError, match="a nice is -20..19, got 20"):
        set_session_nice(20)
    gone = subprocess.Popen(["true"])
    gone.wait()
    assert session_nice(gone.pid) is None
    assert not set_session_nice(19, gone.pid)


def test_the_ladders_evaluation_runs_at_nice_19_and_its_session_at_10(tiny_config, tmp_path):
    import numpy as np

    from boardq.training.ladder import Ladder
    from boardq.training.ladder_process import LADDER_NICE, LADDER_SESSION_NICE
    from boardq_games import get_game

    assert (LADDER_NICE, LADDER_SESSION_NICE) == (19, 10)
    cfg = tiny_config.replace(eval_ladder="random", eval_games=2, hidden_units=(8,))
    ladder = Ladder(cfg, get_game("tictactoe"), tmp_path)
    ours = session_nice()
    rng = np.random.default_rng(0)
    shapes = ((18, 8), (8,), (8, 9), (9,))
    assert ladder.start(1, [rng.normal(size=s).astype(np.float32) for s in shapes], {})
    pid = ladder._proc.pid
    try:
        assert process_nice_of(pid) == 19
        assert session_nice(pid) == 10
        assert session_nice() == ours  # the run's own session is left as it was
        assert os.getsid(pid) == pid  # its own session: Ctrl-C reaches the run only
    finally:
        ladder.close()


ENGINE = textwrap.dedent(
    """
    import sys
    for line in sys.stdin:
        name = (line.split() or [""])[0]
        print("= " + {"protocol_version": "2", "list_commands": "quit"}.get(name, "") + "\\n",
              flush=True)
        if name == "quit":
            break
    """
)

STARTER = textwrap.dedent(
    """
    import os, sys
    from boardq.priority import session_nice, set_session_nice
    os.nice(int(sys.argv[2]))
    assert set_session_nice(int(sys.argv[3]))
    from boardq.gtp.client import GtpEngine
    with GtpEngine([sys.executable, sys.argv[1]]) as engine:
        print(os.getpriority(os.PRIO_PROCESS, engine.pid), session_nice(engine.pid),
              os.getsid(engine.pid) == engine.pid)
    """
)


@pytest.mark.parametrize("nice, session", [(19, 10), (7, 7)])
def test_an_engine_runs_at_the_nices_of_the_process_that_starts_it(tmp_path, nice, session):
    if process_nice() > nice:
        pytest.skip(f"this process already runs at nice {process_nice()}")
    engine = tmp_path / "engine.py"
    engine.write_text(ENGINE)
    out = subprocess.run(
        [sys.executable, "-c", STARTER, str(engine), str(nice - process_nice()), str(session)],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parents[2],
        timeout=120,
        start_new_session=True,  # a session of its own, as the ladder's
    ).stdout.split()
    # The engine's own nice (inherited), its session's (set), and a session of its own.
    assert out == [str(nice), str(session), "True"]
