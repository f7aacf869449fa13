"""The Double DQN target with legal-move masks, against hand-computed values."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

from boardq.dqn.losses import double_q_target, huber, masked_max


def test_masked_max_ignores_illegal_moves_and_terminals():
    q = tf.constant([[1.0, 9.0, 3.0], [4.0, 5.0, 6.0], [-2.0, -1.0, 7.0]])
    mask = tf.constant([[True, False, True], [False, False, False], [True, True, False]])
    np.testing.assert_allclose(masked_max(q, mask).numpy(), [3.0, 0.0, -1.0])  # row by row


def test_double_q_target_hand_computed():
    # Row 0: online prefers move 2 among legal {0, 2} (move 1 is better but illegal);
    #        target's value of move 2 is 0.5; negamax discount -0.9:
    #        y = 0 + (-0.9) * 0.5 = -0.45.
    # Row 1: terminal win: y = 1.
    # Row 2: two-step discount +0.81, target value of online's choice (0) is -1:
    #        y = -0.9 * 0 ... reward 0.2 + 0.81 * (-1.0) = -0.61.
    reward = tf.constant([0.0, 1.0, 0.2])
    discount = tf.constant([-0.9, 0.0, 0.81])
    q_online = tf.constant([[0.1, 5.0, 0.3], [1.0, 1.0, 1.0], [2.0, 1.0, 0.0]])
    q_target = tf.constant([[7.0, 7.0, 0.5], [3.0, 3.0, 3.0], [-1.0, 4.0, 4.0]])
    mask = tf.constant([[True, False, True], [False, False, False], [True, True, False]])
    y = double_q_target(reward, discount, q_online, q_target, mask).numpy()
    np.testing.assert_allclose(y, [-0.45, 1.0, -0.61], rtol=1e-6)


def test_an_epsilon_greedy_next_player_hand_computed():
    # Row 0 as above, next player random 20% of the time over its legal moves {0, 2}:
    #   v = 0.8 * 0.5 + 0.2 * (7.0 + 0.5) / 2 = 0.4 + 0.75 = 1.15; y = -0.9 * 1.15.
    # Row 1 terminal: still 1. Row 2: v = 0.8 * -1 + 0.2 * (-1 + 4) / 2 = -0.5;
    #   y = 0.2 + 0.81 * -0.5 = -0.205. Row 3: one legal move, its own mean:
    #   v = 0.8 * 5 + 0.2 * 5 = 5; y = -0.9 * 5 = -4.5.
    reward = tf.constant([0.0, 1.0, 0.2, 0.0])
    discount = tf.constant([-0.9, 0.0, 0.81, -0.9])
    q_online = tf.constant([[0.1, 5.0, 0.3], [1.0, 1.0, 1.0], [2.0, 1.0, 0.0], [1.0, 2.0, 3.0]])
    q_target = tf.constant([[7.0, 7.0, 0.5], [3.0, 3.0, 3.0], [-1.0, 4.0, 4.0], [4.0, 5.0, 6.0]])
    mask = tf.constant(
        [[True, False, True], [False, False, False], [True, True, False], [False, True, False]]
    )
    y = double_q_target(reward, discount, q_online, q_target, mask, epsilon=0.2).numpy()
    np.testing.assert_allclose(y, [-0.9 * 1.15, 1.0, -0.205, -4.5], rtol=1e-6)


def test_double_q_target_has_no_gradient():
    q_online = tf.Variable([[1.0, 2.0]])
    with tf.GradientTape() as tape:
        y = double_q_target(
            tf.constant([0.0]), tf.constant([-0.9]), q_online, q_online, tf.constant([[True, True]])
        )
    assert tape.gradient(y, q_online) is None


@pytest.mark.parametrize(("err", "expected"), [(0.5, 0.125), (-2.0, 1.5), (0.0, 0.0)])
def test_huber(err, expected):
    assert huber(tf.constant(err), 1.0).numpy() == pytest.approx(expected)
