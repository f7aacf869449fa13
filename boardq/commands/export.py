"""`boardq export`: an agent's greedy Q-network as a SavedModel, a TFLite or an ONNX model.

What the model computes, its inputs and outputs: `boardq.players.export` and
docs/export.md. The agent is a file, a run directory or `bundled:GAME` (the
agent that comes with the install), as `boardq play --agent` takes it. The model is
written beside the agent file unless `--out` says where, with `OUT.json` describing
it; a bundled agent's export goes to the current folder (never into the installed
package). An existing export is replaced only with `--force`.

Exit codes: 0 written; 1 a missing or unusable agent file or run directory, a game
without a bundled agent, an output path that exists (without --force) or is the agent
file, or --format onnx without its converter (one line on stderr); 2 a bad command
line (`bundled` without its game among them).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from boardq.players.export import FORMATS

__all__ = ["add_command", "run"]

TITLES = {"savedmodel": "a SavedModel", "tflite": "a TFLite model", "onnx": "an ONNX model"}


def add_command(sub) -> None:
    """Registers `boardq export`."""
    p = sub.add_parser(
        "export",
        help="write an agent's network as a SavedModel, TFLite or ONNX model",
        description="Writes the agent's greedy Q-network as a model other tools load: int8 "
        "planes [batch, H, W, C] in, one value per action out; a second entry point takes "
        "the legal-move mask too and gives the greedy legal action. A JSON file beside it "
        "(OUT.json) says what it holds.",
        epilog="--format onnx needs the onnx extra (pip install -e '.[onnx]'). exit codes: "
        "0 written, 1 bad agent file or output path taken, 2 bad command line",
    )
    p.add_argument(
        "agent",
        metavar="RUN_OR_AGENT",
        type=_agent_name,
        help="agent file, or run directory (its best-agent.npz, else agent.npz), or "
        "bundled:GAME, the agent that comes with boardq for GAME (e.g. bundled:connect_four)",
    )
    p.add_argument("--format", required=True, choices=FORMATS, help="the model's format")
    p.add_argument(
        "--out",
        metavar="PATH",
        help="where to write it (default: beside the agent file, e.g. agent.onnx, "
        "agent.tflite, the directory agent.savedmodel; for bundled:GAME, GAME.onnx and so on "
        "in the current folder)",
    )
    p.add_argument("--force", action="store_true", help="replace an existing export at that path")
    p.add_argument(
        "--symmetric",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="the model averages the network's values over the board's symmetries, as "
        "play --symmetric does, or not (--no-symmetric: the network alone); default: as "
        "the agent's run chose",
    )
    # TensorFlow is imported only once the agent file and the output path are checked.
    p.set_defaults(func=run, needs_tensorflow=False)


def _agent_name(text: str) -> str:
    """RUN_OR_AGENT as given; `bundled` alone is refused: export has no GAME to take."""
    if text == "bundled" and not Path(text).exists():
        raise argparse.ArgumentTypeError(
            "bundled needs its game here: bundled:GAME, e.g. bundled:connect_four"
        )
    return text


def run(args: argparse.Namespace) -> int:
    """Runs `boardq export`; returns the exit code."""
    from boardq._quiet import quiet_native_logs
    from boardq.errors import BoardqError
    from boardq.players.agentfile import agent_file, read_header
    from boardq.players.export import (
        bundled_game_of,
        check,
        default_output,
        export,
        metadata_path,
    )

    path = agent_file(args.agent)
    # A missing or unreadable file is refused before TensorFlow loads.
    header = read_header(path)
    bundled = bundled_game_of(path, str(header.get("game", "")))
    out = Path(args.out) if args.out else default_output(path, args.format, bundled)
    check(args.format, out, args.force, path)
    with quiet_native_logs(expected=(BoardqError,)):
        from boardq.players.agent import Agent

        agent = Agent.load(path, symmetric=args.symmetric)
    out = export(agent, args.format, out, force=args.force)
    how = "the network alone"
    if agent.symmetries > 1:
        how = f"values averaged over {agent.symmetries} symmetries"
        how += " as its run chose" if args.symmetric is None else ""
    source = "that comes with boardq" if bundled else str(path)
    print(f"{agent.game} agent {source} ({how}) written as {TITLES[args.format]}: {out}")
    print(f"what it holds: {metadata_path(out)}")
    return 0
