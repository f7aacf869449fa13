"""The Q-network's forward pass in numpy, for actors that act beside a CPU learner.

An actor's forward pass is a small batch (a thread's games) through a small network.
Run through TensorFlow it costs a function call's overhead several times its
arithmetic, and its ops queue on the same executor threads as the learner's train
step, which then waits behind them. The same arithmetic in numpy runs in the actor's
own thread, off TensorFlow's threads: on a 2-core Xeon a Connect Four forward pass of
64 games took 120 us in numpy against 580 us through TensorFlow (measured when the
actors moved off TensorFlow; docs/results/performance.md has the training figures since).

`NumpyQNetwork` mirrors `boardq.dqn.networks.build_q_network` layer by layer (the int8
planes cast to float32, 3x3 "same" convolutions with ReLU, flatten, dense layers with
ReLU, a plain or dueling head, and a policy head's logits after the Q-values where the
network has one) and reads the network's weights in Keras's order
(`model.weights`: each layer's kernel, then its bias). It computes in float32, as the
actors' TensorFlow copy of the network does; the tests hold the two to each other.

No TensorFlow here.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from boardq.execution import ACTOR_INFERENCE
from boardq.settings import NetworkConfig

__all__ = ["NumpyQNetwork", "limit_blas_threads", "resolve_actor_inference"]


def limit_blas_threads(threads: int = 1) -> bool:
    """Caps numpy's BLAS at `threads` threads in this process; False without threadpoolctl.

    OpenBLAS otherwise splits even an actor's small products over every core, and its
    threads spin on the cores the learner computes on.
    """
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return False
    threadpool_limits(threads, user_api="blas")
    return True


def resolve_actor_inference(asked: str, network: NetworkConfig, gpu: bool) -> tuple[str, str]:
    """What `actor_inference` setting `asked` means here: ("numpy" or "tensorflow", a line).

    Args:
      asked: "auto", "numpy" or "tensorflow".
      network: the network's shape (every shape `build_q_network` makes is mirrored).
      gpu: whether the learner computes on a GPU.

    Raises:
      ValueError: `asked` is not one of the three.
    """
    if asked not in ACTOR_INFERENCE:
        raise ValueError(f"actor_inference must be auto, numpy or tensorflow, got {asked!r}")
    if asked != "auto":
        return asked, f"actor inference {asked}"
    if gpu:
        return "tensorflow", (
            "actor inference auto: tensorflow, the compiled forward pass on the learner's GPU"
        )
    return "numpy", (
        "actor inference auto: numpy in the actors' threads, off the CPU learner's threads"
    )


class NumpyQNetwork:
    """Q-values of int8 planes under given weights, in numpy.

    Args:
      obs_shape: the planes' shape [H, W, C].
      num_actions: A.
      config: the network's shape (the one `build_q_network` was given).
    """

    def __init__(self, obs_shape: Sequence[int], num_actions: int, config: NetworkConfig):
        self.obs_shape = tuple(int(d) for d in obs_shape)
        self.num_actions = int(num_actions)
        self.config = config
        self._convs = len(config.conv_filters)
        self._denses = len(config.hidden_units)
        if self._convs and len(self.obs_shape) != 3:
            raise ValueError(f"convolutions need [H, W, C] planes, got {self.obs_shape}")

    @property
    def num_weights(self) -> int:
        """Arrays in a weight list: a kernel and a bias per layer (the dueling head has two)."""
        heads = (2 if self.config.dueling else 1) + (1 if self.config.policy_head else 0)
        return 2 * (self._convs + self._denses + heads)

    def __call__(self, obs: np.ndarray, weights: Sequence[np.ndarray]) -> np.ndarray:
        """float32 Q-values [B, A] of int8 planes [B, *obs_shape] under `weights`.

        With a policy head: [B, 2A], the Q-values and then the policy's logits.
        """
        if len(weights) != self.num_weights:
            raise ValueError(f"expected {self.num_weights} weight arrays, got {len(weights)}")
        x = np.asarray(obs, dtype=np.float32)
        w = iter(weights)
        for _ in range(self._convs):
            x = _conv3x3_relu(x, next(w), next(w))
        x = x.reshape(len(x), -1)
        for _ in range(self._denses):
            x = x @ next(w)
            x += next(w)
            np.maximum(x, 0.0, out=x)
        if not self.config.dueling:
            q = x @ next(w)
            q += next(w)
        else:
            value = x @ next(w) + next(w)  # [B, 1]
            advantage = x @ next(w) + next(w)  # [B, A]
            q = value + advantage - advantage.mean(axis=-1, keepdims=True)
        if not self.config.policy_head:
            return q
        logits = x @ next(w) + next(w)  # [B, A]: the policy head, the last layer made
        return np.concatenate([q, logits], axis=1)


def _conv3x3_relu(x: np.ndarray, kernel: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """A 3x3 "same" convolution with ReLU on [B, H, W, C] as one product (im2col).

    Keras's kernel is [kh, kw, C_in, C_out]: each output cell takes the padded 3x3
    window around it, row by row, channels innermost, which is the order the window
    is flattened in here.
    """
    b, h, w, c = x.shape
    padded = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    windows = np.lib.stride_tricks.sliding_window_view(padded, (3, 3), axis=(1, 2))
    # [B, H, W, C, 3, 3] -> [B, H, W, 3, 3, C] -> [B*H*W, 9*C]
    cols = windows.transpose(0, 1, 2, 4, 5, 3).reshape(b * h * w, 9 * c)
    out = cols @ kernel.reshape(9 * c, -1)
    out += bias
    np.maximum(out, 0.0, out=out)
    return out.reshape(b, h, w, -1)
