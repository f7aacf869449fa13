"""What the learner is made of: its two networks, its optimizer and its precision."""

from __future__ import annotations

import numpy as np

from boardq.dqn.chip import detect_chip
from boardq.dqn.models import build_models, learner_precision
from boardq.dqn.precision import FLOAT32, resolve_precision
from boardq_games import get_game

GAME = get_game("tictactoe")


def test_the_networks_start_alike_in_float32_and_adam_clips_the_gradient_norm():
    cfg = GAME.preset.replace(max_grad_norm=3.0).validate()
    online, target, optimizer = build_models(cfg, GAME.obs_shape, GAME.num_actions)
    for w_online, w_target in zip(online.get_weights(), target.get_weights(), strict=True):
        np.testing.assert_array_equal(w_target, w_online)
    assert online.get_layer("dense0").compute_dtype == "float32"
    assert optimizer.global_clipnorm == 3.0


def test_the_learners_precision_is_the_setting_resolved_on_this_chip():
    # bfloat16 where this chip has its units, else float32 with the line saying why.
    cfg = GAME.preset.replace(precision="bfloat16").validate()
    chosen = learner_precision(cfg, GAME.obs_shape, GAME.num_actions)
    assert chosen == resolve_precision("bfloat16", detect_chip())
    cfg = GAME.preset.replace(precision="float32").validate()
    assert learner_precision(cfg, GAME.obs_shape, GAME.num_actions) is FLOAT32
