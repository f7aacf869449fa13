"""The benchmark's search stage: the time a move of the lookahead search at play, by depth.

Built from what plays: an `Agent` (the game's bundled agent where it ships one, whose
trained values order the moves as they will be ordered in play, else the preset's
network untrained) and its `SearchPlayer`, on positions of random play through the
game's environment. Each depth is a stage of its own (`search_d1`, `search_d2`, ...),
its rate moves per second; the figures hold the mean and longest time a move, and the
work a move took (positions expanded, leaves, calls of the network).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from boardq.benchmark.measure import StageResult, Window
from boardq.config import TrainConfig
from boardq.game import Game

__all__ = ["search_agent", "search_positions", "search_time"]


def search_agent(game: Game, config: TrainConfig) -> tuple[Any, str]:
    """The agent whose searches are timed, and what it is."""
    from boardq.players.agent import Agent

    if game.bundled_agent is not None:
        return Agent.load(game.bundled_agent, game=game.name), "the bundled agent"
    from boardq.dqn.networks import build_q_network

    model = build_q_network(game.obs_shape, game.num_actions, config.network)
    return Agent(game.name, model, {"discount": config.discount}), "the preset's network, untrained"


def search_positions(game: Game, count: int, seed: int, max_plies: int = 40) -> list[dict]:
    """`count` observations of the player to move, after 4..max_plies random moves each."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        env = game.make_env()
        env.reset(seed=int(rng.integers(2**31)))
        for _ply in range(int(rng.integers(4, max_plies + 1))):
            legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
            env.step(int(rng.choice(legal)))
            if any(env.terminations.values()):
                env.reset(seed=int(rng.integers(2**31)))
        observation = env.observe(env.agent_selection)
        out.append({k: np.array(v) for k, v in observation.items()})
        env.close()
    return out


def search_time(
    game: Game,
    config: TrainConfig,
    depths: tuple[int, ...],
    seconds: float,
    seed: int,
    positions: int = 3,
) -> list[StageResult]:
    """Times the agent's search at each depth, on the same random positions.

    Each depth searches at least `positions` positions, and more (up to 10 times as
    many) while its `seconds` last.
    """
    agent, which = search_agent(game, config)
    pool = search_positions(game, 10 * positions, seed)
    agent.q_values(pool[0])  # the network's first call traces it (not cached by a searcher)
    out = []
    for depth in depths:
        searcher = agent.searcher(depth)
        times: list[float] = []
        stats = searcher.search.stats
        start_stats = (stats.nodes, stats.leaves, stats.batches)
        t0 = time.monotonic()
        for observation in pool:
            if len(times) >= positions and time.monotonic() - t0 > seconds:
                break
            start = time.perf_counter()
            searcher.act(observation)
            times.append(time.perf_counter() - start)
        window = Window(t0, time.monotonic())
        moves = len(times)
        now = (stats.nodes, stats.leaves, stats.batches)
        nodes, leaves, calls = ((b - a) / moves for a, b in zip(start_stats, now, strict=True))
        figures = {
            "depth": depth,
            "positions": moves,
            "move_sec_mean": float(np.mean(times)),
            "move_sec_max": float(np.max(times)),
            "nodes_per_move": nodes,
            "leaves_per_move": leaves,
            "network_calls_per_move": calls,
            "agent": which,
        }
        title = f"lookahead search at play, depth {depth}, one thread"
        rate = moves / sum(times)
        out.append(StageResult(f"search_d{depth}", title, "moves/s", rate, figures, [window]))
    return out
