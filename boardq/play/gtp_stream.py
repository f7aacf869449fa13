"""The engine's loop: commands from stdin, answers to stdout, analysis streamed between.

A thread reads stdin into a queue (`Lines`), so an analysis (`lz-analyze`...) that
streams its lines notices the next command at once and stops, as the GUIs stop it:
its answer ends with an empty line and the command is then answered. Controllers
that send many commands without waiting (Sabaki replays a game so) get their answers
in order.
"""

from __future__ import annotations

import queue
import threading
import time
import traceback
from typing import TextIO

from boardq.gtp import Command, GtpSyntaxError, format_response
from boardq.play.gtp_analysis import ANALYSE_COMMANDS, info_line, parse_request

__all__ = ["Lines", "run", "stream"]

_NOTHING = object()
GLANCE_SECONDS = 0.05
"""The analysis a `genmove_analyze` shows before its move: this long a look."""


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

    `=` first, then a line of `info` entries every interval; the empty line ends it. A
    `genmove_analyze` ends with `play VERTEX` once the move is made.
    """
    ident = "" if command.id is None else str(command.id)

    def write(text: str) -> None:
        out.write(text)
        out.flush()

    try:
        request = parse_request(command.name, command.args)
        observation = engine.analysed(request.seat)
    except GtpSyntaxError as e:
        write(format_response(command.id, False, f"syntax error: {e}"))
        return
    except engine.Error as e:
        write(format_response(command.id, False, str(e)))
        return
    write(f"={ident}\n")
    floats = request.style.floats

    def info(seconds: float) -> bool:
        """Writes a line of the analysis; False if it failed (said on the log)."""
        try:
            moves = engine.analyse(observation, seconds)[: request.max_moves]
        except Exception:  # a bug must not end a GUI's session: say it, end the stream
            print(f"boardq gtp: {command.name} failed:", file=engine.log)
            traceback.print_exc(file=engine.log)
            return False
        if moves:
            write(info_line(moves, engine.vertex_of, floats) + "\n")
        return True

    if request.style.genmove:
        info(GLANCE_SECONDS)
        try:
            vertex = engine.generate(request.seat)
        except engine.Error as e:
            vertex = "resign"
            print(f"boardq gtp: {command.name}: {e}", file=engine.log)
        write(f"play {vertex}\n\n")
        return
    while True:
        started = time.perf_counter()
        if not info(request.interval) or lines is None:
            break
        if lines.waiting(request.interval - (time.perf_counter() - started)):
            break
    write("\n")
