"""`boardq serve`'s connections: uvicorn's HTTP/1.1 protocol with a deadline on each request's head.

uvicorn times out a kept-alive connection that sends nothing after an answer, but not
one that sends a little at a time, nor a new one that sends nothing at all; each would
hold its socket forever. `HeadTimeoutProtocol` closes a connection whose request head
(its line and headers) has not come whole within `HEAD_TIMEOUT_SEC` of the connection
opening or of the previous answer, with a timer on the event loop (no thread waits),
and sends each answer without Nagle's delay. `boardq.web.server` serves with it.
"""

from __future__ import annotations

import socket

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

__all__ = ["HEAD_TIMEOUT_SEC", "HeadTimeoutProtocol"]

HEAD_TIMEOUT_SEC = 10.0


class HeadTimeoutProtocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol, closing a connection whose request head is late.

    uvicorn times out a kept-alive connection that sends nothing after an answer, but
    not one that sends a little at a time, nor a new one that sends nothing at all;
    each would hold its socket forever. Here a request's head must come whole within
    `HEAD_TIMEOUT_SEC` of the connection opening or of the previous answer.
    """

    head_timeout_sec = HEAD_TIMEOUT_SEC

    def connection_made(self, transport) -> None:  # noqa: D102 (asyncio's)
        super().connection_made(transport)
        sock = transport.get_extra_info("socket")
        if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
            # An answer is two writes (head, body): without this, the body waits for the
            # client's delayed ACK of the head, 40 ms on a kept-alive connection.
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._arm_head_deadline()

    def data_received(self, data: bytes) -> None:  # noqa: D102
        super().data_received(data)
        if self.conn.their_state is not h11.IDLE:  # the head is in: the app has it now
            self._cancel_head_deadline()

    def on_response_complete(self) -> None:  # noqa: D102
        super().on_response_complete()
        if not self.transport.is_closing() and self.conn.their_state is h11.IDLE:
            self._arm_head_deadline()

    def connection_lost(self, exc: Exception | None) -> None:  # noqa: D102
        self._cancel_head_deadline()
        super().connection_lost(exc)

    def _arm_head_deadline(self) -> None:
        self._cancel_head_deadline()
        self._head_deadline = self.loop.call_later(self.head_timeout_sec, self._head_too_late)

    def _cancel_head_deadline(self) -> None:
        deadline = getattr(self, "_head_deadline", None)
        if deadline is not None:
            deadline.cancel()
            self._head_deadline = None

    def _head_too_late(self) -> None:
        self._head_deadline = None
        if not self.transport.is_closing() and self.conn.their_state is h11.IDLE:
            self.transport.close()
