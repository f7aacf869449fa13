"""The benchmark's tree-visits stage: the tree search's visits a second against the network's.

A search of `visits` visits a move (the agent's searcher, `Agent.searcher(visits=...)`,
a fresh tree a position) on positions of random play, its tree compiled where the game's
rules have a compiled form (`boardq.search.fasttree`) and the plain tree, taking turns
with the network alone (`q_batch` on batches of `batch` of the same positions), all in one
process, so the machine's load weighs on the three alike. The ratio of the compiled
tree's visits a second to the network's positions a second (`visits_over_forward`) says
how much of the network's pace the tree's own work leaves; 1 would be a free tree (a
visit that ends the game costs no network call, so it can pass 1).

The two trees choose their moves on the same positions; `same_moves` counts the
positions where they agree (the compiled tree is built to agree on all).
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any

import numpy as np

from boardq.benchmark.measure import StageResult, Window
from boardq.config import TrainConfig
from boardq.game import Game

__all__ = ["tree_visits_rate"]


def tree_visits_rate(
    game: Game,
    config: TrainConfig,
    seed: int,
    positions: int = 12,
    visits: int = 400,
    batch: int = 16,
    rounds: int = 2,
) -> StageResult:
    """The tree search's visits a second, compiled and plain, beside the network's rate.

    Args:
        game: the game (it has rules).
        config: the preset (its network, untrained, where the game ships no agent).
        seed: the positions' seed.
        positions: positions searched by each tree a round.
        visits: visits a move.
        batch: the network's batch when timed alone (the tree's leaves a call).
        rounds: rounds of the three taking turns.
    """
    from boardq.benchmark.search import search_agent, search_positions
    from boardq.search.passing import PassToEnd

    agent, which = search_agent(game, config, "numpy")
    pool = search_positions(game, positions, seed)
    fast = agent.searcher(visits=visits)
    rules = fast.rules.rules if type(fast.rules) is PassToEnd else fast.rules
    plain = dataclasses.replace(fast, rules=rules, compiled=False, stats=type(fast.stats)())
    planes = np.stack([np.asarray(o["observation"], np.int8) for o in pool] * batch)[:batch]
    agent.q_batch(planes)  # the first calls (and the compiled kernels) outside the timing
    fast.act(pool[0])
    sums = {"compiled": np.zeros(2), "plain": np.zeros(2), "forward": np.zeros(2)}
    moves: dict[str, list[int]] = {"compiled": [], "plain": []}
    t0 = time.monotonic()
    for turn in range(rounds):
        trees = [("compiled", fast), ("plain", plain)]
        for name, player in trees if turn % 2 == 0 else trees[::-1]:
            count, took, chosen = _search(player, pool)
            sums[name] += (count, took)
            moves[name] = chosen
        sums["forward"] += _forward(agent, planes, max(0.2, sums["compiled"][1] / (turn + 1)))
    window = Window(t0, time.monotonic())
    rate = {k: float(v[0] / v[1]) for k, v in sums.items()}
    forward = rate["forward"]
    figures: dict[str, Any] = {
        "positions": len(pool),
        "visits_per_move": visits,
        "batch": batch,
        "compiled": type(fast._tree).__name__ == "CompiledTree",
        "visits_per_sec": rate["compiled"],
        "visits_per_sec_plain": rate["plain"],
        "forward_rows_per_sec": forward,
        "visits_over_forward": rate["compiled"] / forward,
        "visits_over_forward_plain": rate["plain"] / forward,
        "compiled_over_plain": rate["compiled"] / rate["plain"],
        "same_moves": sum(a == b for a, b in zip(moves["compiled"], moves["plain"], strict=True)),
        "agent": which,
    }
    title = f"tree search at play, {visits} visits a move, one thread, against the network"
    return StageResult("tree_visits", title, "visits/s", rate["compiled"], figures, [window])


def _search(player, pool) -> tuple[int, float, list[int]]:
    """Visits added, seconds and the moves of `player` over `pool`, a fresh tree each."""
    before, took, chosen = player.stats.visits, 0.0, []
    for observation in pool:
        player.forget()
        tick = time.perf_counter()
        chosen.append(player.act(observation))
        took += time.perf_counter() - tick
    return player.stats.visits - before, took, chosen


def _forward(agent, planes: np.ndarray, seconds: float) -> np.ndarray:
    """[positions, seconds] of the network alone on `planes`, for about `seconds`."""
    tick, rows = time.perf_counter(), 0
    while rows == 0 or time.perf_counter() - tick < seconds:
        agent.q_batch(planes)
        rows += len(planes)
    return np.array([rows, time.perf_counter() - tick])
