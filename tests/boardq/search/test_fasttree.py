"""The compiled tree (`boardq.search.fasttree`) grows the plain tree's tree, to the bit.

Two players, one on the plain tree and one on the compiled, search the same positions
with the same network (a stub whose values are a seeded random function of the
position) at equal visits; they must choose the same moves with the same visits,
values, priors, proofs and principal variations, along games whose tree is kept from
move to move.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
from stub_nets import observation

from boardq.pruning import PrunedRules
from boardq.search.fasttree import CompiledTree, PlainTree
from boardq.search.tree_node import end_value
from boardq.search.tree_player import TreeConfig, TreeSearchPlayer
from boardq_games.connect_four.rules import RULES as C4
from boardq_games.go.planes import own_eyes
from boardq_games.go.rules import GoRules
from boardq_games.hex.rules import HexRules
from boardq_games.othello.rules import RULES as OTHELLO

GO = GoRules(9, 7.5)


class HashNet:
    """A network whose values are a seeded random function of the position's planes."""

    def __init__(self, num_actions: int, seed: int = 0) -> None:
        self.num_actions, self.seed = num_actions, seed.to_bytes(4, "little")

    def __call__(self, planes: np.ndarray) -> np.ndarray:
        rows = []
        for p in np.asarray(planes, np.int8):
            digest = hashlib.blake2b(p.tobytes() + self.seed, digest_size=8).digest()
            rng = np.random.default_rng(int.from_bytes(digest, "little"))
            rows.append(rng.uniform(-0.95, 0.95, self.num_actions))
        return np.asarray(rows, np.float32)


class HashPolicyNet(HashNet):
    """A two-headed network: the values, and policy logits of another seeded function."""

    def __call__(self, planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        q = super().__call__(planes)
        logits = HashNet.__call__(self, np.flip(np.asarray(planes, np.int8), 0)) * 3.0
        return q, logits[::-1]


def stats(player: TreeSearchPlayer) -> list[tuple]:
    return [(m.action, m.visits, m.value, m.prior, m.pv, m.proven) for m in player.move_stats()]


CASES = {
    "connect_four": (C4, lambda: np.zeros((6, 7), np.int8), None, TreeConfig()),
    "connect_four_scan2": (C4, lambda: np.zeros((6, 7), np.int8), None, TreeConfig(scan_plies=2)),
    "othello": (OTHELLO, OTHELLO.start, 64, TreeConfig(leaves_per_call=8)),
    "hex": (HexRules(7), HexRules(7).start, None, TreeConfig()),
    "go_pruned": (PrunedRules(GO, own_eyes), GO.start, 81, TreeConfig()),
    "go_pass_searched": (PrunedRules(GO, own_eyes), GO.start, 81, TreeConfig(pass_to_end=False)),
    "go_5x5": (GoRules(5, 0.5), GoRules(5, 0.5).start, 25, TreeConfig()),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_compiled_tree_chooses_the_plain_trees_moves_with_the_same_statistics(case):
    play_both_trees(case, HashNet(CASES[case][0].num_actions, seed=len(case)))


@pytest.mark.parametrize(
    "case", ["connect_four", "connect_four_scan2", "othello", "hex", "go_pruned"]
)
def test_with_a_policy_as_prior_the_compiled_tree_grows_the_plain_trees_tree(case):
    """Priors from a policy's logits and leaves valued by its expectation of Q, alike."""
    # Connect Four's games against random replies end soon: 3 moves compared at least.
    net = HashPolicyNet(CASES[case][0].num_actions, seed=len(case) + 3)
    play_both_trees(case, net, least_moves=3)


def play_both_trees(case: str, net, least_moves: int = 5) -> None:
    rules, start, pass_action, config = CASES[case]
    players = [
        TreeSearchPlayer(rules, net, visits=250, config=config, pass_action=pass_action,
                         compiled=compiled)
        for compiled in (False, True)
    ]  # fmt: skip
    assert isinstance(players[0]._tree, PlainTree)
    assert isinstance(players[1]._tree, CompiledTree)
    plain = getattr(rules, "rules", rules)  # without the pruning
    rng = np.random.default_rng(7)
    board, moves, proven = start(), 0, 0
    for _ply in range(24 if case.startswith("go") else 40):
        if end_value(rules, board) is not None:
            break
        seen = observation(plain, board)  # the environment's: every legal move
        chosen = [p.act(seen) for p in players]
        assert chosen[0] == chosen[1]
        assert stats(players[0]) == stats(players[1])
        assert [p.stats for p in players][0] == players[1].stats  # visits, calls, kept
        moves += 1
        proven += any(m.proven for m in players[0].move_stats())
        board = rules.apply(board, chosen[0])
        if end_value(rules, board) is not None:
            break
        # A random reply keeps part of the tree (two plies below the root) or none.
        reply = int(rng.choice(np.flatnonzero(rules.legal_mask(board))))
        board = rules.apply(board, reply)
    assert moves >= least_moves
    assert proven > 0 or case.startswith("go")  # proofs were made and carried alike
    assert players[1].stats.reused > 0  # the kept tree was found again and compacted
