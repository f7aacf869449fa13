"""The Ray cluster as a run meets it: joining or starting Ray, and where processes run.

A run joins the cluster at `--ray-address`, or starts a local Ray instance it shuts
down at its end. Nodes are named by the start of their id and their machine's name,
and the run says in one line which node runs which actor process.
"""

from __future__ import annotations

import os
import socket
import tempfile
from typing import Any
from urllib.parse import urlsplit

from boardq.errors import BoardqError

__all__ = ["check_address", "node_name", "placement", "start_ray", "wait_started"]

ANSWER_SEC = 5.0  # how long a cluster's address has to accept a connection


def check_address(address: str, timeout: float = ANSWER_SEC) -> None:
    """Refuses, in one line, a `--ray-address` where nothing accepts a connection.

    Ray itself retries a dead address for minutes with warnings of its own; this asks
    the address once. `""` (a local instance) and `auto` (Ray finds a running cluster,
    or says at once that there is none) are left to Ray.

    Raises:
      BoardqError: the address is not HOST:PORT (or ray://HOST:PORT), or no process
        accepts a connection there within `timeout` seconds.
    """
    if address in ("", "auto"):
        return
    parts = urlsplit(address if "://" in address else f"//{address}")
    try:
        host, port = parts.hostname, parts.port
    except ValueError:  # a port that is not a number, or out of range
        host, port = None, None
    if not host or port is None:
        raise BoardqError(
            f"ray address {address!r}: give HOST:PORT of the cluster's head "
            "(`ray start --head` prints it), auto, or leave it out for a local instance"
        )
    try:
        socket.create_connection((host, port), timeout=timeout).close()
    except OSError as e:
        reason = "no answer" if isinstance(e, TimeoutError) else (e.strerror or str(e))
        raise BoardqError(
            f"no Ray cluster answers at {address} ({reason}): start its head with "
            "`ray start --head`, or leave --ray-address out for a local instance"
        ) from None


def start_ray(address: str, processes: int) -> bool:
    """Connects to the cluster at `address`, or starts a local Ray instance.

    Returns:
      Whether this call started (and so must shut down) a local instance.
    """
    import ray

    if ray.is_initialized():
        return False
    if address:
        check_address(address)
    quiet = {"include_dashboard": False, "log_to_driver": False, "logging_level": "ERROR"}
    env_vars = {"TF_CPP_MIN_LOG_LEVEL": "3", "RAY_DEDUP_LOGS": "0"}
    # Ray puts the driver's working folder first on its workers' sys.path, unless the
    # job has a working_dir of its own. An empty one (Ray uploads it once, to every node)
    # keeps a stray `boardq/` or other folder where the run was started from standing in
    # for installed packages in the actor processes.
    with tempfile.TemporaryDirectory(prefix="boardq-ray-") as empty:
        env = {"working_dir": empty, "env_vars": env_vars}
        if address:
            ray.init(address=address, runtime_env=env, **quiet)
            return False
        # Ray starts its workers at nice 15 (behind everything else): on a busy machine
        # an actor process then took minutes to start, and played at a few percent of a
        # core. They are the run's own work, so they run at the run's priority.
        ray.init(
            num_cpus=max(os.cpu_count() or 1, processes),
            runtime_env=env,
            _system_config={"worker_niceness": 0},
            **quiet,
        )
    return True


def wait_started(handles: list[Any], timeout: float) -> list[dict[str, Any]]:
    """Waits until every actor process is up; where each one runs (`ActorProcess.where`).

    Raises:
      BoardqError: some did not start in `timeout` seconds (too few CPUs, say).
    """
    import ray

    refs = [h.where.remote() for h in handles]
    _, waiting = ray.wait(refs, num_returns=len(refs), timeout=timeout)
    if waiting:
        cpus = ray.cluster_resources().get("CPU", 0)
        raise BoardqError(
            f"{len(waiting)} of {len(refs)} actor processes did not start in "
            f"{timeout:.0f} s: each needs one CPU, and the Ray cluster has "
            f"{cpus:g} in all"
        )
    return ray.get(refs)


def node_name(place: dict[str, Any]) -> str:
    """A node as the run names it: the start of its id, and its machine's name."""
    return f"{place['node'][:8]} ({place['host']})"


def placement(places: list[dict[str, Any]]) -> str:
    """Which node runs which actor process, in one line."""
    by_node: dict[str, list[int]] = {}
    for i, place in enumerate(places):
        by_node.setdefault(node_name(place), []).append(i)
    nodes = "; ".join(f"node {n}: {', '.join(map(str, ps))}" for n, ps in by_node.items())
    return f"actor processes on {len(by_node)} node(s) of the Ray cluster: {nodes}"
