"""The ladder's evaluation as a process: started at the lowest priority, ended with the run.

`boardq.training.ladder` starts each evaluation (`boardq evaluate ... --json`) with
`start_evaluation`: a child process in a session of its own, at nice 19 with its session
group at nice 10 (`boardq.priority`), which on Linux the kernel kills when the run's
process ends, however it ends.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys

from boardq.priority import set_session_nice

__all__ = ["LADDER_NICE", "LADDER_SESSION_NICE", "start_evaluation"]

LADDER_NICE = 19
"""The nice of the ladder's process."""
LADDER_SESSION_NICE = 10
"""The nice of the ladder's session group: about a tenth of the CPU the run wants.

Connect Four's preset, 5-minute runs alone on 2 cores, one after the other: 447 train
steps/s with the session at 0, 477 at 19, 482 at 10, the ladder's evaluations ending
15-20 s later. 10 rather than 19 leaves the ladder a share when other work (a second
run) keeps the cores busy (docs/results/performance.md, "Training at the learner's own
speed")."""
_PR_SET_PDEATHSIG = 1  # prctl option (Linux): a signal for the child when its parent ends


def _lowest_priority() -> None:  # runs in the child before exec, in its new session
    """Nice 19 for the child, 10 for its session group; on Linux it dies with the run.

    The session's nice is what weighs the child against the run where the kernel groups
    sessions (`boardq.priority`): without it the ladder took as much CPU as the whole
    run while it played (docs/results/performance.md, "Training at the learner's own
    speed"). The child dies with the run even if the run is killed. Not the idle
    scheduling class (SCHED_IDLE): there the ladder runs only on cores no other thread
    wants, and a run that keeps both cores busy (or two runs side by side) starved it:
    one evaluation took no score in ten minutes. At nice 19 it still yields to the run
    but makes progress.
    """
    os.nice(LADDER_NICE)
    set_session_nice(LADDER_SESSION_NICE)
    if sys.platform.startswith("linux"):
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


def start_evaluation(command: list[str]) -> subprocess.Popen:
    """Starts the evaluation `command` at the lowest priority; its output is piped."""
    return subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_lowest_priority,
        # Its stderr is read when it ends: no progress lines, only an error's.
        env={**os.environ, "BOARDQ_PROGRESS_EVERY_SEC": "86400"},
        # Out of the terminal's process group: Ctrl-C stops the run, which then ends
        # the evaluation itself, rather than failing it as the run winds down.
        start_new_session=True,
    )
