"""The CPU share of the processes boardq starts beside a run: the nice of their session.

A process's nice orders it against the other tasks of its scheduling group only. On
Linux with the kernel's session groups (`sched_autogroup`, on by default in most
distributions' kernels), every session is such a group, and the groups share the CPU
equally, whatever their tasks' nice: a child started in a session of its own (so that
Ctrl-C at the terminal reaches boardq only) gets as much of the CPU as the whole run,
nice 19 or not. The group's own nice is what weighs it against the run's
(`/proc/PID/autogroup`; sched(7)): at 19 it gets about 1.5% of a core the run wants
(weights 15 against 1,024) and every core the run leaves idle.

So a child in a session of its own is given the nice of its session too: the ladder's
evaluation (`boardq.training.ladder`, 10) and the GTP engines
(`boardq.gtp.client`, the session nice of the process that starts them). Where
there are no session groups (another system, the feature off, no /proc) setting one
does nothing, and the process's own nice is all there is.
"""

from __future__ import annotations

import errno
import os
import time

__all__ = ["process_nice", "session_nice", "set_session_nice"]


_RATE_LIMIT_SEC = 1.05
"""The kernel takes one session-nice change a second from a user without privilege."""


def _autogroup(pid: int | str) -> str:
    return f"/proc/{pid}/autogroup"


def session_nice(pid: int | str = "self") -> int | None:
    """The nice of the session group of process `pid`; None where there is none."""
    try:
        with open(_autogroup(pid)) as f:
            text = f.read()  # "/autogroup-25 nice 0"
    except OSError:
        return None
    words = text.split()
    try:
        return int(words[words.index("nice") + 1])
    except (ValueError, IndexError):
        return None


def set_session_nice(nice: int, pid: int | str = "self") -> bool:
    """Sets the nice (-20..19) of the session group of process `pid`; whether it is so.

    Raising it needs no privilege, but the kernel takes one change a second from an
    unprivileged user (EAGAIN): then it is tried once more a second later. A process of
    another user, or a system without session groups, leaves it as it was (False).
    """
    if not -20 <= nice <= 19:
        raise ValueError(f"a nice is -20..19, got {nice}")
    now = session_nice(pid)
    if now is None:
        return False
    if now == nice:
        return True
    for attempt in range(2):
        try:
            with open(_autogroup(pid), "w") as f:
                f.write(str(nice))
            return True
        except OSError as e:
            if e.errno != errno.EAGAIN or attempt:
                return False
            time.sleep(_RATE_LIMIT_SEC)
    return False


def process_nice() -> int:
    """This process's own nice."""
    return os.getpriority(os.PRIO_PROCESS, 0)
