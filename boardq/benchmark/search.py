"""The benchmark's search stage: the time a move of the lookahead search at play, by depth.

Built from what plays: an `Agent` (the game's bundled agent where it ships one, whose
trained values order the moves as they will be ordered in play, else the preset's
network untrained) and its `SearchPlayer`, on positions of random play through the
game's environment. Each depth is a stage of its own (`search_d1`, `search_d2`, ...),
its rate moves per second; the figures hold the mean and longest time a move, and the
work a move took (positions expanded, leaves, calls of the network).

The tree search (`tree_search`, `tree_search_rate`) is one stage more: its rate the
positions it sends the network a second, beside the network's own forward pass at the
same batch size, with the network's values computed in numpy and through TensorFlow
side by side.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from boardq.benchmark.measure import StageResult, Window
from boardq.config import TrainConfig
from boardq.game import Game

__all__ = ["search_agent", "search_positions", "search_time", "tree_search_rate"]


def search_agent(game: Game, config: TrainConfig, inference: str = "auto") -> tuple[Any, str]:
    """The agent whose searches are timed, and what it is (`inference`: `Agent.load`'s)."""
    from boardq.players.agent import Agent

    if game.bundled_agent is not None:
        agent = Agent.load(game.bundled_agent, game=game.name, inference=inference)
        return agent, "the bundled agent"
    from boardq.dqn.networks import build_q_network

    model = build_q_network(game.obs_shape, game.num_actions, config.network)
    info = {"discount": config.discount}
    agent = Agent(game.name, model, info, network=config.network, inference=inference)
    return agent, "the preset's network, untrained"


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


def tree_search_rate(
    game: Game,
    config: TrainConfig,
    seconds: float,
    seed: int,
    positions: int = 3,
    move_time: float = 0.2,
) -> StageResult:
    """The tree search's leaves a second, beside the network's own at the same batch size.

    The searcher is the one play uses (`Agent.searcher(move_time=...)`), on the positions
    the depths are timed on. Its rate counts the positions it sent to the network; the
    network alone is timed on batches of the search's mean leaves a call (a call's
    descents that end the game add none), so the ratio is what the tree's Python
    (selection, the rules, backups) leaves of the forward pass.

    The search runs with its network's values computed in numpy and through TensorFlow
    (`boardq.players.forward`), taking turns on the same positions, each for `seconds`
    in all; the stage's rate is the one play chooses here (`inference` "auto"), the
    figures hold both.
    """
    from boardq.players.forward import resolve_inference

    pool = search_positions(game, 10 * positions, seed)
    agents = {k: search_agent(game, config, k) for k in ("numpy", "tensorflow")}
    for agent, _ in agents.values():
        agent.q_values(pool[0])  # the network's first call traces it, outside the timing
        warm = agent.searcher(move_time=move_time)  # the player `_tree_run` times
        warm.act(pool[0])  # the compiled tree's first search compiles it (numba), untimed
        warm.forget()
    sums = {k: np.zeros(5) for k in agents}  # leaves, calls, visits, seconds, moves
    t0 = time.monotonic()
    for _ in range(2):  # the two take turns, so both see the machine's load alike
        for inference, (agent, _) in agents.items():
            sums[inference] += _tree_run(agent, pool, seconds / 2, positions, move_time)
    window = Window(t0, time.monotonic())
    chosen = resolve_inference("auto")
    figures: dict[str, Any] = {}
    for inference, (agent, which) in agents.items():
        leaves, calls, visits, took, moves = (float(x) for x in sums[inference])
        k = max(1, round(leaves / max(calls, 1)))
        forward = _forward_rate(agent, pool, k, seconds)
        mine = {
            "positions": int(moves),
            "move_time_sec": move_time,
            "leaves_per_call": k,
            "leaves_per_call_mean": leaves / max(calls, 1),
            "visits_per_move": visits / moves,
            "leaves_per_sec": leaves / took,
            "forward_rows_per_sec": forward,
            "share_of_forward": leaves / took / forward,
            "agent": which,
        }
        if inference == chosen:
            figures.update(mine)
        figures[f"leaves_per_sec_{inference}"] = mine["leaves_per_sec"]
        figures[f"forward_rows_per_sec_{inference}"] = forward
    figures["inference"] = chosen
    figures["numpy_over_tensorflow"] = (
        figures["leaves_per_sec_numpy"] / figures["leaves_per_sec_tensorflow"]
    )
    title = f"tree search at play, {move_time:g} s a move, one thread ({chosen})"
    rate = figures["leaves_per_sec"]
    return StageResult("tree_search", title, "leaves/s", rate, figures, [window])


def _tree_run(agent, pool, seconds, positions, move_time) -> np.ndarray:
    """[leaves, network calls, visits, seconds searched, moves] of a tree search.

    `agent`'s, over `pool`'s positions, a fresh tree each, for at least `positions`
    positions and `seconds`.
    """
    searcher = agent.searcher(move_time=move_time)
    stats = searcher.stats
    start = (stats.leaves, stats.calls, stats.visits)
    t0 = time.monotonic()
    took, moves = 0.0, 0
    for observation in pool:
        if moves >= positions and time.monotonic() - t0 > seconds:
            break
        searcher.forget()  # a fresh tree a position: the same work for each run
        tick = time.perf_counter()
        searcher.act(observation)
        took += time.perf_counter() - tick
        moves += 1
    now = (stats.leaves, stats.calls, stats.visits)
    return np.array([b - a for a, b in zip(start, now, strict=True)] + [took, moves], float)


def _forward_rate(agent, pool, k: int, seconds: float) -> float:
    """Positions a second through `agent`'s network alone, in batches of `k`."""
    planes = np.stack([np.asarray(o["observation"], np.int8) for o in pool] * k)[:k]
    agent.q_batch(planes)
    tick, rows = time.perf_counter(), 0
    while rows == 0 or time.perf_counter() - tick < max(0.2, seconds / 4):
        agent.q_batch(planes)
        rows += k
    return rows / (time.perf_counter() - tick)
