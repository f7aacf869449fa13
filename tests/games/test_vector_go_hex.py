"""The vectorized Go and Hex games play exactly like their environments (go-v5, Shimmy's hex)
and like OpenSpiel: random games move for move, known games, and bad moves refused."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
import pytest

from boardq.vector_check import (
    compare_with_envs,
    compare_with_spiel,
    random_legal_actions,
    random_play_rate,
)
from boardq_games import get_game
from boardq_games.go import spiel_go
from boardq_games.go.env import make_go_env
from boardq_games.go.vector import GoVector
from boardq_games.hex.env import make_env as make_hex_env
from boardq_games.hex.vector import HexVector

GO = get_game("go")
HEX = get_game("hex")
PASS = 81


class Case(NamedTuple):
    """A vectorized game at a size, its environment and how long the random check plays."""

    name: str
    make_batch: Callable[[int], Any]
    make_env: Callable[[], Any]
    games: int  # games side by side against the environments
    moves: int  # moves per game there
    finished: int  # finished games that check plays at least


CASES = {
    "go": Case("go", GO.vector, GO.make_env, 8, 300, 10),
    "go 5x5, komi 0 (ties are white's)": Case(
        "go", functools.partial(GoVector, size=5, komi=0.0),
        functools.partial(make_go_env, 5, 0.0), 8, 200, 25,
    ),
    "hex": Case("hex", HEX.vector, HEX.make_env, 16, 200, 50),
    "hex 4x4": Case(
        "hex", functools.partial(HexVector, size=4), functools.partial(make_hex_env, 4), 8, 100, 50
    ),
}  # fmt: skip
GAMES = pytest.mark.parametrize("game", [GO, HEX], ids=["go", "hex"])


@pytest.mark.parametrize("name", list(CASES))
def test_random_games_match_the_environment(name):
    case = CASES[name]
    seen = compare_with_envs(case.make_batch(case.games), case.make_env, case.moves,
                             np.random.default_rng(7))  # fmt: skip
    assert seen.differences == []
    assert seen.moves == case.moves and seen.games >= case.finished


@pytest.mark.parametrize(
    "batch, spiel, moves",
    [
        (GO.vector(128), GO.openspiel, 400),
        (GoVector(64, size=7, komi=5.5), spiel_go(7, 5.5), 400),
        (HEX.vector(128), HEX.openspiel, 200),
    ],
    ids=["go", "go 7x7", "hex"],
)
def test_hundreds_of_random_games_match_openspiel(batch, spiel, moves):
    seen = compare_with_spiel(batch, spiel, moves, np.random.default_rng(3))
    assert seen.differences == []
    assert seen.first_wins + seen.second_wins > 300 and seen.draws == 0


@pytest.mark.slow
@pytest.mark.parametrize("game, games, moves", [(GO, 64, 2200), (HEX, 64, 700)], ids=["go", "hex"])
def test_a_thousand_random_games_match_the_environment(game, games, moves):
    seen = compare_with_envs(game.vector(games), game.make_env, moves, np.random.default_rng(11))
    assert seen.differences == [] and seen.games >= 1000


@pytest.mark.slow
@pytest.mark.parametrize("game", [GO, HEX], ids=["go", "hex"])
def test_ten_thousand_random_games_match_openspiel(game):
    seen = compare_with_spiel(game.vector(256), game.openspiel, 6000, np.random.default_rng(12))
    assert seen.differences == [] and seen.first_wins + seen.second_wins >= 10_000


class Flawed:
    """A batch that reports one thing wrong, to show the OpenSpiel comparison notices."""

    def __init__(self, batch, flaw: str):
        self.batch, self.flaw = batch, flaw
        self.size, self.obs_shape = batch.size, batch.obs_shape
        self.num_actions = batch.num_actions

    def observe(self):
        planes, legal = self.batch.observe()
        if self.flaw == "legal":
            legal = legal.copy()
            legal[:, -1] = False  # no pass
        return planes, legal

    def step(self, actions):
        outcome = self.batch.step(actions)
        if self.flaw == "reward":
            return outcome._replace(reward=np.zeros_like(outcome.reward))
        return outcome


@pytest.mark.parametrize("flaw, seen", [("legal", "legal moves differ"), ("reward", "reward")])
def test_the_openspiel_comparison_notices_a_wrong_batch(flaw, seen):
    batch = Flawed(GO.vector(8), flaw)
    found = compare_with_spiel(batch, GO.openspiel, 400, np.random.default_rng(0), limit=1)
    assert found.moves < 400 and seen in found.differences[0]


def env_play(game, moves: list[int]) -> tuple[list[float], list[bool], list[float]]:
    """The environment's mover rewards and ends per move, and both players' final rewards."""
    env = game.make_env()
    env.reset(seed=0)
    rewards, ends = [], []
    for action in moves:
        mover = env.agent_selection
        env.step(action)
        rewards.append(float(env.rewards[mover]))
        ends.append(bool(env.terminations[mover]))
    return rewards, ends, [float(env.rewards[agent]) for agent in env.possible_agents]


def hex_cells(names: list[str]) -> list[int]:
    return [HEX.text.parse(name, np.ones(49, bool)) for name in names]


# Known games: (game, moves, the last move's reward for its mover, whether the first
# player made it).
KNOWN = {
    # Black's one stone holds the whole board: 81 - 7.5.
    "go: black passes last and wins": (GO, [40, PASS, PASS], 1.0, True),
    # The empty board: white wins by the komi.
    "go: white passes last and wins by the komi": (GO, [PASS, PASS], 1.0, False),
    # Black A9 and B9, white E5, all on one empty region: no one's. 2 - 1 - 7.5 < 0.
    "go: black passes second and loses": (GO, [0, 40, 1, PASS, PASS], -1.0, True),
    "hex: the first player down column d": (
        HEX,
        hex_cells([f"{c}{r}" for r in range(1, 8) for c in "dg"][:-1]),
        1.0,
        True,
    ),  # fmt: skip
    "hex: the second player along row 4": (
        HEX,
        hex_cells(
            [
                m
                for r in range(7)
                for m in ("abcdefg"[r] + "1" if r < 6 else "g7", "abcdefg"[r] + "4")
            ]
        ),
        1.0,
        False,
    ),  # fmt: skip
}


@pytest.mark.parametrize("name", list(KNOWN))
def test_known_games(name):
    game, moves, last_reward, last_first = KNOWN[name]
    rewards, ends, final = env_play(game, moves)  # the environment agrees with the answer
    assert rewards == [0.0] * (len(moves) - 1) + [last_reward]
    assert ends == [False] * (len(moves) - 1) + [True]
    winner_first = (last_reward > 0) == last_first
    assert final == ([1.0, -1.0] if winner_first else [-1.0, 1.0])

    batch = game.vector(3)
    outcomes = [batch.step(np.full(3, action)) for action in moves]
    for ply, outcome in enumerate(outcomes):
        last = ply == len(moves) - 1
        assert outcome.reward.tolist() == [last_reward if last else 0.0] * 3
        assert outcome.done.tolist() == [last] * 3
        assert outcome.first_mover.tolist() == [ply % 2 == 0] * 3
    planes, legal = batch.observe()
    assert not planes.any() and legal.all()  # restarted


# Go's final lead, the mover's area margin over the 81 points, for three known games:
# black's one stone holds the board (81 - 7.5 for black, who passes last); the empty
# board (white passes last, ahead by the komi); 2 - 1 - 7.5 for black, who passes last.
GO_LEADS = [
    ([40, PASS, PASS], 73.5 / 81),
    ([PASS, PASS], 7.5 / 81),
    ([0, 40, 1, PASS, PASS], -6.5 / 81),
]


@pytest.mark.parametrize("moves, lead", GO_LEADS)
def test_go_counts_the_movers_final_lead(moves, lead):
    batch = GO.vector(2)
    assert batch.counts_lead
    outcomes = [batch.step(np.full(2, action)) for action in moves]
    assert [o.lead.tolist() for o in outcomes[:-1]] == [[0.0, 0.0]] * (len(moves) - 1)
    np.testing.assert_allclose(outcomes[-1].lead, [lead, lead], rtol=1e-6)
    assert (np.sign(outcomes[-1].lead) == outcomes[-1].reward).all()


def test_hex_keeps_no_count():
    batch = HEX.vector(2)
    assert not getattr(batch, "counts_lead", False)
    assert batch.step(np.zeros(2, np.int64)).lead is None


@GAMES
def test_games_end_independently_and_restart(game):
    ending, going_on = {
        "go": ([40, PASS, PASS], [0, 1, 2]),
        "hex": (KNOWN["hex: the first player down column d"][1], list(range(13))),
    }[game.name]
    batch = game.vector(2)
    outcomes = [batch.step(np.array(pair)) for pair in zip(ending, going_on, strict=True)]
    assert [o.done.tolist() for o in outcomes] == [[False, False]] * (len(ending) - 1) + [
        [True, False]
    ]
    planes, legal = batch.observe()
    assert not planes[0].any() and legal[0].all()
    assert planes[1, ..., :2].sum() == len(going_on) and planes[1, ..., 2].all()  # second to move


def test_go_captures_and_the_ko_point_in_many_games_at_once():
    # Game 0 plays the ko (black D4 takes C4); game 1 the same, with black's last move
    # elsewhere, so only game 0 forbids white C4.
    def p(name):
        return GO.text.parse(name, np.ones(82, bool))

    shape = [p(n) for n in ("B4", "D5", "C5", "E4", "C3", "D3", "J9", "C4")]
    batch = GO.vector(2)
    for action in shape:
        batch.step(np.array([action, action]))
    batch.step(np.array([p("D4"), p("A1")]))
    planes, legal = batch.observe()
    assert planes[0, 5, 2, :2].sum() == 0 and planes[1, 5, 2, 0] == 1  # C4 taken in game 0 only
    assert not legal[0, p("C4")] and not legal[1, p("C4")]  # game 1: C4 is taken
    assert legal[0, PASS] and legal[0, p("A9")]
    with pytest.raises(ValueError, match="illegal move played in games \\[0\\]"):
        batch.step(np.array([p("C4"), p("A9")]))
    batch.step(np.array([p("A9"), p("A9")]))
    batch.step(np.array([p("H1"), p("H1")]))
    assert batch.observe()[1][0, p("C4")]  # the ko is over: white may retake


@GAMES
def test_bad_moves_are_refused_before_any_change(game):
    batch = game.vector(2)
    batch.step(np.array([40, 40]))
    before = [array.copy() for array in batch.observe()]
    for actions, message in (
        ([0, 40], "games \\[1\\]"),
        ([0, game.num_actions], "actions must be"),
        ([0, -1], "actions must be"),
        ([0], "expected 2 actions"),
    ):
        with pytest.raises(ValueError, match=message):
            batch.step(np.array(actions))
        assert all(np.array_equal(a, b) for a, b in zip(batch.observe(), before, strict=True))


@GAMES
def test_reset_observe_and_at_least_one_game(game):
    batch = game.vector(5)
    planes, legal = batch.observe()
    assert (planes.dtype, planes.shape) == (np.int8, (5, *game.obs_shape))
    assert (legal.dtype, legal.shape) == (np.bool_, (5, game.num_actions))
    batch.step(np.zeros(5, np.int64))
    assert batch.observe()[0] is planes and batch.observe()[1] is legal and planes.any()
    batch.reset()
    assert not planes.any() and legal.all()
    with pytest.raises(ValueError):
        game.vector(0)


@GAMES
def test_random_play_plays_only_legal_moves(game):
    batch = game.vector(32)
    played = np.zeros(game.num_actions, np.int64)
    rng = np.random.default_rng(3)
    for _ in range(300):
        legal = batch.observe()[1].copy()
        actions = random_legal_actions(legal, rng)
        assert legal[np.arange(32), actions].all()
        played += np.bincount(actions, minlength=game.num_actions)
        batch.step(actions)
    assert (played > 0).all()
    assert random_play_rate(batch, 0.1, rng) > 0


def test_go_leads_match_the_environments_count():
    """Random games that pass often (so that many end): both steppings count each the same."""
    from boardq.gamebatch import EnvGames

    batch = GO.vector(6)
    envs = EnvGames([GO.make_env() for _ in range(6)], range(6), score=GO.setup.score, points=81)
    rng = np.random.default_rng(3)
    ended = 0
    for _ in range(300):
        _, legal = envs.observe()
        np.testing.assert_array_equal(batch.observe()[1], legal)
        moves = np.array([rng.choice(np.flatnonzero(m)) for m in legal])
        moves[rng.random(6) < 0.15] = PASS
        got, want = batch.step(moves), envs.step(moves)
        np.testing.assert_array_equal(got.done, want.done)
        np.testing.assert_allclose(got.lead, want.lead, atol=1e-6)
        ended += int(got.done.sum())
    assert ended > 30  # about 45 with this seed
