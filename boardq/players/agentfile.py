"""The agent file: a trained network and its header, written and read without TensorFlow.

An exported agent is a numpy `.npz` archive (no pickled objects): the network's
weights in order and a JSON header naming the game and the network shape
(`boardq.players.agent.Agent` rebuilds the network from it). A network trained with a
policy head (`NetworkConfig.policy_head`) keeps that head's kernel and bias apart
(`p000`, `p001`, beside the Q-network's `w000`...) and says so in its header
(`"policy": {"arrays": 2}`): the Q-network reads and plays as any agent's, in this
boardq and in one before it, and `read_policy` gives the policy where there is one.
A run directory stands for its best agent by the ladder, else its last one;
`bundled:GAME` for the agent that comes with the install for GAME
(`boardq.game.Game.bundled_agent`).
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from boardq.config import NetworkConfig
from boardq.errors import AgentFileError, BoardqError
from boardq.rundir import AGENT_FILE, BEST_AGENT_FILE, atomic_write_bytes

__all__ = [
    "BUNDLED",
    "FORMAT",
    "FORMAT_VERSION",
    "SYMMETRIC_KEY",
    "SYMMETRIC_LADDER",
    "agent_file",
    "averaged_weights",
    "bundled_agent",
    "chosen_symmetric",
    "export_agent",
    "network_of",
    "q_arrays",
    "read_agent",
    "read_header",
    "read_policy",
]


FORMAT = "boardq-agent"
FORMAT_VERSION = 1
# Whether the agent's run chose to play it with values averaged over the board's
# symmetries (`info["symmetric"]`, its `eval_symmetric`); every agent file a run writes
# says so.
SYMMETRIC_KEY = "symmetric"
# Ends the ladder's name in a best agent's info (`info["ladder"]`) when the ladder played
# it with values averaged over the symmetries (boardq/training/ladder.py); what files
# written before `SYMMETRIC_KEY` existed say.
SYMMETRIC_LADDER = " symmetric"
BUNDLED = "bundled:"
"""`bundled:GAME` names the agent that comes with the install for GAME."""


def export_agent(
    path: str | Path,
    game: str,
    network: NetworkConfig,
    obs_shape,
    num_actions: int,
    weights: list[np.ndarray],
    info: dict[str, Any] | None = None,
) -> Path:
    """Writes an agent file atomically; returns its path.

    With `network.policy_head` and the weights of the two-headed network (the Q-network's
    and the policy head's kernel and bias, last), the policy is kept apart; weights of
    the Q-network alone (an average of files without one) are written as they are.
    """
    weights = list(weights)
    policy: list[np.ndarray] = []
    if network.policy_head and len(weights) == q_arrays(network) + 2:
        weights, policy = weights[:-2], weights[-2:]
    header = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "game": game,
        "network": {
            "conv_filters": list(network.conv_filters),
            "hidden_units": list(network.hidden_units),
            "dueling": network.dueling,
        },
        "obs_shape": list(obs_shape),
        "num_actions": int(num_actions),
        "info": info or {},
    }
    if policy:
        header["policy"] = {"arrays": len(policy)}
    arrays = {f"w{i:03d}": np.asarray(w) for i, w in enumerate(weights)}
    arrays |= {f"p{i:03d}": np.asarray(w) for i, w in enumerate(policy)}
    buf = io.BytesIO()
    np.savez(buf, header=np.array(json.dumps(header)), **arrays)
    path = Path(path)
    atomic_write_bytes(path, buf.getvalue())
    return path


def q_arrays(network: NetworkConfig) -> int:
    """How many arrays the Q-network's weights are: a kernel and a bias a layer."""
    heads = 2 if network.dueling else 1
    return 2 * (len(network.conv_filters) + len(network.hidden_units) + heads)


def read_agent(path: Path) -> tuple[dict[str, Any], list[np.ndarray]]:
    """The header and the Q-network's weights of an agent file.

    Raises:
      AgentFileError: missing, unreadable, or not an agent file of this boardq.
    """
    header, weights, _ = _read(path)
    return header, weights


def read_policy(path: str | Path) -> tuple[dict[str, Any], list[np.ndarray], list[np.ndarray]]:
    """The header, the Q-network's weights and the policy head's of an agent file.

    Raises:
      AgentFileError: missing or unreadable, or the file carries no policy (one line).
    """
    path = agent_file(path)
    header, weights, policy = _read(path)
    if not policy:
        raise AgentFileError(f"{path} carries no policy: its run trained without --policy-head")
    return header, weights, policy


def _read(path: Path) -> tuple[dict[str, Any], list[np.ndarray], list[np.ndarray]]:
    """The header, the Q-network's weights and the policy's (none without one)."""
    if path.is_file() and not zipfile.is_zipfile(path):
        raise AgentFileError(f"{path} is not a boardq agent file (not an .npz archive)")
    try:
        with np.load(path, allow_pickle=False) as data:
            header = json.loads(str(data["header"]))
            keys = sorted(k for k in data.files if k.startswith("w"))
            weights = [data[k] for k in keys]
            policy = [data[k] for k in sorted(k for k in data.files if k.startswith("p"))]
    except FileNotFoundError:
        raise AgentFileError(f"agent file {path} does not exist") from None
    except IsADirectoryError:
        raise AgentFileError(f"{path} is a directory, not an agent file") from None
    except (OSError, ValueError, KeyError, zipfile.BadZipFile, EOFError) as e:
        raise AgentFileError(f"{path} is not a readable boardq agent file ({e})") from None
    if header.get("format") != FORMAT:
        raise AgentFileError(f"{path} is not a boardq agent file")
    if header.get("format_version", 0) > FORMAT_VERSION:
        raise AgentFileError(f"{path} was written by a newer boardq")
    if len(policy) != header.get("policy", {}).get("arrays", 0):
        raise AgentFileError(f"{path}: its policy arrays do not match its header")
    return header, weights, policy


def read_header(path: str | Path) -> dict[str, Any]:
    """The JSON header of an agent file, or of the agent in a run directory.

    Reads no network and imports no TensorFlow (listing and checking files is quick).

    Raises:
      AgentFileError: missing or unreadable.
    """
    return read_agent(agent_file(path))[0]


def averaged_weights(paths: Sequence[str | Path]) -> tuple[list[np.ndarray], dict[str, Any]]:
    """The mean of the weights of agent files of one network (stochastic weight averaging).

    Args:
      paths: agent files of the same game and network, oldest first.

    Returns:
      The averaged weights (the policy head's last, where every file carries one, as
      `export_agent` takes them), and the newest (last) file's info with
      `averaged_agents` (how many) and `averaged_from_step` (the oldest file's train
      step) added.

    Raises:
      AgentFileError: no file, a file unreadable, or one of another game or network.
    """
    if not paths:
        raise AgentFileError("no agent files to average")
    read = []
    for p in paths:
        header, weights, policy = _read(Path(p))
        read.append((header, weights + policy if policy else weights))
    if any(len(w) != len(read[0][1]) for _, w in read):  # some with a policy, some without
        read = [(h, w[: q_arrays(network_of(h))]) for h, w in read]
    first = read[0]
    for path, (header, weights) in zip(paths[1:], read[1:], strict=True):
        same = (header.get(k) == first[0].get(k) for k in ("game", "network"))
        if not all(same) or [w.shape for w in weights] != [w.shape for w in first[1]]:
            raise AgentFileError(f"{path}: not the same game and network as {paths[0]}")
    mean = [np.mean([weights[i] for _, weights in read], axis=0) for i in range(len(first[1]))]
    info = {k: v for k, v in read[-1][0].get("info", {}).items() if k != "saved"}
    info["averaged_agents"] = len(read)
    info["averaged_from_step"] = first[0].get("info", {}).get("train_step")
    return [m.astype(w.dtype) for m, w in zip(mean, first[1], strict=True)], info


def agent_file(path: str | Path) -> Path:
    """The agent file `path` names.

    A run directory stands for its best agent by the ladder, else its last one;
    `bundled:GAME` for the agent that comes with the install for GAME.

    Raises:
      AgentFileError: a run directory without an agent, or a game without a bundled one.
    """
    if str(path).startswith(BUNDLED):
        return bundled_agent(str(path)[len(BUNDLED) :])
    path = Path(path)
    if path.is_dir():
        for name in (BEST_AGENT_FILE, AGENT_FILE):
            if (path / name).exists():
                return path / name
        raise AgentFileError(f"no exported agent in {path} (expected {AGENT_FILE})")
    return path


def bundled_agent(game_name: str) -> Path:
    """The agent file that comes with the install for the game called `game_name`.

    Raises:
      AgentFileError: no such game, or no agent comes with it (the message says how
        to train one).
    """
    from boardq.catalog import find_game

    try:
        game = find_game(game_name)
    except BoardqError as e:
        raise AgentFileError(f"{BUNDLED}{game_name}: {e}") from None
    if game is None:
        raise AgentFileError(f"{BUNDLED}{game_name}: there is no game called {game_name!r}")
    if game.bundled_agent is None:
        raise AgentFileError(
            f"no agent comes with {game.title}; train one with `boardq train {game.name}`"
        )
    return game.bundled_agent


def network_of(header: dict[str, Any]) -> NetworkConfig:
    """The network an agent file's header describes.

    Raises:
      KeyError, TypeError, ValueError: the header's network entry is unreadable.
    """
    net = header["network"]
    return NetworkConfig(
        conv_filters=tuple(net["conv_filters"]),
        hidden_units=tuple(net["hidden_units"]),
        dueling=bool(net["dueling"]),
    )


def chosen_symmetric(info: dict[str, Any]) -> bool:
    """Whether an agent's info says its run chose to play it `symmetric`.

    Its `symmetric` entry where it has one, else whether its run's ladder played it so.
    """
    if SYMMETRIC_KEY in info:
        return bool(info[SYMMETRIC_KEY])
    return str(info.get("ladder", "")).endswith(SYMMETRIC_LADDER)
