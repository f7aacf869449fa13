"""Checks of a game against its own environment, on random games (for the tests).

`random_games` plays random games through `Game.make_env` and records every position;
`rules_differences` replays them through the game's pure rules, `symmetry_differences`
replays each game's image under every symmetry in a fresh environment. Each returns
the differences it found (empty: everything agreed), naming the game and the moves.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from boardq.game import Game

__all__ = [
    "Played",
    "random_games",
    "reward_differences",
    "rules_differences",
    "symmetry_differences",
]


@dataclass
class Played:
    """One random game as the environment showed it.

    Attributes:
        moves: the actions played.
        planes: the mover's planes before each move.
        masks: the mover's legal moves before each move (bool).
        rewards: the mover's reward for each move.
        final: each seat's reward at the end (seat 0 moved first).
        ended: whether the game ended (not cut short).
    """

    moves: list[int] = field(default_factory=list)
    planes: list[np.ndarray] = field(default_factory=list)
    masks: list[np.ndarray] = field(default_factory=list)
    rewards: list[float] = field(default_factory=list)
    final: tuple[float, float] = (0.0, 0.0)
    ended: bool = False


def _play(game: Game, choose, seed: int, max_moves: int | None = None) -> Played:
    """Plays one game (or its first `max_moves` moves); `choose(index, mask)` gives each move."""
    env = game.make_env()
    env.reset(seed=seed)
    seats = {agent: i for i, agent in enumerate(env.possible_agents)}
    played, final = Played(), [0.0, 0.0]
    for agent in env.agent_iter():
        observation, reward, terminated, truncated, _ = env.last()
        if terminated or truncated:
            final[seats[agent]] = float(reward)
            played.ended = True
            env.step(None)
            continue
        if len(played.moves) == max_moves:
            break
        mask = np.asarray(observation["action_mask"], bool)
        played.planes.append(np.array(observation["observation"]))
        played.masks.append(mask)
        action = choose(len(played.moves), mask)
        played.moves.append(action)
        env.step(action)
        played.rewards.append(float(env.rewards[agent]))
    env.close()
    played.final = (final[0], final[1])
    return played


def random_games(game: Game, count: int, seed: int = 0) -> list[Played]:
    """`count` games of uniformly random legal moves."""
    rng = np.random.default_rng(seed)
    return [
        _play(game, lambda i, mask: int(rng.choice(np.flatnonzero(mask))), seed + k)
        for k in range(count)
    ]


def _result(final: tuple[float, float]) -> int:
    return int(np.sign(final[0] - final[1]))


def reward_differences(game: Game, games: list[Played]) -> list[str]:
    """Where the rewards are not as boardq reads them.

    Every move but the last pays 0, the last pays its mover the result (+1 a win), and
    the end pays both seats +-1 (or 0 and 0).
    """
    notes: list[str] = []
    for played in games:
        result = _result(played.final)
        last_mover_sign = 1 if len(played.moves) % 2 == 1 else -1  # seat 0 moved last
        if any(played.rewards[:-1]) or played.rewards[-1] != last_mover_sign * result:
            notes.append(f"{game.name} {played.moves}: movers' rewards {played.rewards}")
        if played.final != (float(result), float(-result)):
            notes.append(f"{game.name} {played.moves}: final rewards {played.final}")
    return notes


def rules_differences(game: Game, games: list[Played]) -> list[str]:
    """Where the game's rules disagree with its environment on these games.

    At every move the rules' board must give the env's planes and legal moves, and no
    one may have won yet; at the end the winner (or draw) must match both final rewards.
    """
    rules = game.rules
    notes: list[str] = []
    for played in games:
        board = rules.board_from_planes(played.planes[0], played.masks[0])
        for i, (planes, mask, action) in enumerate(
            zip(played.planes, played.masks, played.moves, strict=True)
        ):
            where = f"{game.name} after {played.moves[:i]}"
            if not np.array_equal(rules.planes_from_board(board), planes):
                notes.append(f"{where}: the rules' planes differ")
            if not np.array_equal(rules.legal_mask(board), mask):
                notes.append(f"{where}: the rules' legal moves differ")
            if rules.winner(board) or rules.is_full(board):
                notes.append(f"{where}: the rules end the game early")
            board = rules.apply(board, action)
        # `board` is seen by the player after the last mover: seat len(moves) % 2.
        mover_sign = 1 if len(played.moves) % 2 == 0 else -1
        result = mover_sign * rules.winner(board)
        if result != _result(played.final) or (result == 0 and not rules.is_full(board)):
            notes.append(f"{game.name} {played.moves}: the rules say {result}, not {played.final}")
    return notes


def symmetry_differences(game: Game, games: list[Played]) -> list[str]:
    """Where a symmetry's image of a game is not a game of the environment.

    A symmetry that keeps the first position is checked in the environment: each game's
    moves, mapped, are played in a fresh one, and at every move the image's planes must
    be the mapped planes, its legal moves the mapped legal moves, and at the end its
    result the same. One that moves the first position (Othello's four discs are not
    symmetric under a mirror) maps games into the same rules from another start, so
    it is checked by the rules: at every position the mapped board has the mapped legal
    moves, and playing the mapped move gives the mapped board after the move.
    """
    notes: list[str] = []
    first = games[0].planes[0]
    for k, sym in enumerate(game.symmetries):
        keeps_start = np.array_equal(sym.planes(first[None])[0], first)
        if not keeps_start and game.rules is None:
            notes.append(f"{game.name} symmetry {k} moves the first position: no rules to check")
            continue
        check = _image_in_env if keeps_start else _image_by_rules
        for played in games:
            notes += check(game, sym, played, f"{game.name} symmetry {k} of {played.moves}")
    return notes


def _image_in_env(game: Game, sym, played: Played, where: str) -> list[str]:
    notes: list[str] = []
    moves = [int(sym.action_map[a]) for a in played.moves]
    image = _play(game, lambda i, mask: moves[i], 0, len(moves))
    if len(image.moves) != len(moves) or not image.ended:
        return [f"{where}: the image ended after {len(image.moves)} moves"]
    for i, (planes, mask) in enumerate(zip(played.planes, played.masks, strict=True)):
        if not np.array_equal(sym.planes(planes[None])[0], image.planes[i]):
            notes.append(f"{where}: planes differ at move {i}")
        if not np.array_equal(image.masks[i][sym.action_map], mask):
            notes.append(f"{where}: legal moves differ at move {i}")
    if image.final != played.final:
        notes.append(f"{where}: the image ends {image.final}, the game {played.final}")
    return notes


def _image_by_rules(game: Game, sym, played: Played, where: str) -> list[str]:
    rules, notes = game.rules, []
    for i, (planes, mask, action) in enumerate(
        zip(played.planes, played.masks, played.moves, strict=True)
    ):
        image = rules.board_from_planes(sym.planes(planes[None])[0])
        if not np.array_equal(rules.legal_mask(image)[sym.action_map], mask):
            notes.append(f"{where}: legal moves differ at move {i}")
            continue
        after = rules.apply(rules.board_from_planes(planes), action)
        mapped_after = rules.board_from_planes(sym.planes(rules.planes_from_board(after)[None])[0])
        if not np.array_equal(rules.apply(image, int(sym.action_map[action])), mapped_after):
            notes.append(f"{where}: the mapped move does not give the mapped board at move {i}")
    return notes
