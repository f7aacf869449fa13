"""Checks and timings of vectorized game batches, for the tests and the benchmark.

`compare_with_envs` plays random games in a batch and, move for move, in one
PettingZoo environment per game, and lists every difference; `compare_with_spiel`
does the same against OpenSpiel states of the same game (far faster than an
environment, so many more games); `random_play_rate` and `env_random_play_rate` time
random play in a batch and in PettingZoo's own loop. The environments come from a
maker such as `Game.make_env`; the batches need numpy only.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from boardq.game import OpenSpielGame, load_pyspiel
from boardq.gamebatch import GameBatch

__all__ = [
    "Comparison",
    "compare_with_envs",
    "compare_with_spiel",
    "env_random_play_rate",
    "random_legal_actions",
    "random_play_rate",
]


def random_legal_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Int [M]: a uniformly random legal action per row of the bool mask [M, A].

    Keys in [0, 1) plus the mask put every legal action above every illegal one.
    """
    return np.argmax(rng.random(mask.shape, np.float32) + mask, axis=1)


@dataclass
class Comparison:
    """What `compare_with_envs` saw.

    Attributes:
      moves: moves played in every game.
      first_wins, second_wins, draws: finished games by result.
      left: games OpenSpiel ended on a repeated position while the batch played on
        (`OpenSpielGame.repetition_draw`; `compare_with_spiel` only), not followed
        further.
      differences: the first differences found (empty: the batch matched throughout).
    """

    moves: int = 0
    first_wins: int = 0
    second_wins: int = 0
    draws: int = 0
    left: int = 0
    differences: list[str] = field(default_factory=list)

    @property
    def games(self) -> int:
        """Finished games."""
        return self.first_wins + self.second_wins + self.draws


def compare_with_envs(
    batch: GameBatch,
    make_env: Callable[[], Any],
    moves: int,
    rng: np.random.Generator,
    limit: int = 20,
) -> Comparison:
    """Plays `moves` random moves in every game of `batch` and in one PettingZoo env each.

    Before every move it compares the planes and legal moves of the player to move;
    after it, the mover's reward, `done` and `first_mover`, and at game ends both
    players' rewards (the mover's `reward` and its negation).

    Args:
      batch: a fresh batch (every game at its first position).
      make_env: makes the same game's environment (`Game.make_env`).
      moves: moves per game.
      rng: picks the moves.
      limit: differences to record before stopping early.
    """
    envs = [make_env() for _ in range(batch.size)]
    for seed, env in enumerate(envs):
        env.reset(seed=seed)
    seen = Comparison()
    notes = seen.differences
    for _ in range(moves):
        if len(notes) >= limit:
            break
        want = [env.observe(env.agent_selection) for env in envs]
        want_planes = np.stack([w["observation"] for w in want])
        want_legal = np.stack([w["action_mask"] for w in want]).astype(bool)
        planes, legal = batch.observe()
        _expect(notes, seen.moves, "planes", planes, want_planes)
        _expect(notes, seen.moves, "legal", legal, want_legal)
        actions = random_legal_actions(want_legal, rng)
        outcome = batch.step(actions.copy())
        reward, other = np.zeros((2, batch.size), np.float32)
        done, first = np.zeros((2, batch.size), bool)
        for i, (env, action) in enumerate(zip(envs, actions.tolist(), strict=True)):
            mover = env.agent_selection
            rival = next(agent for agent in env.possible_agents if agent != mover)
            first[i] = mover == env.possible_agents[0]
            env.step(action)
            reward[i], other[i] = env.rewards[mover], env.rewards[rival]
            done[i] = env.terminations[mover] or env.truncations[mover]
            if done[i]:
                env.reset()
        _expect(notes, seen.moves, "reward", outcome.reward, reward)
        _expect(notes, seen.moves, "done", outcome.done, done)
        _expect(notes, seen.moves, "first_mover", outcome.first_mover, first)
        _expect(notes, seen.moves, "rival reward", -np.asarray(outcome.reward)[done], other[done])
        won = done & (reward != 0)
        seen.first_wins += int((won & first).sum())
        seen.second_wins += int((won & ~first).sum())
        seen.draws += int((done & (reward == 0)).sum())
        seen.moves += 1
    return seen


def compare_with_spiel(
    batch: GameBatch,
    spiel: OpenSpielGame,
    moves: int,
    rng: np.random.Generator,
    limit: int = 20,
) -> Comparison:
    """Plays `moves` random moves in every game of `batch` and on one OpenSpiel state each.

    Before every move it compares the legal moves; after it, whether the game ended
    and the mover's reward (+1 a win, -1 a loss, 0 a draw or while playing) with
    OpenSpiel's. A game that OpenSpiel ends as a draw on a repeated position while the
    batch plays on (where `spiel.repetition_draw` allows it) is followed no further
    until the batch restarts it.

    Args:
      batch: a fresh batch (every game at its first position).
      spiel: the same game in OpenSpiel (`Game.openspiel`).
      moves: moves per game.
      rng: picks the moves.
      limit: differences to record before stopping early.
    """
    spiel_game = load_pyspiel().load_game(spiel.name)
    to_spiel = np.asarray(spiel.actions)
    from_spiel = np.zeros(int(to_spiel.max()) + 1, np.int64)
    from_spiel[to_spiel] = np.arange(len(to_spiel))
    states = [spiel_game.new_initial_state() for _ in range(batch.size)]
    followed = np.ones(batch.size, bool)
    seen = Comparison()
    notes = seen.differences
    for _ in range(moves):
        if len(notes) >= limit:
            break
        _, legal = batch.observe()
        for i in np.flatnonzero(followed).tolist():
            want = np.zeros(batch.num_actions, bool)
            want[from_spiel[states[i].legal_actions()]] = True
            if not np.array_equal(legal[i], want):
                notes.append(f"move {seen.moves}: legal moves differ in game {i}")
        actions = random_legal_actions(legal, rng)
        outcome = batch.step(actions.copy())
        for i, action in enumerate(actions.tolist()):
            state = states[i]
            if followed[i]:
                mover = state.current_player()
                state.apply_action(int(to_spiel[action]))
                over = state.is_terminal()
                reward = float(np.sign(state.returns()[mover])) if over else 0.0
                if over and reward == 0 and spiel.repetition_draw and not outcome.done[i]:
                    followed[i] = False
                    seen.left += 1
                elif over != bool(outcome.done[i]) or reward != float(outcome.reward[i]):
                    notes.append(
                        f"move {seen.moves}: game {i} batch (done {bool(outcome.done[i])}, "
                        f"reward {outcome.reward[i]}), OpenSpiel (done {over}, reward {reward})"
                    )
            if outcome.done[i]:
                if followed[i]:
                    won = outcome.reward[i] != 0
                    first = bool(outcome.first_mover[i])
                    seen.first_wins += int(won and first == (outcome.reward[i] > 0))
                    seen.second_wins += int(won and first != (outcome.reward[i] > 0))
                    seen.draws += int(not won)
                states[i] = spiel_game.new_initial_state()
                followed[i] = True
        seen.moves += 1
    return seen


def _expect(notes: list[str], move: int, what: str, got: np.ndarray, want: np.ndarray) -> None:
    """Notes where `got` differs from `want` (shape, dtype or values)."""
    if got.shape != want.shape or got.dtype != want.dtype:
        notes.append(f"move {move}: {what} {got.dtype}{got.shape} != {want.dtype}{want.shape}")
    elif not np.array_equal(got, want):
        rows = np.flatnonzero((got != want).reshape(len(got), -1).any(axis=1))
        notes.append(f"move {move}: {what} differs in games {rows[:10].tolist()}")


def random_play_rate(batch: GameBatch, seconds: float, rng: np.random.Generator) -> float:
    """Moves per second of uniformly random legal play in `batch` for about `seconds`."""
    moves = 0
    start = now = time.perf_counter()
    while now - start < seconds:
        batch.step(random_legal_actions(batch.observe()[1], rng))
        moves += batch.size
        now = time.perf_counter()
    return moves / (now - start)


def env_random_play_rate(
    make_env: Callable[[], Any], seconds: float, rng: np.random.Generator
) -> float:
    """Moves per second of random legal play in one PettingZoo env, by its own loop.

    The loop is PettingZoo's documented one (`agent_iter`, `last`, `step`, with the
    guard wrappers); only real moves count, not the steps that retire finished agents.

    Args:
      make_env: makes the game's environment (`Game.make_env`).
      seconds: how long to play.
      rng: the moves' random numbers.
    """
    env = make_env()
    env.reset(seed=0)
    moves = 0
    start = now = time.perf_counter()
    while now - start < seconds:
        for _agent in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            action = None
            if not (terminated or truncated):
                legal = np.flatnonzero(observation["action_mask"])
                action = int(legal[rng.integers(len(legal))])
                moves += 1
            env.step(action)
        env.reset()
        now = time.perf_counter()
    return moves / (now - start)
