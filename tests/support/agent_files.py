"""Agent files for the tests (`pythonpath` in pyproject.toml puts this folder on the import
path).
"""

from __future__ import annotations

from boardq.config import NetworkConfig
from boardq.dqn.networks import build_q_network
from boardq.players.agentfile import export_agent
from boardq_games import get_game


def random_agent(path, game_name, seed=0):
    """An agent of `game_name` with the small network's initial random weights."""
    import keras

    keras.utils.set_random_seed(seed)
    game = get_game(game_name)
    net = NetworkConfig(hidden_units=(16,))
    model = build_q_network(game.obs_shape, game.num_actions, net)
    return export_agent(path, game.name, net, game.obs_shape, game.num_actions, model.get_weights())
