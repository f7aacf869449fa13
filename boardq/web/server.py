"""`boardq serve`'s web server: the browser board's API and page over HTTP.

Served by uvicorn (asyncio, h11's strict HTTP/1.1 parsing) with a small ASGI app of
its own; the routes and their answers are `boardq.web.app`'s. Why uvicorn and
not the standard library's `ThreadingHTTPServer`, measured: docs/results/performance.md
("Serving many players"). What every request meets here, before the app sees it:

- its Host and, when it changes something, its origin (`boardq.web.guard`):
  400 for a host the server does not answer to, 403 for another site's page;
- its body read whole, at most `MAX_BODY_BYTES` (a record file opened on the page,
  `/api/records`: `webrecords.MAX_RECORD_BYTES`; 413 past that, said before reading
  when Content-Length gives it away), within `BODY_TIMEOUT_SEC` (408); a client that
  leaves before its body is whole is not answered and nothing is done;
- the connection closed when the request's head (its line and headers) has not come
  whole within `HEAD_TIMEOUT_SEC` of the connection opening or of the last answer, or
  when a kept-alive connection has been idle `KEEP_ALIVE_SEC` (no thread waits on
  either: the server is one event loop).

The agents' work (a move, hints) runs on a small thread pool, so a slow search does
not stop other players' requests from being read. A client that goes away before its
answer is not an error: the terminal stays quiet while people play.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import socket
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from importlib.resources import files
from typing import Any

import uvicorn

from boardq.web.app import Answer, WebApp
from boardq.web.connection import HEAD_TIMEOUT_SEC, HeadTimeoutProtocol
from boardq.web.guard import SAFE_METHODS, HostGuard
from boardq.web.records import MAX_RECORD_BYTES
from boardq.web.request import MAX_DIGITS, allowed

__all__ = [
    "BODY_TIMEOUT_SEC",
    "HEAD_TIMEOUT_SEC",
    "KEEP_ALIVE_SEC",
    "MAX_BODY_BYTES",
    "WebServer",
    "make_server",
]

MAX_BODY_BYTES = 64 * 1024
"""The largest request body, but for a record file opened on the page (MAX_RECORD_BYTES)."""
_LARGE_BODIES = {"/api/records": MAX_RECORD_BYTES}
BODY_TIMEOUT_SEC = 10.0
KEEP_ALIVE_SEC = 5
BACKLOG = 2048
"""Connections the kernel holds before they are accepted (the standard library's 5 reset them)."""
WORKERS = 8
"""Threads that run requests (the agents of one game answer one request at a time)."""

_STATIC_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
}
_STATIC_NAME = re.compile(r"[A-Za-z0-9_-]+(\.[a-z]+)")
_JSON = "application/json"


class _Refused(Exception):
    """A request answered before the app sees it (its status, message, and headers)."""

    def __init__(self, status: int, message: str, close: bool = False) -> None:
        super().__init__(message)
        self.status, self.message, self.close = status, message, close


class _Gone(Exception):
    """The client left before its request was whole: nothing is done, nothing answered."""


class _Asgi:
    """The ASGI app: the checks above, then `WebApp.handle` or a file of `static/`."""

    def __init__(self, app: WebApp, guard: HostGuard, body_timeout_sec: float) -> None:
        self.app = app
        self.guard = guard
        self.body_timeout_sec = body_timeout_sec
        self.pool = ThreadPoolExecutor(WORKERS, thread_name_prefix="boardq-web")

    async def __call__(self, scope: dict, receive, send) -> None:
        if scope["type"] != "http":  # "lifespan" is off; nothing else is served
            return
        method, path = scope["method"], scope["path"]
        query = scope.get("query_string", b"").decode("latin-1")
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        try:
            body = await self._checked_body(method, path, headers, receive)
        except _Gone:
            return
        except _Refused as e:
            await _send(send, Answer(e.status, {"error": e.message}), close=e.close)
            return
        if path == "/" or path.startswith("/static/"):
            await _send_file(send, method, path)
            return
        loop = asyncio.get_running_loop()
        answer = await loop.run_in_executor(self.pool, self._answer, method, path, body, query)
        await _send(send, answer)

    async def _checked_body(
        self, method: str, path: str, headers: dict[str, str], receive
    ) -> bytes:
        why = self.guard.host_refusal(headers.get("host"))
        if why:
            raise _Refused(400, why)
        why = self.guard.origin_refusal(method, headers)
        if why:
            raise _Refused(403, why)
        limit = _LARGE_BODIES.get(path, MAX_BODY_BYTES)
        length = headers.get("content-length")
        # h11 has refused a Content-Length that is not a number; this holds without it.
        if length is not None and not (
            length.isascii() and length.isdigit() and len(length) <= MAX_DIGITS
            and int(length) <= limit
        ):  # fmt: skip
            raise _Refused(413, _too_large(limit), True)
        return await _read_body(receive, self.body_timeout_sec, limit)

    def _answer(self, method: str, path: str, body: bytes, query: str) -> Answer:
        try:
            return self.app.handle(method, path, body, query)
        except Exception as e:  # a fault of the server's, not of the request
            print(f"boardq serve: {method} {path}: {type(e).__name__}: {e}", file=sys.stderr)
            return Answer(500, {"error": f"the server failed: {type(e).__name__}: {e}"})


def _too_large(limit: int) -> str:
    size = f"{limit >> 20} MiB" if limit >= 1 << 20 else f"{limit} bytes"
    return f"the request body must be at most {size}"


async def _read_body(receive, timeout_sec: float, limit: int) -> bytes:
    """The whole request body, within the size (`limit` bytes) and time limits."""
    chunks, size = [], 0
    while True:
        try:
            message = await asyncio.wait_for(receive(), timeout_sec)
        except TimeoutError:
            raise _Refused(
                408, f"the request body did not come whole within {timeout_sec:g} s", True
            ) from None
        if message["type"] == "http.disconnect":
            raise _Gone
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            raise _Refused(413, _too_large(limit), True)
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


async def _send(send, answer: Answer, close: bool = False) -> None:
    if answer.body is not None:  # a file
        await _respond(send, answer.status, answer.content_type, answer.body, answer.headers)
        return
    body = json.dumps(answer.payload, allow_nan=False).encode("utf-8")
    await _respond(send, answer.status, _JSON, body, answer.headers, close)


async def _send_file(send, method: str, path: str) -> None:
    if method not in SAFE_METHODS:
        answer = Answer(405, {"error": f"use GET here, not {method}"}, {"Allow": allowed("GET")})
        await _send(send, answer)
        return
    name = "index.html" if path == "/" else path.removeprefix("/static/")
    found = _STATIC_NAME.fullmatch(name)
    resource = files("boardq.web") / "static" / name
    if found is None or found.group(1) not in _STATIC_TYPES or not resource.is_file():
        await _send(send, Answer(404, {"error": f"no such file: {path}"}))
        return
    await _respond(send, 200, _STATIC_TYPES[found.group(1)], resource.read_bytes())


async def _respond(
    send, status: int, content_type: str, body: bytes, extra: dict | None = None, close=False
) -> None:
    headers = [
        (b"content-type", content_type.encode()),
        (b"content-length", str(len(body)).encode()),
        (b"cache-control", b"no-store"),
        (b"x-content-type-options", b"nosniff"),
        (b"referrer-policy", b"no-referrer"),
    ]
    headers += [(k.lower().encode(), v.encode()) for k, v in (extra or {}).items()]
    if close:
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})  # uvicorn drops it for HEAD


class WebServer:
    """A bound server of a `WebApp`; `serve_forever` runs it, `shutdown` ends that.

    Attributes:
      server_address: (host, port) it listens on (the port chosen when 0 was asked).
    """

    def __init__(
        self,
        app: WebApp,
        sock: socket.socket,
        guard: HostGuard,
        head_timeout_sec: float = HEAD_TIMEOUT_SEC,
        body_timeout_sec: float = BODY_TIMEOUT_SEC,
    ) -> None:
        self.app = app
        self._socket = sock
        self.server_address: tuple[Any, ...] = sock.getsockname()[:2]
        self._asgi = _Asgi(app, guard, body_timeout_sec)
        timeouts = {"head_timeout_sec": head_timeout_sec}
        protocol = type("_Protocol", (HeadTimeoutProtocol,), timeouts)
        config = uvicorn.Config(
            self._asgi,
            http=protocol,
            ws="none",
            lifespan="off",
            log_config=None,
            log_level="critical",  # its warnings (a malformed request, say) stay off the terminal
            access_log=False,
            server_header=False,
            date_header=False,
            timeout_keep_alive=KEEP_ALIVE_SEC,
            timeout_graceful_shutdown=2,
        )
        self._server = uvicorn.Server(config)
        self._stopped = threading.Event()
        self._stopped.set()  # not serving yet
        for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
            logging.getLogger(name).setLevel(logging.CRITICAL)

    def serve_forever(self) -> None:
        """Answers requests until `shutdown` (from another thread) or Ctrl-C."""
        self._stopped.clear()
        try:
            asyncio.run(self._server.serve(sockets=[self._socket]))
        finally:
            self._stopped.set()

    def shutdown(self, timeout_sec: float = 30.0) -> None:
        """Makes `serve_forever` return, and waits for it (requests under way finish)."""
        self._server.should_exit = True
        self._stopped.wait(timeout_sec)

    def server_close(self) -> None:
        """Closes the socket and the worker threads."""
        self._socket.close()
        self._asgi.pool.shutdown(wait=False, cancel_futures=True)


def make_server(
    app: WebApp,
    host: str = "127.0.0.1",
    port: int = 8000,
    allow_hosts: tuple[str, ...] = (),
    head_timeout_sec: float = HEAD_TIMEOUT_SEC,
    body_timeout_sec: float = BODY_TIMEOUT_SEC,
) -> WebServer:
    """A server of `app` bound to host:port (port 0: any free port; see `server_address`).

    Args:
      app: what it serves.
      host: the address to listen on; its name is one the server answers to.
      port: the port.
      allow_hosts: other host names it answers to (`boardq.web.guard.HostGuard`).
      head_timeout_sec: how long a request's head may take (see the module docstring).
      body_timeout_sec: how long its body may take.

    Raises:
      OSError: the address cannot be bound (in use, say).
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.create_server((host, port), family=family, backlog=BACKLOG)
    guard = HostGuard(host, allow_hosts)
    return WebServer(app, sock, guard, head_timeout_sec, body_timeout_sec)
