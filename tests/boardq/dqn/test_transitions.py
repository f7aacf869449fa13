"""Turn bookkeeping: hand-worked games, checked move by move."""

from __future__ import annotations

import numpy as np
import pettingzoo
import pytest

from boardq.dqn.actor import Actor
from boardq.dqn.schema import FIELDS, SCHEMA, empty_columns
from boardq.dqn.transitions import NStepBuilder, Transition, stack_transitions
from boardq.gamebatch import EnvGames

GAMMA = 0.9


def ttt_planes(own=(), opp=()):
    """Tic-tac-toe planes as PettingZoo gives them: [i, j] is square 3 i + j."""
    p = np.zeros((3, 3, 2), np.int8)
    for a in own:
        p[a // 3, a % 3, 0] = 1
    for a in opp:
        p[a // 3, a % 3, 1] = 1
    return p


def mask_without(*taken):
    m = np.ones(9, bool)
    m[list(taken)] = False
    return m


class ScriptedQ:
    """act_fn that makes the greedy choice the next scripted move of each game."""

    def __init__(self, moves, num_actions=9):
        self.moves = list(moves)
        self.num_actions = num_actions
        self.calls = 0

    def __call__(self, obs):
        q = np.zeros((len(obs), self.num_actions), np.float32)
        q[:, self.moves[self.calls]] = 1.0
        self.calls += 1
        return q, 7


def make_actor(moves, n_step=1, game="classic/tictactoe-v3", num_actions=9):
    import queue

    act = ScriptedQ(moves, num_actions)
    actor = Actor(
        games=EnvGames([pettingzoo.make("aec", game)], seeds=[0]),
        act_fn=act,
        out_queue=queue.Queue(),
        epsilon_fn=lambda: 0.0,
        n_step=n_step,
        discount=GAMMA,
        seed=0,
    )
    return actor


def play(actor, moves: int) -> list[Transition]:
    """The transitions `moves` actor steps close, in the order the chunks hold them."""
    out = []
    for _ in range(moves):
        chunk = actor.step()
        out += [Transition(**{k: chunk[k][i] for k in FIELDS}) for i in range(len(chunk["action"]))]
    return out


def test_first_player_win_one_step_hand_worked():
    # X: 0, 3, 6 (the top row: PettingZoo numbers cells down the columns); O: 1, 2.
    actor = make_actor([0, 1, 3, 2, 6])
    out = play(actor, 5)
    assert [t.action for t in out] == [0, 1, 3, 2, 6]
    # Each move's next state is the opponent's view, with the opponent's legal moves.
    expected_next = [
        (ttt_planes(opp=[0]), mask_without(0)),
        (ttt_planes(own=[0], opp=[1]), mask_without(0, 1)),
        (ttt_planes(own=[1], opp=[0, 3]), mask_without(0, 1, 3)),
        (ttt_planes(own=[0, 3], opp=[1, 2]), mask_without(0, 1, 2, 3)),
    ]
    for t, (planes, mask) in zip(out[:4], expected_next, strict=True):
        assert t.reward == 0.0
        assert t.discount == pytest.approx(-GAMMA)  # the next state is the opponent's
        np.testing.assert_array_equal(t.next_obs, planes)
        np.testing.assert_array_equal(t.next_mask, mask)
    # Each move's own state is the mover's view.
    np.testing.assert_array_equal(out[1].obs, ttt_planes(opp=[0]))
    np.testing.assert_array_equal(out[4].obs, ttt_planes(own=[0, 3], opp=[1, 2]))
    # The winning move: +1, terminal (no bootstrap, no legal move).
    win = out[4]
    assert win.reward == 1.0 and win.discount == 0.0
    assert not win.next_mask.any() and not win.next_obs.any()
    # O's last move (2) is not terminal: its -1 arrives by bootstrapping from X's
    # position, where X's best move wins.
    assert out[3].discount == pytest.approx(-GAMMA)
    assert actor.stats.games == 1 and actor.stats.results == [1, 0, 0]


def test_second_player_win_and_reset():
    # X: 0, 1, 5; O: 6, 7, 8 (the right column), then X opens the next game with 4.
    actor = make_actor([0, 6, 1, 7, 5, 8, 4])
    out = play(actor, 7)
    assert [t.action for t in out] == [0, 6, 1, 7, 5, 8, 4]
    assert out[5].reward == 1.0 and out[5].discount == 0.0
    assert all(t.reward == 0.0 for t in out[:5])
    assert actor.stats.results == [0, 0, 1]
    # After the game ends the env is reset: the next move is X's on an empty board.
    assert actor.stats.games == 1
    assert actor.games.envs[0].agent_selection == "player_2"  # O to move after X's 4


def test_draw_is_terminal_with_zero_reward():
    moves = [2, 8, 4, 1, 0, 5, 7, 6, 3]  # checked below to end in a draw
    env = pettingzoo.make("aec", "classic/tictactoe-v3")
    env.reset()
    for a in moves[:-1]:
        env.step(a)
        assert not any(env.terminations.values()), "sequence must not end early"
    actor = make_actor(moves)
    out = play(actor, 9)
    assert len(out) == 9
    assert out[-1].reward == 0.0 and out[-1].discount == 0.0
    assert actor.stats.results == [0, 1, 0]


def test_n_step_returns_alternate_sign():
    b = NStepBuilder(2, GAMMA, (3, 3, 2), 9)
    s = [ttt_planes(), ttt_planes(opp=[0]), ttt_planes(own=[0], opp=[4]), ttt_planes()]
    m = mask_without()
    assert b.add(s[0], 0, 0.0, s[1], m, False) == []
    t0 = b.add(s[1], 4, 0.0, s[2], m, False)
    assert len(t0) == 1 and t0[0].action == 0
    # Two moves later it is the same player's turn again: +gamma^2.
    assert t0[0].discount == pytest.approx(GAMMA**2)
    np.testing.assert_array_equal(t0[0].next_obs, s[2])
    # The third move wins: both pending moves close as terminal.
    t = b.add(s[2], 8, 1.0, None, None, True)
    assert [x.action for x in t] == [4, 8]
    assert t[0].reward == pytest.approx(-GAMMA * 1.0)  # the opponent's win counts against
    assert t[1].reward == 1.0
    assert all(x.discount == 0.0 for x in t)


def test_n_step_three_bootstraps_from_opponent_view():
    b = NStepBuilder(3, GAMMA, (3, 3, 2), 9)
    p = ttt_planes()
    m = mask_without()
    for a in range(2):
        assert b.add(p, a, 0.0, p, m, False) == []
    (t,) = b.add(p, 2, 0.0, p, m, False)
    assert t.discount == pytest.approx(-(GAMMA**3))


def test_stack_transitions_follows_the_schema():
    actor = make_actor([0, 1, 3, 2, 6])
    cols = stack_transitions(play(actor, 5))
    template = empty_columns(5, (3, 3, 2), 9)
    assert tuple(cols) == FIELDS == tuple(c.name for c in SCHEMA)
    for name in FIELDS:
        assert cols[name].dtype == template[name].dtype, name
        assert cols[name].shape == template[name].shape, name
    np.testing.assert_array_equal(cols["action"], [0, 1, 3, 2, 6])


def test_connect_four_agents_and_orientation():
    # Player 0 drops four pieces in column 3; player 1 plays column 0.
    actor = make_actor([3, 0, 3, 0, 3, 0, 3], game="classic/connect_four-v3", num_actions=7)
    out = play(actor, 7)
    assert out[-1].reward == 1.0 and out[-1].discount == 0.0
    # Row 0 is the top: after the first move the piece is in the bottom row (5).
    first_next = out[0].next_obs  # player_1's view: the piece is the opponent's
    assert first_next[5, 3, 1] == 1 and first_next[..., 0].sum() == 0
    assert actor.stats.results == [1, 0, 0]


def test_a_cut_closes_the_pending_moves_where_the_greedy_line_ends():
    """Three-move returns; the opponent's reply (move 1) explores, so move 0's return
    stops before it: its own reward, bootstrapped from the position move 1 was made in."""
    b = NStepBuilder(3, GAMMA, (3, 3, 2), 9)
    s = [ttt_planes(), ttt_planes(opp=[0]), ttt_planes(own=[0], opp=[4])]
    assert b.add(s[0], 0, 0.0, s[1], mask_without(0), False) == []
    (t,) = b.cut(s[1], mask_without(0))
    assert (t.action, t.reward, t.discount) == (0, 0.0, pytest.approx(-GAMMA))
    np.testing.assert_array_equal(t.next_obs, s[1])
    np.testing.assert_array_equal(t.next_mask, mask_without(0))
    assert b.cut(s[1], mask_without(0)) == []  # nothing pending: nothing to close
    # Move 1 starts a full three-move return of its own again.
    assert b.add(s[1], 4, 0.0, s[2], mask_without(0, 4), False) == []
    assert b.add(s[2], 1, 0.0, s[0], mask_without(0, 1, 4), False) == []
    (t,) = b.add(s[0], 2, 0.0, s[1], mask_without(0, 1, 2, 4), False)
    assert (t.action, t.discount) == (4, pytest.approx(-(GAMMA**3)))


def test_watkins_returns_stop_before_an_exploring_move_of_either_player():
    """Tic-tac-toe, three-move returns, the greedy move always the lowest free square;
    every third move explores. Each transition runs until the next exploring move
    (or three moves, or the end), and every move of the game is a transition once."""
    import queue

    from boardq.dqn.returns import Watkins

    class LowestFree:
        def __call__(self, obs):
            free = (obs[..., 0] == 0) & (obs[..., 1] == 0)
            return np.where(free.reshape(len(obs), 9), -np.arange(9.0), -99.0), 1

    explore = iter([0.0, 1.0, 0.0] * 20)
    actor = Actor(
        games=EnvGames([pettingzoo.make("aec", "classic/tictactoe-v3")], seeds=[3]),
        act_fn=LowestFree(),
        out_queue=queue.Queue(),
        epsilon_fn=lambda: next(explore),
        n_step=3,
        discount=GAMMA,
        seed=5,
        returns=Watkins(),
    )
    seen = []  # (planes, move, greedy) of each move of the first game
    out = []
    while True:
        obs, mask = actor.games.observe()  # buffers the next step refills: copy
        planes, greedy = obs[0].copy(), int(np.flatnonzero(mask[0])[0])
        chunk = actor.step()
        out += [Transition(**{k: chunk[k][i] for k in FIELDS}) for i in range(len(chunk["action"]))]
        move = actor._nstep._action[(actor._nstep._t - 1) % 3, 0]  # the move just recorded
        seen.append((planes, int(move), greedy))
        if actor.stats.games:
            break
    explored = [k for k, (_, a, g) in enumerate(seen) if a != g]
    assert explored, "the scripted exploration made no move off the greedy line"
    assert sorted(t.action for t in out) == sorted(a for _, a, _ in seen)
    by_move = {t.action: t for t in out}
    for k, (planes, a, _) in enumerate(seen):
        t = by_move[a]
        np.testing.assert_array_equal(t.obs, planes)
        stop = next((j for j in explored if j > k), None)
        if stop is not None and stop - k < 3:  # cut before the exploring move
            assert t.discount == pytest.approx((-GAMMA) ** (stop - k)), k
            np.testing.assert_array_equal(t.next_obs, seen[stop][0])
        elif k + 3 < len(seen):  # a full three-move return
            assert t.discount == pytest.approx(-(GAMMA**3)), k
        else:
            assert t.discount == 0.0, k  # the game ended within its three moves


def test_the_returns_setting_names_every_rule():
    from boardq.config import RETURNS
    from boardq.dqn.returns import RULES, make_returns

    assert tuple(RULES) == RETURNS
    with pytest.raises(ValueError, match="plain, watkins"):
        make_returns("retrace")


def test_watkins_cuts_before_every_move_but_the_best_legal_one():
    from boardq.dqn.returns import Plain, Watkins

    q = np.array([[5.0, 1.0, 0.0], [5.0, 1.0, 0.0], [0.0, 2.0, 3.0]])
    mask = np.array([[False, True, True], [False, True, True], [True, True, True]])
    # Game 0 plays its best legal move (move 0 is better but illegal); game 1 and 2 explore.
    cuts = Watkins().cuts(q, mask, np.array([1, 2, 1]))
    assert cuts.tolist() == [False, True, True]
    assert Plain().cuts(q, mask, np.array([1, 2, 1])) is None
