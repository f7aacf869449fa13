"""The engine's loop: commands from stdin, answers to stdout, analysis streamed between.

A thread reads stdin into a queue (`Lines`), so an analysis (`lz-analyze`...) that
streams its lines notices the next command between two short slices of its search
and stops, as the GUIs stop it: its answer ends with an empty line and the command
is then answered. Controllers
that send many commands without waiting (Sabaki replays a game so) get their answers
in order.
"""

from __future__ import annotations

import queue
import threading
import time
import traceback
from typing import TextIO

from boardq.gtp.analysis import ANALYSE_COMMANDS, info_line, parse_request, shown
from boardq.gtp.protocol import Command, GtpSyntaxError, format_response

__all__ = ["Lines", "refusal", "run", "stream"]

_NOTHING = object()
SLICE_SECONDS = 0.05
"""An analysis grows this long at a time, then looks for a command waiting on stdin."""
LOOK_SECONDS = 0.001
"""After its move, a `genmove_analyze` shows the analysis grown this little more: the
tree that chose the move (one batch more), not a search counted on no clock."""


class Lines:
    """The lines of `stdin`, read by a thread; None at its end."""

    def __init__(self, stdin: TextIO) -> None:
        self._queue: queue.Queue = queue.Queue()
        self._head = _NOTHING
        threading.Thread(target=self._read, args=(stdin,), daemon=True).start()

    def _read(self, stdin: TextIO) -> None:
        try:
            for line in iter(stdin.readline, ""):
                self._queue.put(line)
        finally:
            self._queue.put(None)

    def get(self) -> str | None:
        """The next line (waits for it), or None at the end of input."""
        if self._head is not _NOTHING:
            line, self._head = self._head, _NOTHING
            return line
        return self._queue.get()

    def waiting(self, timeout: float) -> bool:
        """Whether a line (or the end of input) is there within `timeout` seconds."""
        if self._head is not _NOTHING:
            return True
        try:
            self._head = self._queue.get(timeout=max(0.0, timeout))
        except queue.Empty:
            return False
        return True


def run(engine, stdin: TextIO, stdout: TextIO) -> None:
    """Answers `engine`'s commands from `stdin` until `quit` or the end of input.

    Bytes that are not UTF-8 are read as replacement characters (a junk command, not the
    end of the engine).
    """
    if hasattr(stdin, "reconfigure"):
        stdin.reconfigure(errors="replace")
    lines = Lines(stdin)
    while not engine.done:
        line = lines.get()
        if line is None:
            return
        command = engine.parse(line)
        if command is None:
            continue
        if command.name in ANALYSE_COMMANDS and command.name in engine.commands():
            stream(engine, command, stdout, lines)
        else:
            stdout.write(engine.answer(line))
            stdout.flush()


def stream(engine, command: Command, out: TextIO, lines: Lines | None) -> None:
    """Streams an analysis command's answer until a line is waiting (`lines` None: once).

    `=` first with a line of `info` entries, then a line every interval; the empty line
    ends it. The analysis grows in slices of `SLICE_SECONDS` and stdin is looked at
    between them, so the next command is answered within about a slice whatever the
    interval. A `genmove_analyze` makes its move first (timed as `genmove`), then
    answers `=`, the analysis of the position it moved from and `play VERTEX`.

    Every error before `=` (a bad argument, the position, any failure of the agent's)
    is answered `? message`; a failure once the stream runs ends it. The engine goes on.
    """
    ident = "" if command.id is None else str(command.id)

    def write(text: str) -> None:
        out.write(text)
        out.flush()

    def refuse(message: str) -> None:
        write(format_response(command.id, False, message))

    try:
        request = parse_request(command.name, command.args)
        observation = engine.analysed(request.seat)
    except Exception as e:
        refuse(refusal(engine, command, e))
        return
    floats = request.style.floats

    def look(seconds: float) -> list:
        """The moves a line lists, of the analysis grown `seconds` more."""
        return shown(engine.analyse(observation, seconds))[: request.max_moves]

    def line(moves: list) -> str:
        """The line of `moves` ("" for none)."""
        return info_line(moves, engine.vertex_of, floats) + "\n" if moves else ""

    if request.style.genmove:
        try:
            vertex = engine.generate(request.seat)
        except Exception as e:
            refuse(refusal(engine, command, e))
            return
        write(f"={ident}\n")
        try:  # the tree that chose the move, grown one batch more (or the network's view)
            write(line(look(LOOK_SECONDS)))
        except Exception:  # the move stands: only its analysis is missing
            _log_failure(engine, command)
        write(f"play {vertex}\n\n")
        return
    try:
        first = line(look(SLICE_SECONDS))
    except Exception as e:
        _log_failure(engine, command)
        refuse(f"internal error: {e}")
        return
    write(f"={ident}\n{first}")
    due = time.perf_counter() + request.interval
    while lines is not None:
        started = time.perf_counter()
        try:
            moves = look(SLICE_SECONDS)
        except Exception:  # a bug must not end a GUI's session: say it, end the stream
            _log_failure(engine, command)
            break
        now = time.perf_counter()
        if now >= due:
            write(line(moves))
            while due <= now:
                due += request.interval
        # A network's view is ready at once: wait out the slice, awake to a command.
        if lines.waiting(SLICE_SECONDS - (now - started)):
            break
    write("\n")


def refusal(engine, command: Command, error: Exception) -> str:
    """The message of `? message` for `error`, raised before `=` was written.

    A bad argument is a syntax error, the engine's own error says its message, and
    anything else is a bug: logged with its traceback and answered `internal error`, as
    a bug must not end a GUI's session. Call it in the `except` that caught `error`.
    """
    if isinstance(error, GtpSyntaxError):
        return f"syntax error: {error}"
    if isinstance(error, engine.Error):
        return str(error)
    _log_failure(engine, command)
    return f"internal error: {error}"


def _log_failure(engine, command: Command) -> None:
    """Says on the engine's log that `command` failed, with the traceback."""
    print(f"boardq gtp: {command.name} failed:", file=engine.log)
    traceback.print_exc(file=engine.log)
