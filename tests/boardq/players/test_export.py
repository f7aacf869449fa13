"""`boardq.players.export`: each format, loaded by its own runtime, against `Agent.q_batch`.

The agents are small real networks (a convolution, a hidden layer, the dueling head)
with random weights, so every value differs; the positions are those of random games.
The exported graphs compute in float32 as the agent does: a SavedModel runs the same
TensorFlow kernels (measured difference 0), TFLite and ONNX Runtime their own (about
2e-6 measured); TOLERANCE allows ten times that.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import tensorflow as tf

from boardq import Agent
from boardq.config import NetworkConfig
from boardq.dqn.networks import build_q_network
from boardq.players.agentfile import SYMMETRIC_LADDER, export_agent
from boardq.players.export import (
    FORMATS,
    ExportError,
    default_output,
    export,
    metadata_path,
    missing_onnx,
)
from boardq_games import get_game

TOLERANCE = 2e-5
NETWORK = NetworkConfig(conv_filters=(4,), hidden_units=(8,), dueling=True)


def random_agent(path, game_name: str, seed: int, info: dict | None = None):
    game = get_game(game_name)
    model = build_q_network(game.obs_shape, game.num_actions, NETWORK)
    rng = np.random.default_rng(seed)
    weights = [rng.normal(0.0, 0.5, w.shape).astype(np.float32) for w in model.get_weights()]
    path.parent.mkdir(parents=True, exist_ok=True)
    return export_agent(path, game.name, NETWORK, game.obs_shape, game.num_actions, weights, info)


def positions(game_name: str, count: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Planes and legal masks of the player to move, from random games."""
    game = get_game(game_name)
    rng = np.random.default_rng(seed)
    planes, masks = [], []
    env = game.make_env()
    while len(planes) < count:
        env.reset(seed=int(rng.integers(1 << 30)))
        for agent in env.agent_iter():
            _, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            obs = env.observe(agent)
            planes.append(np.asarray(obs["observation"]))
            masks.append(np.asarray(obs["action_mask"]))
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    env.close()
    return np.stack(planes[:count]).astype(np.int8), np.stack(masks[:count]).astype(np.int8)


def run_export(fmt: str, path, planes: np.ndarray, mask: np.ndarray):
    """(q_values, greedy q_values, action) as the format's own runtime computes them."""
    if fmt == "savedmodel":
        model = tf.saved_model.load(str(path))
        q = model.signatures["serving_default"](planes=tf.constant(planes))["q_values"]
        greedy = model.signatures["greedy"](planes=tf.constant(planes), action_mask=mask)
        return q.numpy(), greedy["q_values"].numpy(), greedy["action"].numpy()
    if fmt == "tflite":
        # LiteRT, the runtime docs/play.md shows (tf.lite.Interpreter is deprecated).
        litert = pytest.importorskip("ai_edge_litert.interpreter")
        interpreter = litert.Interpreter(model_path=str(path))
        q = interpreter.get_signature_runner("serving_default")(planes=planes)["q_values"]
        greedy = interpreter.get_signature_runner("greedy")(planes=planes, action_mask=mask)
        return q, greedy["q_values"], greedy["action"]
    ort = pytest.importorskip("onnxruntime")
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    q, action = session.run(["q_values", "action"], {"planes": planes, "action_mask": mask})
    return q, q, action


@pytest.fixture(scope="module")
def agents(tmp_path_factory):
    root = tmp_path_factory.mktemp("export")
    symmetric = {"ladder": "random,winblock" + SYMMETRIC_LADDER, "train_step": 1200}
    return {
        "tictactoe": random_agent(root / "ttt" / "agent.npz", "tictactoe", 1, {"train_step": 7}),
        "connect_four": random_agent(root / "c4" / "best-agent.npz", "connect_four", 2, symmetric),
    }


@pytest.mark.parametrize("game_name", ["tictactoe", "connect_four"])
@pytest.mark.parametrize("fmt", FORMATS)
def test_each_format_computes_the_agents_values_and_greedy_moves(agents, game_name, fmt):
    if fmt == "onnx" and missing_onnx():
        pytest.skip(missing_onnx())
    agent = Agent.load(agents[game_name])  # Connect Four's averages, as its run chose
    assert agent.symmetries == (2 if game_name == "connect_four" else 1)
    planes, mask = positions(game_name, 40)
    out = export(agent, fmt, default_output(agent.path, fmt))
    assert out == agent.path.with_suffix({"savedmodel": ".savedmodel"}.get(fmt, f".{fmt}"))
    q, greedy_q, action = run_export(fmt, out, planes, mask)
    expected = agent.q_batch(planes)
    assert q.shape == expected.shape == (40, agent.num_actions) and q.dtype == np.float32
    np.testing.assert_allclose(q, expected, rtol=0, atol=TOLERANCE)
    np.testing.assert_allclose(greedy_q, expected, rtol=0, atol=TOLERANCE)
    # The greedy action is legal and the best legal one (up to the tolerance).
    rows = np.arange(len(planes))
    assert action.dtype == np.int64 and mask[rows, action].all()
    best = np.where(mask > 0, expected, -np.inf).max(axis=1)
    assert np.all(expected[rows, action] >= best - 2 * TOLERANCE)
    meta = json.loads(metadata_path(out).read_text())
    assert meta["model_format"] == fmt and meta["game"] == game_name
    assert meta["symmetries"] == agent.symmetries and meta["num_actions"] == agent.num_actions
    assert meta["inputs"]["planes"]["shape"] == [None, *planes.shape[1:]]
    assert meta["inputs"]["planes"]["dtype"] == "int8"
    assert meta["train_step"] == agent.info["train_step"]


def test_the_network_alone_when_asked(agents, tmp_path):
    alone = Agent.load(agents["connect_four"], symmetric=False)
    planes, mask = positions("connect_four", 12, seed=1)
    out = export(alone, "savedmodel", tmp_path / "alone.savedmodel")
    q, _, _ = run_export("savedmodel", out, planes, mask)
    np.testing.assert_allclose(q, alone.q_batch(planes), rtol=0, atol=TOLERANCE)
    averaged = Agent.load(agents["connect_four"]).q_batch(planes)
    assert np.abs(q - averaged).max() > 1e-3  # the averaging is not a no-op here
    assert json.loads(metadata_path(out).read_text())["symmetries"] == 1


def test_an_existing_export_is_replaced_only_with_force(agents, tmp_path):
    agent = Agent.load(agents["tictactoe"])
    out = tmp_path / "model.tflite"
    out.write_bytes(b"old")
    with pytest.raises(ExportError, match="model.tflite exists .give --force to overwrite it."):
        export(agent, "tflite", out)
    assert out.read_bytes() == b"old" and not metadata_path(out).exists()
    out.unlink()
    metadata_path(out).write_text("{}")  # its description alone counts as taken too
    with pytest.raises(ExportError, match="model.tflite.json exists"):
        export(agent, "tflite", out)
    export(agent, "tflite", out, force=True)
    assert out.read_bytes()[4:8] == b"TFL3"  # the TFLite flatbuffer's identifier
    assert json.loads(metadata_path(out).read_text())["model_format"] == "tflite"
    folder = tmp_path / "model.savedmodel"
    (folder / "stale").mkdir(parents=True)
    export(agent, "savedmodel", folder, force=True)
    assert (folder / "saved_model.pb").exists() and not (folder / "stale").exists()


def test_unknown_formats_and_unwritable_paths_are_refused(agents, tmp_path):
    agent = Agent.load(agents["tictactoe"])
    with pytest.raises(ExportError, match="unknown format 'pb'; expected one of savedmodel"):
        export(agent, "pb", tmp_path / "model.pb")
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(ExportError, match="cannot write"):
        export(agent, "tflite", blocker / "model.tflite")


def test_without_the_converter_onnx_says_how_to_install_it(monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "tf2onnx" else real(name)
    )
    assert missing_onnx() == (
        "--format onnx needs tf2onnx (not installed): pip install -e '.[onnx]' in boardq's checkout"
    )
