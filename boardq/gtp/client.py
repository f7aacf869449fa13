"""A GTP engine in a child process: start it, send it commands, read its answers, end it.

`GtpEngine` runs a command line such as `gnugo --mode gtp --level 1`, finds its program
on PATH and then in `/usr/games` (where Debian puts game engines and which is not on
root's PATH), and checks that it speaks GTP (`protocol_version`). Every answer is
awaited with a timeout. Whatever goes wrong (a program that is not found or is no GTP
engine, an engine that dies or hangs, a refused command) is an `EngineError`: one line
that names the engine and says what it said. `close` ends the process (`quit`, then
SIGKILL if it has not gone) and reaps it, so no zombie is left. The engine runs in a
session of its own, weighed as the session of the process that starts it
(`boardq.priority`); its own stderr goes to a temporary file whose last lines the
errors quote.

No TensorFlow, no game here: the caller speaks the game (`boardq.gtp.player`).
"""

from __future__ import annotations

import os
import select
import shlex
import shutil
import subprocess
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from boardq.errors import BoardqError
from boardq.priority import session_nice, set_session_nice

__all__ = [
    "DEFAULT_TIMEOUT_SEC",
    "ENGINE_DIRS",
    "EngineError",
    "EngineRefusal",
    "GtpEngine",
    "find_program",
    "split_command",
]

DEFAULT_TIMEOUT_SEC = 120.0
"""How long an engine may think over one command before the match stops."""
ENGINE_DIRS = ("/usr/games",)
"""Looked in after PATH: Debian installs gnugo and gtp-rhino there, off root's PATH."""
HANDSHAKE_TIMEOUT_SEC = 30.0
"""How long an engine may take to answer its first command (loading its own files)."""
_QUIT_GRACE_SEC = 2.0
_STDERR_TAIL_CHARS = 300


class EngineError(BoardqError):
    """A GTP engine could not start, broke the protocol, died, hung or played badly."""


class EngineRefusal(EngineError):
    """The engine answered a command with `? message`."""


def split_command(command: str | Sequence[str]) -> list[str]:
    """A command line as words (shell quoting, no shell).

    Raises:
        EngineError: empty, or quotes that do not close.
    """
    if not isinstance(command, str):
        return list(command)
    try:
        words = shlex.split(command)
    except ValueError as e:
        raise EngineError(f"cannot read the engine command {command!r}: {e}") from None
    if not words:
        raise EngineError("an engine needs a command: gtp:COMMAND")
    return words


def find_program(name: str) -> Path | None:
    """Where a command's program is, or None if it is nowhere (or not executable).

    A name with a slash is taken as a path; any other is looked up on PATH, then in
    `ENGINE_DIRS`.
    """
    if os.sep in name:
        path = Path(name)
        return path if path.is_file() and os.access(path, os.X_OK) else None
    found = shutil.which(name) or shutil.which(name, path=os.pathsep.join(ENGINE_DIRS))
    return Path(found) if found else None


class GtpEngine:
    """One GTP engine process.

    Args:
        command: the command line, e.g. "gnugo --mode gtp --level 1".
        timeout_sec: how long each answer may take.

    Attributes:
        program: where the program was found.
        name: what the engine calls itself (`name`, `version`), or the program's name.
        commands: the commands it lists (`list_commands`).

    Raises:
        EngineError: the program is not found, does not start, or does not speak GTP.
    """

    def __init__(self, command: str | Sequence[str], timeout_sec: float = DEFAULT_TIMEOUT_SEC):
        self.argv = split_command(command)
        self.command = command if isinstance(command, str) else shlex.join(self.argv)
        self.timeout_sec = timeout_sec
        program = find_program(self.argv[0])
        if program is None:
            raise EngineError(
                f"engine {self.argv[0]!r} not found on PATH or in {', '.join(ENGINE_DIRS)} "
                f"(Debian: apt-get install gnugo grhino)"
            )
        self.program = program
        self.name = program.name
        self._buffer = b""
        self._stderr = tempfile.TemporaryFile()
        try:
            self._proc = subprocess.Popen(
                [str(program), *self.argv[1:]],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._stderr,
                # Ctrl-C reaches boardq, which then ends the engine itself.
                start_new_session=True,
            )
        except OSError as e:
            self._stderr.close()
            raise EngineError(f"engine {self.command!r} did not start: {e}") from None
        # Its session weighs as this process's does (a ladder's engine as the ladder,
        # not as much as the whole run: boardq.priority); it inherits the nice itself.
        ours = session_nice()
        if ours is not None:
            set_session_nice(ours, self._proc.pid)
        try:
            self._handshake()
        except BaseException:
            self.close()
            raise

    def _handshake(self) -> None:
        try:
            version = self.send("protocol_version", min(self.timeout_sec, HANDSHAKE_TIMEOUT_SEC))
        except EngineError as e:
            hint = " (GNU Go needs --mode gtp)" if self.program.name == "gnugo" else ""
            raise EngineError(f"{self.command!r} is not a GTP engine{hint}: {e}") from None
        if version.strip() not in {"1", "2"}:
            raise EngineError(
                f"{self.command!r} is not a GTP engine: protocol_version gave {version!r}"
            )
        self.commands = set(self.send("list_commands").split())
        parts = [self.send(c).strip() for c in ("name", "version") if c in self.commands]
        if parts and parts[0]:
            self.name = " ".join(p for p in parts if p)

    @property
    def title(self) -> str:
        """The engine named for messages: "GNU Go 3.8 (/usr/games/gnugo)"."""
        return f"{self.name} ({self.program})"

    @property
    def pid(self) -> int:
        return self._proc.pid

    def knows(self, command: str) -> bool:
        """Whether the engine lists `command`."""
        return command in self.commands

    def send(self, command: str, timeout_sec: float | None = None) -> str:
        """Sends one command and returns the answer's text (without `=`).

        Raises:
            EngineRefusal: the engine answered `? message`.
            EngineError: it died, hung past the timeout, or answered outside GTP.
        """
        if self._proc.poll() is not None:
            raise self._died(command)
        try:
            self._proc.stdin.write(command.encode() + b"\n")
            self._proc.stdin.flush()
        except (BrokenPipeError, ConnectionResetError):
            raise self._died(command) from None
        self._waiting = self.timeout_sec if timeout_sec is None else timeout_sec
        lines = self._read_answer(command, self._waiting)
        head, body = lines[0], lines[1:]
        text = head[1:].lstrip("0123456789")
        text = "\n".join([text.strip(), *body]).strip()
        if head.startswith("?"):
            raise EngineRefusal(f"{self.title} refused {command!r}: {text or '(no reason)'}")
        return text

    def _read_answer(self, command: str, timeout_sec: float) -> list[str]:
        """The lines of one answer, up to the empty line that ends it."""
        deadline = time.monotonic() + timeout_sec
        lines: list[str] = []
        while True:
            line = self._read_line(command, deadline)
            stripped = line.strip()
            if not lines:
                if not stripped:
                    continue  # blank lines before an answer
                if stripped[0] not in "=?":
                    raise EngineError(
                        f"{self.title} answered {command!r} outside GTP: {stripped[:80]!r}"
                    )
            elif not stripped:
                return lines
            lines.append(stripped if not lines else line.rstrip("\r"))

    def _read_line(self, command: str, deadline: float) -> str:
        fd = self._proc.stdout.fileno()
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise EngineError(
                    f"{self.title} did not answer {command!r} within {self._waiting:g} s"
                )
            chunk = os.read(fd, 65536)
            if not chunk:
                raise self._died(command)
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line.decode(errors="replace")

    def _died(self, command: str) -> EngineError:
        try:
            code = self._proc.wait(timeout=1.0)
            how = f"exit code {code}" if code >= 0 else f"signal {-code}"
        except subprocess.TimeoutExpired:
            how = "its output closed"
        said = self._stderr_tail()
        return EngineError(
            f"{self.title} ended ({how}) at {command!r}" + (f"; it said: {said}" if said else "")
        )

    def _stderr_tail(self) -> str:
        try:
            self._stderr.seek(0)
            text = self._stderr.read().decode(errors="replace")
        except (OSError, ValueError):
            return ""
        return " / ".join(text.strip().splitlines())[-_STDERR_TAIL_CHARS:]

    @property
    def alive(self) -> bool:
        return self._proc.poll() is None

    def close(self) -> None:
        """Ends the engine (`quit`, then SIGKILL after a grace) and reaps it; idempotent."""
        proc = self._proc if hasattr(self, "_proc") else None
        if proc is not None and proc.poll() is None:
            try:
                proc.stdin.write(b"quit\n")
                proc.stdin.flush()
            except (OSError, ValueError):
                pass
            try:
                proc.wait(timeout=_QUIT_GRACE_SEC)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if proc is not None:
            for stream in (proc.stdin, proc.stdout):
                try:
                    stream.close()
                except (OSError, ValueError):
                    pass
        if not self._stderr.closed:
            self._stderr.close()

    def __enter__(self) -> GtpEngine:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
