"""`boardq play` on a pseudo-terminal: colour, Ctrl-C and Ctrl-D, as a person sees it."""

from __future__ import annotations

import contextlib
import os
import pty
import re
import select
import signal
import time
from pathlib import Path

import pytest
from play_runs import BOARDQ, START_SEC, write_play_agents

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


@pytest.fixture(scope="module")
def agents(tmp_path_factory, preference_agent) -> Path:
    """A directory with runs/ (two tic-tac-toe runs) and loose agent files."""
    return write_play_agents(tmp_path_factory.mktemp("play"), preference_agent)


# --- a pseudo-terminal -------------------------------------------------------------------------


class Terminal:
    """`boardq play` on a pseudo-terminal; `expect` waits for text in what was drawn."""

    def __init__(self, args: list[str], cwd: Path, env: dict[str, str]) -> None:
        env = {**{k: v for k, v in os.environ.items() if k != "NO_COLOR"}, **env}
        env.update(TERM="xterm-256color", COLUMNS="80", LINES="24")
        self.raw = b""
        self._pos = 0
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: its controlling terminal is the pty
            try:
                os.chdir(cwd)
                os.execvpe(BOARDQ[0], [*BOARDQ, "play", *args], env)
            finally:
                os._exit(127)

    @property
    def text(self) -> str:
        return ANSI.sub("", self.raw.decode("utf-8", "replace")).replace("\r\n", "\n")

    def _read(self, wait_sec: float) -> bool:
        ready, _, _ = select.select([self.fd], [], [], wait_sec)
        if not ready:
            return True
        try:
            chunk = os.read(self.fd, 65536)
        except OSError:  # EIO: the child has gone
            return False
        self.raw += chunk
        return bool(chunk)

    def expect(self, pattern: str, timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        while True:
            match = re.compile(pattern).search(self.text, self._pos)
            if match:
                self._pos = match.end()
                return
            if time.monotonic() > deadline or not self._read(0.2):
                raise AssertionError(f"never drew {pattern!r}; drawn:\n{self.text[-2000:]}")

    def send(self, keys: bytes) -> None:
        os.write(self.fd, keys)

    def interrupt(self, timeout: float = 120) -> None:
        """Ctrl-C once the child waits for a key (the prompt drawn is not enough).

        Typed keys wait in the terminal until they are read, but Ctrl-C is a signal,
        taken when it comes: input() writes its prompt and only then blocks in select(),
        and a SIGINT between the two is noted but wakes nothing, so the child would sit
        at the prompt until the next key (a third of the tries on a busy machine). The
        child's main thread asleep after its prompt is the child in select(). Without
        /proc (not Linux) Ctrl-C goes at once. The timeout only guards against a hang.
        """
        deadline = time.monotonic() + timeout
        while _main_thread_state(self.pid) not in ("S", None):
            assert time.monotonic() < deadline, "the child never waited for a key"
            self._read(0.01)  # keeps draining what it draws
        self.send(b"\x03")

    def wait(self, timeout: float = 60) -> int:
        """Reads what is left and returns the exit code; kills the child if it lingers.

        The terminal closes (EIO) a moment before the child can be reaped, so the child
        is waited for until the same deadline (a guard against a hang) before a kill.
        """
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and self._read(0.2):
            pass
        pid, status = os.waitpid(self.pid, os.WNOHANG)
        while pid == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
            pid, status = os.waitpid(self.pid, os.WNOHANG)
        return self.close(None if pid == 0 else status)

    def close(self, status: int | None = None) -> int:
        """The exit code, after a kill if the child still runs (`status`: it was reaped)."""
        if status is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid == 0:
                os.kill(self.pid, signal.SIGKILL)
                _, status = os.waitpid(self.pid, 0)
        os.close(self.fd)
        return os.waitstatus_to_exitcode(status)

    def __enter__(self) -> Terminal:
        return self

    def __exit__(self, *exc) -> None:
        with contextlib.suppress(ChildProcessError, OSError):
            self.close()


def _main_thread_state(pid: int) -> str | None:
    """The state letter of process `pid`'s main thread (R, S, D...); None without /proc."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat.rsplit(")", 1)[1].split()[0]  # after "pid (command name)"


def colours(raw: bytes) -> set[str]:
    """The foreground/background colour parameters of the SGR sequences in `raw`."""
    found = set()
    for params in re.findall(rb"\x1b\[([0-9;]*)m", raw):
        for p in params.decode().split(";"):
            if p and (30 <= int(p) <= 49 or 90 <= int(p) <= 107):
                found.add(p)
    return found


PROMPT_X = r"your move \(X\): $"


def test_terminal_game_in_colour_then_ctrl_c(agents):
    with Terminal(["tictactoe", "--agent", "ttt.npz"], agents, {}) as term:
        term.expect(PROMPT_X, timeout=START_SEC)
        term.send(b"3\r")
        term.expect(r"agent \(O\) plays 5 \(b2\)\n\n.*\n.*\n.*\n 2   4 │\[O\]│ 6\n")
        term.expect(PROMPT_X)
        term.send(b"hello\r")
        term.expect(r"'hello' is not a move.*\nlegal moves: 1 2 4 6 7 8 9\n")
        term.expect(PROMPT_X)
        term.send(b"hint\r")
        term.expect(r"the agent's values of your moves: 1 \+0\.68")
        term.expect(PROMPT_X)
        term.send(b"undo\r")
        term.expect(r"took back your last move and the agent's reply\n\n.*\n 1   1 │ 2 │ 3\n")
        term.expect(PROMPT_X)
        term.interrupt()  # Ctrl-C
        term.expect(r"bye\n")
        code = term.wait()
    assert code == 130
    assert "Traceback" not in term.text
    assert colours(term.raw)  # a terminal gets colour
    assert b"\x1b[1;7;33m[O]" in term.raw  # the agent's last move: its colour, reversed
    assert "oneDNN" not in term.text and "cuda" not in term.text.lower()


def test_terminal_no_color_agent_first_then_ctrl_d(agents):
    args = ["connect_four", "--agent", "c4.npz", "--first", "agent"]
    with Terminal(args, agents, {"NO_COLOR": "1"}) as term:
        term.expect(r"agent \(●\) plays column 4\n", timeout=START_SEC)
        term.expect(r"│ ·  ·  · \[●\] ·  ·  · │\n└─+┘\n  1  2  3  4  5  6  7\n")
        term.expect(r"your move \(○\): $")
        term.send(b"0\r")
        term.expect(r"there is no column 0")
        term.expect(r"your move \(○\): $")
        term.send(b"\x04")  # Ctrl-D
        term.expect(r"\nbye\n")
        code = term.wait()
    assert code == 0
    assert "Traceback" not in term.text
    assert colours(term.raw) == set()  # NO_COLOR: styles such as bold, but no colour
