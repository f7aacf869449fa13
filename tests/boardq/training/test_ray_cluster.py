"""Actor processes on a real two-node Ray cluster on this machine.

Two `ray start` nodes, each with its own CPUs: the head (where the learner process
joins with `--ray-address`) and a second node. The run's actor processes are spread
over both; the second node is then killed outright (every process of it, SIGKILL,
as when a machine goes away) while the run trains. The run must say so, bring the
lost actor process back on the head, finish its budget and exit 0, and leave the
cluster it joined running, without its actors.

What a lost node leaves when no CPU is free for its processes: test_remote_away.py.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
_SCRIPT = Path(sys.executable).with_name("ray")
RAY = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "ray.scripts.scripts"]
# With its defaults Ray marked a killed node dead after about 13 s here; the head of
# this cluster checks every second so that the test stays short.
FAST_HEALTH_CHECKS = {
    "RAY_health_check_period_ms": "1000",
    "RAY_health_check_timeout_ms": "1000",
    "RAY_health_check_failure_threshold": "3",
}
BUDGET_SEC = 30


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def processes() -> list[tuple[int, int, int, str]]:
    """(pid, parent pid, process group, whole command line) of every process."""
    rows = subprocess.run(
        ["ps", "-ww", "-eo", "pid=,ppid=,pgid=,args="], capture_output=True, text=True
    )
    out = []
    for line in rows.stdout.splitlines():
        pid, ppid, pgid, *args = line.split(None, 3)
        out.append((int(pid), int(ppid), int(pgid), args[0] if args else ""))
    return out


def kill_all(pids) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


class Node:
    """One `ray start --block`, in a session of its own: all its processes are one group."""

    def __init__(self, name: str, args: list[str], temp_dir: Path, env: dict[str, str]):
        self.name = name
        self.log = temp_dir.parent / f"{name}.log"
        with open(self.log, "w") as log:
            self.proc = subprocess.Popen(
                [*RAY, "start", *args, "--block", "--temp-dir", str(temp_dir),
                 "--disable-usage-stats",
                 "--dashboard-agent-listen-port", str(free_port()),
                 "--min-worker-port", "0", "--max-worker-port", "0"],
                stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True,
            )  # fmt: skip

    def wait_started(self, timeout: float = 60.0) -> None:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if "Ray runtime started" in self.log.read_text():
                return
            if self.proc.poll() is not None:
                break
            time.sleep(0.2)
        pytest.fail(f"ray node {self.name} did not start:\n{self.log.read_text()}")

    def members(self) -> dict[int, str]:
        """pid -> command line of the node's processes: its group, and all below it.

        (Ray's workers start sessions of their own, but are the raylet's children.)
        """
        rows = processes()
        found = {pid: args for pid, _, pgid, args in rows if pgid == self.proc.pid}
        todo = [self.proc.pid, *found]
        while todo:
            parent = todo.pop()
            for pid, ppid, _, args in rows:
                if ppid == parent and pid not in found:
                    found[pid] = args
                    todo.append(pid)
        return found

    def node_id(self) -> str:
        (raylet,) = [a for a in self.members().values() if "/raylet/raylet " in a]
        return re.search(r"--node_id=([0-9a-f]+)", raylet).group(1)

    def kill(self) -> None:
        """SIGKILL to every process of the node at once, as when its machine goes away."""
        members = self.members()
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        kill_all(members)
        self.proc.wait(timeout=30)


class Output:
    """A process's stdout lines, read in a thread."""

    def __init__(self, stream):
        self.lines: list[str] = []
        self._thread = threading.Thread(
            target=lambda: self.lines.extend(iter(stream.readline, "")), daemon=True
        )
        self._thread.start()

    def wait_for(self, pattern: str, timeout: float) -> re.Match | None:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            for line in list(self.lines):
                if m := re.search(pattern, line):
                    return m
            time.sleep(0.1)
        return None

    def text(self) -> str:
        self._thread.join(timeout=5)
        return "".join(self.lines)


def cluster_env() -> dict[str, str]:
    """The environment of every process of the cluster and of the run joining it.

    Token authentication on, with a token of this cluster's own: whether `ray start
    --head` turns it on by itself depends on ~/.ray/auth_token (which a local
    `ray.init()` writes), while `ray start --address` and `ray.init(address=...)`
    follow only RAY_AUTH_MODE.
    """
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "RAY_AUTH_MODE": "token"}
    env["RAY_AUTH_TOKEN"] = secrets.token_hex(32)
    for name in ("RAY_ADDRESS", "RAY_AUTH_TOKEN_PATH"):
        env.pop(name, None)
    return env


@pytest.fixture
def two_nodes():
    """A head (2 CPUs) and a second node (2 CPUs) on 127.0.0.1; killed, whatever happens.

    Yields the address, the two nodes, a scratch directory and the environment.
    """
    # Short: Ray's Unix sockets live under it, and their paths may not exceed 107 bytes.
    root = Path(tempfile.mkdtemp(prefix="bq-ray-", dir="/tmp"))
    env = cluster_env()
    port = free_port()
    address = f"127.0.0.1:{port}"
    nodes: list[Node] = []
    try:
        nodes.append(Node(
            "head",
            ["--head", "--port", str(port), "--node-ip-address", "127.0.0.1", "--num-cpus", "2",
             "--include-dashboard=false", "--dashboard-port", str(free_port()),
             "--ray-client-server-port", str(free_port())],
            root / "h", {**env, **FAST_HEALTH_CHECKS},
        ))  # fmt: skip
        nodes[0].wait_started()
        nodes.append(Node(
            "second",
            ["--address", address, "--node-ip-address", "127.0.0.1", "--num-cpus", "2"],
            root / "w", env,
        ))  # fmt: skip
        nodes[1].wait_started()
        yield address, nodes[0], nodes[1], root, env
    finally:
        for node in reversed(nodes):
            node.kill()
        # Anything of this cluster that left the two nodes' trees (none expected).
        kill_all([pid for pid, _, _, args in processes() if str(root) in args])
        shutil.rmtree(root, ignore_errors=True)


@pytest.mark.slow  # two Ray nodes started and one killed: most of a minute on two cores
@pytest.mark.timeout(240)
def test_actor_processes_run_on_a_second_node_and_the_run_outlives_it(two_nodes):
    address, head, second, root, env = two_nodes
    head_id, second_id = head.node_id(), second.node_id()
    args = ["train", "tictactoe", "--ray-address", address, "--actor-processes", "2",
            "--actor-threads", "1", "--games-per-thread", "8", "--warmup-transitions", "256",
            "--batch-size", "64", "--hidden-units", "32", "--eval-games", "0",
            "--log-every-sec", "0.5", "--budget-minutes", str(BUDGET_SEC / 60),
            "--out-dir", str(root / "runs")]  # fmt: skip
    proc = subprocess.Popen(
        [sys.executable, "-m", "boardq", *args], cwd=ROOT, env=env,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    out = Output(proc.stdout)
    try:
        # The run joined the cluster and spread its actor processes over both nodes.
        placed = out.wait_for(r"actor processes on (\d) node\(s\) of the Ray cluster: (.*)", 120)
        assert placed, out.lines
        on_node = {
            node: [int(i) for i in ids.split(", ")]
            for node, ids in re.findall(r"node ([0-9a-f]{8}) \([^)]*\): ([\d, ]+)", placed[2])
        }
        assert sorted(on_node) == sorted([head_id[:8], second_id[:8]]), placed[0]
        (lost,) = on_node[second_id[:8]]
        on_second = [a for a in second.members().values() if "ActorProcess" in a]
        assert len(on_second) == 1, second.members()
        assert out.wait_for(r"train steps", 120), out.lines

        second.kill()  # the whole node, at once

        # The run says what it lost, and the process comes back on the head.
        died = out.wait_for(
            rf"actor process {lost} \(pid \d+ on node (\w+) .*\) (died|does not)", 60
        )
        assert died and died[1] == second_id[:8], out.lines
        gone = out.wait_for(r"node (\w+) \(.*\) left the Ray cluster", 60)
        assert gone and gone[1] == second_id[:8], out.lines
        back = out.wait_for(rf"actor process {lost} restarted as pid (\d+) on node (\w+)", 90)
        assert back and back[2] == head_id[:8], out.lines
        assert int(back[1]) in head.members(), head.members()  # a worker of the head's
        proc.wait(timeout=BUDGET_SEC + 120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    text = out.text()
    assert proc.returncode == 0, text
    assert "Traceback" not in text and "finished:" in text, text
    (run_dir,) = (root / "runs" / "tictactoe").iterdir()
    rows = [json.loads(x) for x in (run_dir / "metrics.jsonl").read_text().splitlines()]
    assert rows[-1]["actor_restarts"] == 1
    assert rows[-1]["elapsed_sec"] >= BUDGET_SEC  # the budget spent, not cut short
    # Training went on after the restart (said once the new process delivered).
    at_restart = [r["transitions"] for r in rows if r.get("actor_restarts", 0) >= 1]
    assert at_restart[-1] > at_restart[0]
    # The cluster the run joined is still up; the run's actor processes are not.
    assert head.proc.poll() is None
    end = time.monotonic() + 30
    while any("ActorProcess" in a for a in head.members().values()) and time.monotonic() < end:
        time.sleep(0.5)
    assert not [a for a in head.members().values() if "ActorProcess" in a]
