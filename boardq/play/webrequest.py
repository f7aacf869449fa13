"""What the web board refuses in a request, and the checks of the values it carries.

`RequestError` is a request that cannot be carried out: an HTTP status (4xx) and one
line for the person, raised before anything changes. `seconds` and `whole_number` check
one value of a request's JSON (a time, a seat, an action, a depth). No HTTP here.
"""

from __future__ import annotations

import math
from typing import Any

__all__ = ["RequestError", "seconds", "whole_number"]


class RequestError(Exception):
    """A request that cannot be carried out; nothing was changed.

    Attributes:
      status: the HTTP status (4xx).
      message: one line for the person.
      code: what went wrong in a word the page acts on ("unknown_session"), or None.
      allow: for a 405, the methods the route takes (its `Allow` header).
    """

    def __init__(
        self, status: int, message: str, code: str | None = None, allow: str | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.code = code
        self.allow = allow


def seconds(value: Any, name: str, high: float) -> float:
    """`value` as a number of seconds in [0, high]; RequestError 400 otherwise."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise RequestError(400, f"{name} must be a number of seconds, not {value!r}")
    if not 0 <= value <= high:
        raise RequestError(400, f"{name} must be from 0 to {high:g} seconds, not {value:g}")
    return float(value)


def whole_number(value: Any, name: str, low: int, high: int) -> int:
    """`value` as an int in [low, high]; RequestError 400 otherwise (booleans too)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise RequestError(400, f"{name} must be a whole number, not {value!r}")
    if not low <= value <= high:
        raise RequestError(400, f"{name} must be from {low} to {high}, not {value}")
    return value
