"""Talking GTP to an in-process engine, for the GTP tests (`pythonpath` in pyproject.toml
puts this folder on the import path).
"""

from __future__ import annotations

import numpy as np

from boardq.play.gtp_engine import AgentEngine
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
