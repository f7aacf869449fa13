"""What a finished game pays: the result alone, or a share of the final lead."""

from __future__ import annotations

import numpy as np
import pytest

from boardq.dqn.actor import Actor
from boardq.dqn.builder import Builder
from boardq.dqn.rewards import LeadRewards, Results, make_rewards
from boardq.gamebatch import Outcome
from boardq.settings import ConfigError
from boardq_games import get_game

PASS = 81


def outcome(lead=(0.0, 0.25, -0.5, 0.0)):
    return Outcome(
        reward=np.array([0.0, 1.0, -1.0, 0.0], np.float32),
        done=np.array([False, True, True, True]),
        first_mover=np.array([True, False, True, False]),
        lead=None if lead is None else np.array(lead, np.float32),
    )


def test_a_share_of_the_lead_goes_into_finished_games_only():
    got = LeadRewards(0.5).rewards(outcome())
    # Unfinished: 0; a win by a quarter of the board: 0.5 + 0.125; a loss by half of
    # it: -0.5 - 0.25; a finished game with no lead (a draw): 0.
    np.testing.assert_allclose(got, [0.0, 0.625, -0.75, 0.0])
    np.testing.assert_allclose(LeadRewards(1.0).rewards(outcome()), [0.0, 0.25, -0.5, 0.0])


def test_the_result_alone_is_the_outcomes_reward():
    o = outcome()
    assert make_rewards(0.0).rewards(o) is o.reward
    assert isinstance(make_rewards(0.0), Results)
    assert isinstance(make_rewards(0.3), LeadRewards)


def test_bad_shares_and_games_without_a_count_are_refused():
    with pytest.raises(ValueError, match="reward_lead"):
        make_rewards(-0.1)
    with pytest.raises(ValueError, match="share"):
        LeadRewards(1.5)
    with pytest.raises(ValueError, match="keep no count"):
        LeadRewards(0.5).rewards(outcome(lead=None))


def passing(obs):
    """A network whose greedy move is always the pass."""
    q = np.zeros((len(obs), PASS + 1), np.float32)
    q[:, PASS] = 1.0
    return q, 0


def terminal_rewards(rewards):
    """Two passes on empty boards: white's second pass ends every game, 7.5 ahead."""
    actor = Actor(get_game("go").vector(4), passing, None, lambda: 0.0, 1, 0.99, seed=0,
                  rewards=rewards)  # fmt: skip
    chunks = [actor.step() for _ in range(2)]
    reward = np.concatenate([c["reward"] for c in chunks])
    discount = np.concatenate([c["discount"] for c in chunks])
    return reward[discount == 0]


def test_an_actor_pays_the_lead_at_the_end_of_a_go_game():
    np.testing.assert_allclose(terminal_rewards(None), [1.0] * 4)
    np.testing.assert_allclose(terminal_rewards(LeadRewards(0.5)), [0.5 + 0.5 * 7.5 / 81] * 4)


def test_the_builder_refuses_the_lead_where_the_games_keep_no_count(tiny_config):
    with pytest.raises(ConfigError, match="reward_lead needs a game that keeps a count"):
        Builder(tiny_config.replace(reward_lead=0.5), get_game("tictactoe")).make_actors(
            passing, None, lambda: 0.0
        )


@pytest.mark.parametrize("vectorized", [True, False])
def test_go_pays_the_lead_with_either_stepping(tiny_config, vectorized):
    """The vectorized rules and the PettingZoo environments count the same lead."""
    settings = tiny_config.replace(game="go", reward_lead=0.5, games_per_thread=4)
    actors = Builder(settings.replace(vectorized=vectorized), get_game("go")).make_actors(
        passing, None, lambda: 0.0
    )
    for actor in actors:
        chunk = actor.step() and actor.step()
        np.testing.assert_allclose(chunk["reward"][chunk["discount"] == 0], 0.5 + 0.5 * 7.5 / 81)


def test_othello_environments_count_the_disc_lead():
    """Othello's disc margin over its 64 squares, from the mover's side, on random games."""
    from boardq.gamebatch import EnvGames

    othello = get_game("othello")
    games = EnvGames([othello.make_env() for _ in range(4)], [0, 1, 2, 3],
                     score=othello.setup.score, points=64)  # fmt: skip
    assert games.counts_lead
    rng = np.random.default_rng(0)
    ended = 0
    while ended < 8:
        _, mask = games.observe()
        outcome = games.step(np.array([rng.choice(np.flatnonzero(m)) for m in mask]))
        done = outcome.done
        ended += int(done.sum())
        assert (outcome.lead[~done] == 0).all()
        lead, reward = outcome.lead[done], outcome.reward[done]
        assert (np.sign(lead) == reward).all()  # ahead on discs: the win
        assert np.all(np.abs(lead * 64 - np.round(lead * 64)) < 1e-4)  # whole discs
