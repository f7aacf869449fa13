"""Evaluation during training: a ladder of opponents, in a separate low-priority process.

Every few minutes the trainer writes the newest published snapshot (with
`eval_average_agents` N: the mean of the weights of the last N kept agents) as an agent
file and starts `boardq evaluate` on it against the ladder (say random, winblock,
mcts:100) in a child process at the lowest CPU priority (nice 19, and its session
group at nice 10: `boardq.training.ladder_process`), so it uses the cores training
leaves idle instead of taking the learner's. When it ends, its scores
are logged (`eval/<opponent>/...`, `eval/ladder_score`: the mean score over the
ladder), and an agent that does at least as well as the best so far is kept as
`RUN_DIR/best-agent.npz` beside the last one (`agent.npz`): on a tie the later, longer
trained agent wins. Its file holds its score (`info["ladder_score"]`, and with engine
rungs the whole `info["ladder_key"]`), so a resumed run keeps it until a later agent does as well.

"As well" is the ladder's mean score, unless the ladder has engine rungs (`gtp:`, GNU
Go or GRhino, the strongest opponents boardq knows): then the engines decide. An agent
is compared by its mean score against the engines first, then by the mean lead the
engines' own counts give it (Go's points, Othello's discs: it moves long before the
score does, while every game is lost), and only then by the ladder's mean score. Rungs
whose engine is not installed are left out, with one line (`ladder_specs`).

The games of the last `GAMES_KEPT` evaluations are kept in RUN_DIR/games/ladder-<version>/
(`evaluate --record`: a JSON line a game, and an SGF file a game where the game has one);
older folders are deleted as new ones start, so the run directory stays bounded (with
the Go preset's ladder, 80 games an evaluation, about 0.8 MB each).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from boardq.config import TrainConfig
from boardq.errors import AgentFileError
from boardq.players.agentfile import (
    SYMMETRIC_KEY,
    SYMMETRIC_LADDER,
    averaged_weights,
    export_agent,
    read_header,
)
from boardq.players.factory import ladder_specs
from boardq.players.match_openings import fixed_handicap
from boardq.players.specs import Kind
from boardq.pruning import INFO_KEY
from boardq.rundir import BEST_AGENT_FILE, GAMES_DIR
from boardq.settings import ConfigError
from boardq.training.ladder_process import start_evaluation

__all__ = [
    "BEST_AGENT_FILE",
    "GAMES_KEPT",
    "Ladder",
    "check_handicap",
    "check_visits",
]

_CANDIDATE = ".ladder-agent.npz"
HANDICAP_LADDER = " with handicap "
"""How the ladder's name in a best agent's file says its black games took stones."""
VISITS_LADDER = " with a tree search of visits "
"""How the ladder's name in a best agent's file says the agent searched (`eval_visits`)."""
_GAMES_PREFIX = "ladder-"
GAMES_KEPT = 5
"""The evaluations whose games a run keeps (RUN_DIR/games/ladder-<version>/)."""


def check_visits(config: TrainConfig, game) -> None:
    """Refuses `eval_visits` for a game boardq has no rules for, in one line.

    Raises:
      ConfigError: the game has no rules to search with.
    """
    if config.eval_visits and game.rules is None:
        raise ConfigError(
            f"eval_visits needs rules to search with, and boardq has none for {game.title} "
            "(0: the network alone)"
        )


def check_handicap(config: TrainConfig, game) -> None:
    """Refuses an `eval_handicap` the game has no stones for, in one line.

    Raises:
      ConfigError: a game without handicap stones, or a number of stones it has no
        placement for.
    """
    stones = config.eval_handicap
    if not stones:
        return
    try:
        fixed_handicap(game, stones)
    except ValueError as e:
        raise ConfigError(f"eval_handicap {stones}: {e} (0: even games)") from None


class Ladder:
    """Runs the ladder on snapshots, one evaluation at a time.

    Args:
      config: the run's settings (`eval_ladder`, `eval_games`, `seed`, `network`).
      game: the game.
      run_dir: where the candidate and the best agent are written.
    """

    def __init__(self, config: TrainConfig, game, run_dir: Path):
        specs = ladder_specs(config.eval_ladder, game, check=False)[0]
        self.specs = [spec.name for spec in specs]
        self.engines = [spec.name for spec in specs if spec.kind is Kind.GTP]
        # Names the ladder in the best agent's file: scores of another ladder, or of
        # the other way of playing, do not compare.
        self._ladder = ",".join(self.specs) + (SYMMETRIC_LADDER if config.eval_symmetric else "")
        if config.eval_handicap:
            self._ladder += f"{HANDICAP_LADDER}{config.eval_handicap}"
        if config.eval_visits:
            self._ladder += f"{VISITS_LADDER}{config.eval_visits}"
        self._config, self._game, self._run_dir = config, game, Path(run_dir)
        self._proc: subprocess.Popen | None = None
        self._version = -1
        self._candidate: tuple[list[np.ndarray], dict[str, Any]] = ([], {})
        self.best_key = self._kept_best_key()
        self.best_score = self.best_key[-1]
        self.evaluations = 0

    def _kept_best_key(self) -> tuple[float, ...]:
        """How the run's best agent so far did (-inf: none, or on another ladder)."""
        try:
            info = read_header(self._run_dir / BEST_AGENT_FILE).get("info", {})
        except AgentFileError:
            return (-np.inf,)
        if info.get("ladder") != self._ladder:
            return (-np.inf,)  # scores on other opponents do not compare
        key = info.get("ladder_key", [info.get("ladder_score", -np.inf)])
        return tuple(float(k) for k in key)

    def key(self, report: dict[str, Any]) -> tuple[float, ...]:
        """What ranks an evaluated agent (`boardq evaluate --json`'s report); higher wins.

        With engine rungs: (mean score against them, mean lead their counts give it,
        ladder score); else (ladder score,).
        """
        results = report["opponents"]
        ladder = float(np.mean([float(r["score"]) for r in results.values()]))
        if not self.engines:
            return (ladder,)
        engines = [results[name] for name in self.engines]
        margins = [r["engine/opponent_margin"] for r in engines if "engine/opponent_margin" in r]
        lead = float(np.mean(margins)) if margins else 0.0
        return (float(np.mean([r["score"] for r in engines])), lead, ladder)

    @property
    def busy(self) -> bool:
        return self._proc is not None

    def start(self, version: int, weights: Sequence[Any], info: dict[str, Any]) -> bool:
        """Starts an evaluation of the snapshot `weights` (version `version`).

        Returns whether it started: not while another one runs.
        """
        if self._proc is not None or not self.specs:
            return False
        cfg, game = self._config, self._game
        path = self._run_dir / _CANDIDATE
        arrays = [np.asarray(w) for w in weights]
        # What the agent's search discounts by, whether it prunes moves at play and
        # whether it plays averaged over the symmetries.
        info = {**info, "discount": cfg.discount, INFO_KEY: cfg.prune_moves}
        info[SYMMETRIC_KEY] = cfg.eval_symmetric
        self._candidate = (arrays, info)
        self._export(path, arrays, info)
        # -P: the working folder stays off its sys.path (`python -m` puts it first), so
        # a stray `boardq/` folder where the run started cannot stand in for boardq.
        command = [sys.executable, "-P", "-m", "boardq", "evaluate", game.name]
        command += ["--agent", str(path)]
        command += [a for spec in self.specs for a in ("--opponent", spec)]
        command += ["--games", str(cfg.eval_games), "--seed", str(cfg.seed + self.evaluations)]
        command.append("--symmetric" if cfg.eval_symmetric else "--no-symmetric")
        if cfg.eval_handicap:
            command += ["--handicap", str(cfg.eval_handicap)]
        if cfg.eval_visits:
            command += ["--visits", str(cfg.eval_visits)]
        command += ["--record", str(self._games_folder(version))]
        self._proc = start_evaluation([*command, "--json"])
        self._version = version
        return True

    def _games_folder(self, version: int) -> Path:
        """The folder of this evaluation's games; the oldest beyond `GAMES_KEPT` go.

        A snapshot evaluated again (no newer one was published) starts its folder afresh,
        so each folder holds one evaluation's games.
        """
        games = self._run_dir / GAMES_DIR
        folder = games / f"{_GAMES_PREFIX}{version:09d}"
        shutil.rmtree(folder, ignore_errors=True)
        if games.is_dir():
            old = [p for p in games.glob(f"{_GAMES_PREFIX}*") if p.is_dir() and p != folder]
            old.sort(key=lambda p: (p.stat().st_mtime, p.name))
            for path in old[: max(0, len(old) - (GAMES_KEPT - 1))]:
                shutil.rmtree(path, ignore_errors=True)
        return folder

    def poll(self) -> dict[str, float] | None:
        """The finished evaluation's metrics (once), or None while it runs or if none ran.

        Raises:
          RuntimeError: the evaluation failed (its last line of stderr is the message).
        """
        if self._proc is None or self._proc.poll() is None:
            return None
        out, err = self._proc.communicate()
        code, self._proc = self._proc.returncode, None
        if code != 0:
            last = (err.strip().splitlines() or [f"exit code {code}"])[-1]
            raise RuntimeError(f"the evaluation ladder failed: {last}")
        self.evaluations += 1
        return self._metrics(json.loads(out))

    def _metrics(self, report: dict[str, Any]) -> dict[str, float]:
        m: dict[str, float] = {"eval/version": float(self._version)}
        # Images of each position the agent averaged over (1: the network alone).
        m["eval/symmetries"] = float(report.get("symmetries", 1))
        scores = []
        for name, result in report["opponents"].items():
            for key, value in result.items():
                if key != "seconds":
                    m[f"eval/{name}/{key}"] = float(value)
            scores.append(float(result["score"]))
        m["eval/ladder_score"] = float(np.mean(scores))
        key = self.key(report)
        if len(key) != len(self.best_key) or key >= self.best_key:
            self.best_key, self.best_score = key, m["eval/ladder_score"]
            arrays, info = self._candidate
            info = {**info, "ladder": self._ladder, "ladder_score": self.best_score}
            if self.engines:
                info["ladder_key"] = list(key)
            self._export(self._run_dir / BEST_AGENT_FILE, arrays, info)
        m["eval/best_ladder_score"] = self.best_score
        return m

    def _export(self, path: Path, arrays: list[np.ndarray], info: dict[str, Any]) -> None:
        game = self._game
        export_agent(
            path, game.name, self._config.network, game.obs_shape, game.num_actions, arrays, info
        )

    def run(
        self,
        stop,
        newest: Callable[[], tuple[int, Sequence[Any], dict[str, Any]]],
        kept: Callable[[], list[Path]],
        on_result: Callable[[dict[str, float]], None],
    ) -> None:
        """Starts the ladder every `eval_every_sec` until `stop` (the evaluator thread).

        Rates `newest()`, the newest snapshot as (version, weights, info); with
        `eval_average_agents` N, the mean of the last N kept agents (`kept()`, oldest
        first) instead, once per newly kept agent. One evaluation at a time, in a
        low-priority child process; `on_result` takes each one's metrics when it ends.
        """
        cfg = self._config
        started, rated = -float("inf"), None
        try:
            while not stop.wait(0.5):
                result = self.poll()
                if result is not None:
                    on_result(result)
                if self.busy or time.monotonic() - started < cfg.eval_every_sec:
                    continue
                if cfg.eval_average_agents:
                    files = kept()[-cfg.eval_average_agents :]
                    if not files or files[-1] == rated:
                        continue  # wait for the next kept agent
                    weights, info = averaged_weights(files)
                    version, rated = int(info["train_step"]), files[-1]
                else:
                    version, weights, info = newest()
                self.start(version, weights, info)
                started = time.monotonic()
        finally:
            self.close()

    def close(self) -> None:
        """Stops an evaluation that still runs (the run is ending)."""
        if self._proc is not None:
            self._proc.kill()
            self._proc.communicate()
            self._proc = None
