"""Many people at once on `boardq serve`: clients that each play a whole game over the API.

Start a server (`boardq serve connect_four --port 8000`), then

    python3 scripts/serve_load.py http://127.0.0.1:8000/ --clients 100

Every client waits at a barrier, so they all connect at the same moment (or
`--stagger-ms` apart), starts a session and plays its first legal move until the game
ends, one new connection per request, as a page without keep-alive would. Prints the
requests made, the failures by kind (a reset connection, a refused one, a timeout, an
HTTP error) and the latency percentiles. docs/results/performance.md ("Serving many
players") has the figures it gave.
"""

from __future__ import annotations

import argparse
import http.client
import json
import threading
import time
from collections import Counter
from urllib.parse import urlsplit

import numpy as np


def _request(host: str, port: int, method: str, path: str, body: dict | None, timeout: float):
    connection = http.client.HTTPConnection(host, port, timeout=timeout)
    try:
        data = None if body is None else json.dumps(body).encode()
        headers = {"Content-Type": "application/json"} if data else {}
        connection.request(method, path, body=data, headers=headers)
        response = connection.getresponse()
        payload = response.read()
        if response.status >= 400:
            raise RuntimeError(f"HTTP {response.status}")
        return json.loads(payload)
    finally:
        connection.close()


def _client(url, game, barrier, stagger, timeout, latencies, failures, lock) -> None:
    parts = urlsplit(url)
    host, port = parts.hostname, parts.port or 80

    def timed(method, path, body=None):
        start = time.perf_counter()
        try:
            return _request(host, port, method, path, body, timeout)
        finally:
            with lock:
                latencies.append(time.perf_counter() - start)

    barrier.wait()
    time.sleep(stagger)
    try:
        state = timed("POST", "/api/sessions", {"game": game})
        while not state["over"]:
            path = f"/api/sessions/{state['session']}/move"
            state = timed("POST", path, {"action": state["legal"][0], "ply": state["ply"]})
    except Exception as e:  # noqa: BLE001 (every failure is counted by its kind)
        with lock:
            failures[type(e).__name__ if not isinstance(e, RuntimeError) else str(e)] += 1


def main() -> None:
    """Runs the clients and prints what they saw."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("url", help="the server, e.g. http://127.0.0.1:8000/")
    p.add_argument("--clients", type=int, default=100)
    p.add_argument("--game", default="connect_four")
    p.add_argument("--stagger-ms", type=float, default=0.0, help="start clients this far apart")
    p.add_argument("--timeout-sec", type=float, default=30.0)
    args = p.parse_args()
    latencies: list[float] = []
    failures: Counter[str] = Counter()
    lock = threading.Lock()
    barrier = threading.Barrier(args.clients + 1)
    threads = [
        threading.Thread(
            target=_client,
            args=(
                args.url,
                args.game,
                barrier,
                i * args.stagger_ms / 1000,
                args.timeout_sec,
                latencies,
                failures,
                lock,
            ),
        )
        for i in range(args.clients)
    ]
    for thread in threads:
        thread.start()
    barrier.wait()
    start = time.perf_counter()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - start
    ms = np.array(latencies) * 1000
    print(
        f"{args.clients} clients, {len(ms)} requests in {wall:.1f} s, "
        f"{sum(failures.values())} failed games {dict(failures)}"
    )
    if len(ms):
        p50, p99 = np.percentile(ms, [50, 99])
        print(f"latency ms: p50 {p50:.0f}, p99 {p99:.0f}, max {ms.max():.0f}")


if __name__ == "__main__":
    main()
