#!/usr/bin/env python3
"""Rebuilds the agents that come with boardq: train each game's preset, measure, ship.

    python scripts/bundle_agents.py connect_four             # train the preset, then ship
    python scripts/bundle_agents.py hex --run runs/hex/RUN   # ship a run already trained
    python scripts/bundle_agents.py go --run runs/go/RUN/agent.npz   # one of its agents
    python scripts/bundle_agents.py go --run runs/go/RUN --average 10   # its last 10 kept, averaged
    python scripts/bundle_agents.py --all                    # every named game, in turn

For each game: `boardq train GAME` (the preset, on this machine) unless `--run` names
a run; then `boardq evaluate` of the run's best agent (its best-agent.npz, else its
last; or the agent file `--run` names, such as its last or one in its `agents/`; or,
with `--average N`, the mean of the weights of the last N agents the run kept, written
as RUN/mean-lastN-STEP.npz) against the game's reference opponents, from each seat;
then the agent is written to `games/GAME/bundled-agent.npz` (package data) with what
was measured in its header (`info["strength"]`, `info["bundled_from"]`), and the
figures are printed for docs/results/agents.md. Nothing is shipped that fails a game's
`REQUIRED` score.
"""

from __future__ import annotations

import argparse
import datetime
import json
import subprocess
import sys
from pathlib import Path

from boardq.errors import BoardqError
from boardq.game import BUNDLED_AGENT_FILE
from boardq.players.agentfile import (
    SYMMETRIC_KEY,
    agent_file,
    averaged_weights,
    export_agent,
    network_of,
    read_agent,
    read_header,
)
from boardq.rundir import CONFIG_FILE, KEPT_AGENT_GLOB, KEPT_AGENTS_DIR, read_run_config

ROOT = Path(__file__).resolve().parents[1]
OPPONENTS = {
    "tictactoe": ["random", "perfect"],
    "connect_four": ["random", "mcts:100"],
    "othello": ["random", "greedy"],
    "gomoku": ["random", "winblock", "line"],
    "hex": ["random", "mcts:100"],
    "go": ["random"],
}
"""What each game's agent is measured against (its preset's reference players)."""
REQUIRED = {"connect_four": ("mcts:100", 0.9), "tictactoe": ("perfect", 0.5)}
"""The win rate (tic-tac-toe: score) each seat must reach against one opponent."""
MAX_BYTES = 2 * 2**20


def boardq(*args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-P", "-m", "boardq", *args], capture_output=True, text=True
    )
    if done.returncode != 0:
        sys.exit(f"boardq {' '.join(args)} failed:\n{done.stderr}")
    return done.stdout


def train(game: str, out_dir: Path) -> Path:
    before = set(out_dir.glob(f"{game}/*/"))
    boardq("train", game, "--out-dir", str(out_dir))
    (run,) = set(out_dir.glob(f"{game}/*/")) - before
    return run


def measure(game: str, agent: Path, games: int, seed: int) -> dict:
    args = ["evaluate", game, "--agent", str(agent), "--games", str(games), "--seed", str(seed)]
    for opponent in OPPONENTS[game]:
        args += ["--opponent", opponent]
    return json.loads(boardq(*args, "--json"))


def strength(report: dict) -> dict[str, dict[str, float]]:
    """Per opponent: wins and scores from each seat (what the header and docs keep)."""
    keys = ("first/win", "second/win", "first/score", "second/score", "score")
    return {name: {k: r[k] for k in keys} for name, r in report["opponents"].items()}


def passes(game: str, measured: dict[str, dict[str, float]]) -> bool:
    if game not in REQUIRED:
        return True
    opponent, floor = REQUIRED[game]
    kind = "score" if game == "tictactoe" else "win"
    return all(measured[opponent][f"{seat}/{kind}"] >= floor for seat in ("first", "second"))


def average_kept(run: Path, count: int) -> Path:
    """Writes the mean of the last `count` agents `run` kept; returns the file's path.

    The file says whether to play it averaged over the symmetries as the run's own
    agent files do (`info["symmetric"]`, from the run's `eval_symmetric` where the kept
    files are older than that entry).
    """
    if not (run / CONFIG_FILE).exists():
        sys.exit(f"{run} is not a run directory (no {CONFIG_FILE}); --average needs one")
    files = sorted((run / KEPT_AGENTS_DIR).glob(KEPT_AGENT_GLOB))[-count:]
    if len(files) < count:
        sys.exit(f"{run} kept {len(files)} agents in {KEPT_AGENTS_DIR}/; --average {count}")
    try:
        weights, info = averaged_weights(files)
        info.setdefault(SYMMETRIC_KEY, read_run_config(run).eval_symmetric)
        header = read_header(files[-1])  # its weights are in the mean already
    except BoardqError as e:
        sys.exit(f"--average {count}: {e}")
    path = run / f"mean-last{count}-{info['train_step']}.npz"
    export_agent(
        path,
        header["game"],
        network_of(header),
        header["obs_shape"],
        header["num_actions"],
        weights,
        info,
    )
    return path


def ship(game: str, run: Path, games: int, seed: int) -> Path:
    source = agent_file(run)
    if run.is_file():  # an agent file of a run: RUN/agent.npz or RUN/agents/agent-N.npz
        run = next((p for p in run.parents if (p / CONFIG_FILE).exists()), None)
        if run is None:
            sys.exit(f"{game}: {source} is not in a run directory (no {CONFIG_FILE} above it)")
    report = measure(game, source, games, seed)
    measured = strength(report)
    print(json.dumps({game: measured}, indent=1))
    if not passes(game, measured):
        sys.exit(f"{game}: {source} does not reach {REQUIRED[game]} from each seat; not shipped")
    header, weights = read_agent(source)
    info = dict(header.get("info", {}))
    info["strength"] = {"games_per_seat": games, "seed": seed, "opponents": measured}
    info["bundled_from"] = {
        "run": run.name,
        "file": source.name,
        "date": datetime.date.today().isoformat(),
    }
    target = ROOT / "games" / game / BUNDLED_AGENT_FILE
    network = network_of(header)
    export_agent(target, game, network, header["obs_shape"], header["num_actions"], weights, info)
    size = target.stat().st_size
    if size > MAX_BYTES:
        target.unlink()
        sys.exit(f"{game}: {size:,} bytes is over {MAX_BYTES:,}; not shipped")
    print(f"{game}: {target} ({size:,} bytes) from {source}")
    return target


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", choices=[[], *OPPONENTS], metavar="GAME")
    parser.add_argument("--all", action="store_true", help="every named game")
    parser.add_argument(
        "--run", type=Path, help="a trained run of the one GAME to ship, or one of its agent files"
    )
    parser.add_argument(
        "--average",
        type=int,
        default=0,
        metavar="N",
        help="ship the mean of the last N agents the run kept (with --run RUN)",
    )
    parser.add_argument("--out-dir", type=Path, default=Path("runs-bundle"))
    parser.add_argument(
        "--games", dest="per_seat", type=int, default=100, help="games per seat (default 100)"
    )
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    names = list(OPPONENTS) if args.all else args.names
    if not names or (args.run and len(names) != 1):
        parser.error("name one or more games (or --all); --run goes with one game")
    if args.average < 0 or (args.average and (not args.run or not args.run.is_dir())):
        parser.error("--average N takes N >= 1 and a run directory as --run")
    for game in names:
        run = args.run or train(game, args.out_dir)
        if args.average:
            run = average_kept(run, args.average)
        ship(game, run, args.per_seat, args.seed)


if __name__ == "__main__":
    main()
