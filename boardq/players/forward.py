"""An agent's forward pass: the network's values of a batch of positions.

In numpy or through TensorFlow's compiled function. A search at play sends the network
small batches (the presets' trees 14-16 leaves a call, by the bench). Through
TensorFlow each call pays the compiled function's dispatch (binding and checking its
arguments) on top of its arithmetic; for the small networks of boardq's presets that
overhead is most of the call, so the same arithmetic in numpy
(`boardq.dqn.numpy_net.NumpyQNetwork`, the actors' forward pass, held to the TensorFlow
network by its tests) returns several times sooner, and the search makes more visits
in its time (docs/results/search.md, "Speed: `boardq bench GAME`").

`inference` chooses: "numpy", "tensorflow", or "auto": numpy unless TensorFlow sees a
GPU, where the compiled forward pass runs on it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

import numpy as np

from boardq.execution import ACTOR_INFERENCE as INFERENCE
from boardq.settings import NetworkConfig

__all__ = ["INFERENCE", "forward_pass", "policy_pass", "resolve_inference", "two_headed_pass"]


def resolve_inference(asked: str = "auto") -> str:
    """What `asked` means on this machine: "numpy" or "tensorflow".

    Raises:
      ValueError: `asked` is not one of `INFERENCE`.
    """
    if asked not in INFERENCE:
        raise ValueError(f"inference must be one of {', '.join(INFERENCE)}, got {asked!r}")
    if asked != "auto":
        return asked
    import tensorflow as tf

    return "tensorflow" if tf.config.list_physical_devices("GPU") else "numpy"


def forward_pass(
    model, network: NetworkConfig | None, inference: str = "auto"
) -> tuple[Callable[[np.ndarray], np.ndarray], str]:
    """(planes int8 [B, ...] -> float32 Q [B, A], "numpy" or "tensorflow") for `model`.

    The weights are copied now: later changes to `model` do not reach the pass.

    Args:
      model: the Keras Q-network (`boardq.dqn.networks.build_q_network`).
      network: the shape it was built with; None: only TensorFlow can run it.
      inference: "auto", "numpy" or "tensorflow" (`resolve_inference`).
    """
    chosen = resolve_inference(inference)
    if chosen == "numpy" and network is None:
        if inference == "numpy":
            raise ValueError("numpy inference needs the network's shape (its NetworkConfig)")
        chosen = "tensorflow"
    if chosen == "numpy":
        from boardq.dqn.numpy_net import NumpyQNetwork

        obs_shape, num_actions = model.input_shape[1:], int(model.output_shape[-1])
        net = NumpyQNetwork(obs_shape, num_actions, network)
        weights = tuple(np.array(v.numpy(), np.float32) for v in model.weights)
        one_thread = _one_blas_thread()

        def numpy_forward(planes: np.ndarray) -> np.ndarray:
            with one_thread():
                return net(planes, weights)

        return numpy_forward, chosen
    from boardq.dqn.networks import QFunction

    q = QFunction(model)
    tensors = q.weights_of(model)
    return (lambda planes: q(planes, tensors).numpy()), chosen


def two_headed_pass(
    model, network: NetworkConfig | None, policy: list[np.ndarray]
) -> Callable[[np.ndarray], np.ndarray]:
    """The Q-values, then the policy head's logits: planes int8 [B, ...] -> [B, 2A].

    In numpy, one pass of the Q-network's weights (`model`'s, copied now) and the policy
    head's arrays `policy` (`boardq.players.agentfile.read_policy`), whatever computes
    the agent's Q alone.

    Raises:
      ValueError: no network shape (numpy needs it).
    """
    if network is None:
        raise ValueError("a policy's pass needs the network's shape (its NetworkConfig)")
    obs_shape, num_actions = model.input_shape[1:], int(model.output_shape[-1])
    return _numpy_two_heads(obs_shape, num_actions, network, [*model.get_weights(), *policy])


def _numpy_two_heads(obs_shape, num_actions: int, network: NetworkConfig, weights) -> Callable:
    """Planes -> [B, 2A] in numpy, one BLAS thread a call, over copies of `weights`."""
    import dataclasses

    from boardq.dqn.numpy_net import NumpyQNetwork

    net = NumpyQNetwork(obs_shape, num_actions, dataclasses.replace(network, policy_head=True))
    arrays = tuple(np.array(w, np.float32) for w in weights)
    one_thread = _one_blas_thread()

    def forward(planes: np.ndarray) -> np.ndarray:
        with one_thread():
            return net(planes, arrays)

    return forward


def policy_pass(path) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """(planes int8 [B, ...], legal moves [B, A]) -> the policy [B, A] of an agent file.

    The policy head's softmax over the legal moves (0 on the others), in numpy: the
    prior a search takes from an agent trained with a policy head.

    Raises:
      AgentFileError: the file is missing, unreadable, or carries no policy (one line).
    """
    from boardq.dqn.sampling import policy_probabilities
    from boardq.players.agentfile import network_of, read_policy

    header, weights, policy = read_policy(path)
    num_actions = int(header["num_actions"])
    forward = _numpy_two_heads(
        header["obs_shape"], num_actions, network_of(header), [*weights, *policy]
    )

    def probabilities(planes: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return policy_probabilities(forward(planes)[:, num_actions:], mask)

    return probabilities


_CONTROLLER = None


def _one_blas_thread() -> Callable[[], contextlib.AbstractContextManager]:
    """A context in which numpy's BLAS runs one thread (where threadpoolctl can say so).

    A forward pass's products are small: split over the cores, OpenBLAS's threads spin
    on cores that others (a second search, a training run) compute on, and one call
    took several times longer on a busy 2-core machine. The limit holds for the call
    only; the rest of the process keeps its threads.
    """
    global _CONTROLLER
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:
        return contextlib.nullcontext
    if _CONTROLLER is None:
        _CONTROLLER = ThreadpoolController()
    controller = _CONTROLLER
    return lambda: controller.limit(limits=1, user_api="blas")
