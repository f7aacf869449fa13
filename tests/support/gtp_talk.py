"""Talking GTP to an in-process engine, for the GTP tests (`pythonpath` in pyproject.toml
puts this folder on the import path).
"""

from __future__ import annotations

import os
import queue
import threading
import time

import numpy as np

from boardq.gtp.engine import AgentEngine
from boardq.records import GameRecord, from_sgf


def first_legal(observation) -> int:
    """A stand-in agent: the first legal move."""
    return int(np.flatnonzero(observation["action_mask"])[0])


def talk(engine: AgentEngine, *lines: str) -> list[str]:
    """The answers to `lines`, each without its ending empty line."""
    return [engine.answer(line).removesuffix("\n\n") for line in lines]


def printed_sgf(engine: AgentEngine) -> GameRecord:
    """The game `printsgf` answers, read back by boardq's records reader."""
    answer = talk(engine, "printsgf")[0]
    assert answer.startswith("= (;FF[4]") and "\n\n" not in answer
    [record] = from_sgf(answer.removeprefix("= ").encode(), "printsgf")
    return record


class Piped:
    """An engine's own loop (`AgentEngine.run`) in a thread, on pipes, as a GUI drives it.

    `send` writes a command line; `readline` and `until` read the answers, a line at
    most `timeout` seconds away (else the test fails, not hangs).
    """

    def __init__(self, engine: AgentEngine, timeout: float = 20.0) -> None:
        read_fd, write_fd = os.pipe()
        out_read, out_write = os.pipe()
        stdin, stdout = os.fdopen(read_fd, "r"), os.fdopen(out_write, "w")
        self.timeout = timeout
        self.runner = threading.Thread(target=engine.run, args=(stdin, stdout), daemon=True)
        self.runner.start()
        self.commands = os.fdopen(write_fd, "w")
        self._lines: queue.Queue = queue.Queue()
        answers = os.fdopen(out_read, "r")
        threading.Thread(target=self._read, args=(answers,), daemon=True).start()

    def _read(self, answers) -> None:
        for line in iter(answers.readline, ""):
            self._lines.put(line)
        self._lines.put("")

    def send(self, line: str) -> float:
        """Sends a command; the time it was sent (`time.perf_counter`)."""
        self.commands.write(line + "\n")
        self.commands.flush()
        return time.perf_counter()

    def readline(self) -> str:
        """The next line the engine wrote ("" once its output ends)."""
        try:
            return self._lines.get(timeout=self.timeout)
        except queue.Empty:
            raise AssertionError(f"no answer within {self.timeout:g} s") from None

    def until(self, prefix: str, limit: int = 10_000) -> list[str]:
        """The lines read up to and with the first that starts with `prefix`."""
        lines = []
        for _ in range(limit):
            lines.append(self.readline())
            if lines[-1].startswith(prefix) or lines[-1] == "":
                break
        return lines

    def close(self) -> bool:
        """Sends `quit`, closes stdin; whether the loop ended."""
        if self.runner.is_alive():
            self.send("quit")
        self.commands.close()
        self.runner.join(timeout=30)
        return not self.runner.is_alive()
