"""Go (9x9): PettingZoo's classic/go-v5, its preset, rules, vectorized rules and text board.

OpenSpiel's `go` plays the same rules (area scoring, komi 7.5, suicide illegal, simple
ko) but ends a game at 2 * 81 moves, where PettingZoo's goes on until two passes in a
row; the mirror lifts that limit, and then the two agree move for move (the tests
check it on random games). boardq's own rules (`boardq_games.go.rules`, and many games at
once in `boardq_games.go.vector`, which training steps) are checked against both.
"""

from __future__ import annotations

import dataclasses
import functools

import numpy as np

from boardq.config import NetworkConfig
from boardq.game import Game, OpenSpielGame, bundled_agent_file
from boardq.gtp.protocol import GtpDialect
from boardq.setup import Setup
from boardq.symmetry import DIHEDRAL, board_symmetries
from boardq_games.go.env import area_score, display_board, make_go_env
from boardq_games.go.planes import PLANES, own_eyes
from boardq_games.go.rules import GoRules
from boardq_games.go.text import SIZE, TEXT
from boardq_games.go.vector import GoVector
from boardq_games.presets import BOARD_GAME

__all__ = ["GAME", "GTP", "HANDICAP", "KOMI", "PRESET", "RULES", "SETUP", "spiel_go", "with_komi"]

KOMI = 7.5
RULES = GoRules(SIZE, KOMI)
_POINTS = SIZE * SIZE
_SPIEL_MAX_MOVES = 100_000
"""OpenSpiel's limit on a game's length, far beyond any game PettingZoo plays out."""

PRESET = BOARD_GAME.replace(
    game="go",
    # An hour: the preset's hour made 379,712 train steps, and its best agent won 42 of
    # 100 as black with 9 stones against GNU Go level 1 (mean lead -10.4), where the
    # 20-minute runs' best agents won 0-4 of 20 (docs/results/go.md, "Go: an hour of
    # the preset"); its ladder's engine figure rose over the whole hour.
    budget_minutes=60.0,
    # 300k transitions of (9, 9, 8) planes twice over take ~440 MB.
    replay_capacity=300_000,
    replay_ratio=16.0,
    discount=0.995,
    eval_every_sec=300.0,
    # GNU Go (Debian's gnugo) decides which agent is the best (boardq.training.ladder);
    # where it is not installed, the rung is left out with one line.
    eval_ladder="random,mcts:50,gtp:gnugo --mode gtp --level 1 --chinese-rules --capture-all-dead",
    eval_games=20,
    # As black the agent takes 9 stones on the ladder (white plays even): even games
    # against GNU Go are lost by the whole board by every agent so far, while with 9
    # stones the agents of 20-minute runs win 0-4 of 20 and lose by 23-88 points, a
    # measure that tells them apart (docs/results/go.md, "Go: liberty planes and eyes
    # kept").
    eval_handicap=9,
    # One run after the other, 20 minutes each: the MLP 512, 256 won 86% / 99% against random (its
    # losses as black: passing back while under the komi); this small convolutional
    # network, as Gomoku's, 100% / 100% and mcts:50 80% / 100% on the ladder
    # (docs/results/go.md, "The first presets: 20 minutes").
    network=NetworkConfig(conv_filters=(16, 16), hidden_units=(128,)),
    # Half of a finished game's reward is the final area lead over the 81 points: two
    # pairs of 20-minute runs side by side, best agents against mcts:100 (100 games a
    # seat) 0.880 and 0.890 against 0.815 and 0.810, mean lead +47 and +49 against +34
    # and +35 (docs/results/go.md, "Go: paying the final lead").
    reward_lead=0.5,
    # No player fills its own true eye (boardq.pruning): two pairs side by side with
    # the preset before it, best agents 0.945 and 0.960 against 0.900 and 0.885 on
    # mcts:100 (100 games a seat), and as black with 9 handicap stones against GNU Go
    # level 1 a mean lead of -23 and -27 against -88 and -78 (docs/results/go.md, "Go:
    # liberty planes and eyes kept").
    prune_moves=True,
)


HANDICAP = {
    stones: tuple(points.split())
    for stones, points in {
        2: "G7 C3",
        3: "C7 G7 C3",
        4: "C7 G7 C3 G3",
        5: "C7 G7 E5 C3 G3",
        6: "C7 G7 C5 G5 C3 G3",
        7: "C7 G7 C5 E5 G5 C3 G3",
        8: "C7 E7 G7 C5 G5 C3 E3 G3",
        9: "C7 E7 G7 C5 E5 G5 C3 E3 G3",
    }.items()
}
"""The fixed handicap stones of 9x9 (GTP's `fixed_handicap`, as GNU Go places them)."""

# GTP's vertices are the board's own labels (A1-J9 without I, row 1 at the bottom).
GTP = GtpDialect(size=SIZE, letters=TEXT.grid.letters, bottom_up=True, pass_action=_POINTS)


def area_owners(env) -> np.ndarray:
    """Each point's owner on a finished Go env's board (+1 black's, -1 white's, 0 dame)."""
    return RULES.area_owners(display_board(env))


SETUP = Setup(
    komi=KOMI,
    score=area_score,
    pass_action=_POINTS,
    owners=area_owners,
    handicap={n: tuple(GTP.action(v) for v in points) for n, points in HANDICAP.items()},
    variant=lambda komi: with_komi(komi),  # defined below, with the game
)
"""Go's count (area with every stone alive, komi for white; each point's owner) and handicap."""


def spiel_go(size: int, komi: float) -> OpenSpielGame:
    """OpenSpiel's `go` of a size and komi, its move limit lifted, as the mirror of go-v5's.

    OpenSpiel numbers the points from the bottom row (a1 = 0), PettingZoo from the top.
    """
    points = size * size

    def spiel_action(action: int) -> int:
        if action == points:
            return points  # pass
        row, col = divmod(action, size)
        return (size - 1 - row) * size + col

    return OpenSpielGame(
        f"go(board_size={size},komi={komi},max_game_length={_SPIEL_MAX_MOVES})",
        tuple(spiel_action(a) for a in range(points + 1)),
        repetition_draw=True,
    )


GAME = Game(
    name="go",
    title="Go",
    env_id="classic/go-v5",
    obs_shape=(SIZE, SIZE, PLANES),
    num_actions=_POINTS + 1,
    preset=PRESET,
    rules=RULES,
    text=TEXT,
    # Point (r, c) is action 9r + c; area scoring and komi do not see orientation.
    symmetries=board_symmetries(DIHEDRAL, np.arange(_POINTS).reshape(SIZE, SIZE), extra_actions=1),
    openspiel=spiel_go(SIZE, KOMI),
    vector=functools.partial(GoVector, size=SIZE, komi=KOMI),
    env_maker=functools.partial(make_go_env, SIZE, komi=KOMI),  # make_env(komi=K): another komi
    board_of=display_board,
    players=(),
    bundled_agent=bundled_agent_file(__name__),
    gtp=GTP,
    setup=SETUP,
    # With `prune_moves`, no player fills its own true eye (boardq.pruning).
    pruned_moves=own_eyes,
)


def with_komi(komi: float) -> Game:
    """Go set up with `komi`: its environments, rules, vectorized rules, mirror and count.

    The agents learnt with `KOMI` and play on with another.
    """
    return dataclasses.replace(
        GAME,
        rules=GoRules(SIZE, komi),
        openspiel=spiel_go(SIZE, komi),
        vector=functools.partial(GoVector, size=SIZE, komi=komi),
        env_maker=functools.partial(make_go_env, SIZE, komi=komi),
        setup=dataclasses.replace(SETUP, komi=komi),
    )
