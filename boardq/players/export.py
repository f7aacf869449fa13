"""An agent's greedy Q-network as a model other tools load: SavedModel, TFLite or ONNX.

Every export computes what `Agent.q_batch` computes, in float32, through two entry
points with the inputs PettingZoo gives a player, batched: `serving_default` (planes
to the values of every action) and `greedy` (planes and the legal moves to the values
and the move), as `boardq.players.serving` builds them.

A SavedModel and a TFLite model have both as signatures; an ONNX model is one graph,
the `greedy` one. Beside the export, `OUT.json` says what it holds (`metadata`).
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from boardq._quiet import quiet_native_logs
from boardq.errors import BoardqError
from boardq.players.serving import serving_functions
from boardq.rundir import atomic_write_bytes, atomic_write_text

__all__ = [
    "FORMATS",
    "ONNX_INSTALL",
    "ExportError",
    "bundled_game_of",
    "check",
    "default_output",
    "export",
    "metadata",
    "metadata_path",
    "missing_onnx",
    "serving_functions",
]

FORMATS = ("savedmodel", "tflite", "onnx")
SUFFIXES = {"savedmodel": ".savedmodel", "tflite": ".tflite", "onnx": ".onnx"}
ONNX_INSTALL = "pip install -e '.[onnx]' in boardq's checkout"
EXPORT_FORMAT = "boardq-export"
SIGNATURES = {
    "serving_default": {"inputs": ["planes"], "outputs": ["q_values"]},
    "greedy": {"inputs": ["planes", "action_mask"], "outputs": ["q_values", "action"]},
}
VALUES = (
    "the value of each action for the player to move (about +1 a win, 0 a draw, -1 a loss, "
    "discounted by the moves to it); illegal actions are not masked"
)


class ExportError(BoardqError):
    """The export cannot be written (its path is taken, a converter is missing)."""


def default_output(agent_path: Path, fmt: str, bundled_game: str | None = None) -> Path:
    """Where an export goes without `--out`.

    Beside the agent file (`agent.npz` -> `agent.savedmodel`, `.tflite`, `.onnx`),
    except for an agent that comes with the install (`bundled_game`, its game's
    name): that one lives inside the installed package, so its export goes to the
    current folder as `GAME.onnx` (and so on), never beside it.
    """
    if bundled_game is not None:
        return Path.cwd() / f"{bundled_game}{SUFFIXES[fmt]}"
    return Path(agent_path).with_suffix(SUFFIXES[fmt])


def bundled_game_of(agent_path: Path, game_name: str) -> str | None:
    """`game_name` if `agent_path` is the agent that comes with the install for it."""
    from boardq.catalog import find_game

    try:
        game = find_game(game_name)
    except BoardqError:
        return None
    if game is None or game.bundled_agent is None:
        return None
    same = Path(agent_path).resolve() == Path(game.bundled_agent).resolve()
    return game.name if same else None


def metadata_path(out: Path) -> Path:
    """The JSON that describes an export: `agent.onnx` -> `agent.onnx.json`."""
    return out.with_name(out.name + ".json")


def missing_onnx() -> str | None:
    """Why the ONNX export cannot run here (one line), or None if it can."""
    missing = [name for name in ("tf2onnx", "onnx") if importlib.util.find_spec(name) is None]
    if not missing:
        return None
    return f"--format onnx needs {' and '.join(missing)} (not installed): {ONNX_INSTALL}"


def _symmetry_tables(agent) -> tuple[np.ndarray, np.ndarray] | None:
    """Where a symmetric agent's images take their cells and actions from, or None."""
    if agent.symmetries < 2:
        return None
    from boardq.catalog import find_game
    from boardq.symmetry import PermutationAugment

    game = find_game(agent.game)
    tables = PermutationAugment.try_build(game.symmetries, game.obs_shape)
    if tables is None:
        raise ExportError(
            f"cannot export {agent.game}'s averaging over symmetries (they do not permute "
            "cells); export the network alone with --no-symmetric"
        )
    return tables.plane_index, tables.action_map


def metadata(agent, fmt: str, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """What an export holds, for people and tools: the JSON written beside it."""
    from boardq.players.agentfile import read_header

    obs_shape = [int(d) for d in read_header(agent.path)["obs_shape"]]
    entry_points = SIGNATURES if fmt != "onnx" else {"graph": SIGNATURES["greedy"]}
    actions = agent.num_actions
    return {
        "format": EXPORT_FORMAT,
        "format_version": 1,
        "model_format": fmt,
        "game": agent.game,
        "agent": str(agent.path),
        "train_step": agent.info.get("train_step"),
        "symmetries": agent.symmetries,
        "obs_shape": obs_shape,
        "num_actions": actions,
        "entry_points": entry_points,
        "inputs": {
            "planes": _tensor("int8", [None, *obs_shape], "the observation of the player to move"),
            "action_mask": _tensor("int8", [None, actions], "nonzero where the action is legal"),
        },
        "outputs": {
            "q_values": _tensor("float32", [None, actions], VALUES),
            "action": _tensor("int64", [None], "the legal action of highest value (ties: lowest)"),
        },
        **(extra or {}),
    }


def _tensor(dtype: str, shape: list[int | None], meaning: str) -> dict[str, Any]:
    return {"dtype": dtype, "shape": shape, "meaning": meaning}


def check(fmt: str, out: Path, force: bool = False, source: Path | None = None) -> None:
    """Refuses what `export` would refuse before it starts (no TensorFlow needed).

    Raises:
      ExportError: an unknown format, `out` is the agent file `source`, `out` or its
        JSON exists without `force`, or ONNX is asked and its converter is missing.
    """
    if fmt not in FORMATS:
        raise ExportError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")
    if source is not None and out.resolve() == Path(source).resolve():
        raise ExportError(f"{out} is the agent file itself: give the export another path")
    taken = [p for p in (out, metadata_path(out)) if p.exists() or p.is_symlink()]
    if taken and not force:
        raise ExportError(f"{taken[0]} exists (give --force to overwrite it)")
    if fmt == "onnx" and (why := missing_onnx()):
        raise ExportError(why)


def export(agent, fmt: str, out: str | Path, force: bool = False) -> Path:
    """Writes the agent's model in `fmt` to `out`, and `metadata` beside it.

    The old export (and its JSON) is replaced only with `force`; a new one appears
    whole or not at all.

    Raises:
      ExportError: as `check`, or the path cannot be written.
    """
    out = Path(out)
    check(fmt, out, force, agent.path)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        extra = _WRITERS[fmt](serving_functions(agent, _symmetry_tables(agent)), out)
        text = json.dumps(metadata(agent, fmt, extra), indent=2) + "\n"
        atomic_write_text(metadata_path(out), text)
    except OSError as e:
        raise ExportError(f"cannot write {out}: {e.strerror or e}") from None
    return out


def _save(functions: dict[str, Any], path: Path) -> None:
    import tensorflow as tf

    with quiet_native_logs():
        tf.saved_model.save(tf.Module(), str(path), signatures=functions)


def _write_savedmodel(functions: dict[str, Any], out: Path) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(dir=out.parent, prefix=f".{out.name}.") as tmp:
        _save(functions, Path(tmp) / "model")
        if out.is_dir() and not out.is_symlink():
            shutil.rmtree(out)
        elif out.exists() or out.is_symlink():
            out.unlink()
        os.replace(Path(tmp) / "model", out)
    return {}


def _write_tflite(functions: dict[str, Any], out: Path) -> dict[str, Any]:
    import tensorflow as tf

    with tempfile.TemporaryDirectory(prefix="boardq-export-") as tmp:
        _save(functions, Path(tmp))
        converter = tf.lite.TFLiteConverter.from_saved_model(tmp, signature_keys=list(functions))
        with quiet_native_logs():
            data = converter.convert()
    _replace_file(out, data)
    return {}


def _write_onnx(functions: dict[str, Any], out: Path) -> dict[str, Any]:
    with quiet_native_logs():
        import tf2onnx

        greedy = functions["greedy"]
        proto, _ = tf2onnx.convert.from_function(greedy, input_signature=greedy.input_signature)
    for value in [*proto.graph.input, *proto.graph.output]:
        value.type.tensor_type.shape.dim[0].dim_param = "batch"  # rather than "unk__47"
    _replace_file(out, proto.SerializeToString())
    opsets = {o.domain or "ai.onnx": o.version for o in proto.opset_import}
    return {"onnx_opset": opsets.get("ai.onnx"), "converter": f"tf2onnx {tf2onnx.__version__}"}


def _replace_file(out: Path, data: bytes) -> None:
    if out.is_dir() and not out.is_symlink():
        shutil.rmtree(out)
    atomic_write_bytes(out, data)


_WRITERS = {"savedmodel": _write_savedmodel, "tflite": _write_tflite, "onnx": _write_onnx}
