"""What the web board refuses in a request, and the checks of what it carries.

`RequestError` is a request that cannot be carried out: an HTTP status (4xx) and one
line for the person, raised before anything changes. `parse_fields` reads a request's
JSON body and `parse_query` its query string, each taking only the names its route
takes; `check_method` refuses a route asked with another method (`allowed` is its
`Allow` header). `seconds` and `whole_number` check one value of a request's JSON (a
time, a seat, an action, a depth). Numbers are bounded before they are converted
(`MAX_DIGITS`). No HTTP library here.
"""

from __future__ import annotations

import json
import math
from typing import Any
from urllib.parse import parse_qs

from boardq import bounded
from boardq.bounded import NumberTextError

__all__ = [
    "MAX_DIGITS",
    "RequestError",
    "allowed",
    "check_method",
    "parse_fields",
    "parse_query",
    "query_number",
    "seconds",
    "whole_number",
]

MAX_DIGITS = bounded.MAX_WHOLE_DIGITS
"""The most digits a number in a request may have (checked before it is converted)."""


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


def allowed(method: str) -> str:
    """The `Allow` header of a route that takes `method` (GET brings HEAD)."""
    return "GET, HEAD" if method == "GET" else method


def check_method(method: str, route_method: str) -> None:
    """Refuses `method` on a route that takes `route_method`: RequestError 405."""
    if method != route_method:
        raise RequestError(
            405, f"use {route_method} here, not {method}", allow=allowed(route_method)
        )


def parse_query(query: str, names: tuple[str, ...]) -> dict[str, str]:
    """The parameters of a query string (each once); only `names` may appear.

    Raises:
      RequestError: 400, an unknown or repeated parameter.
    """
    try:
        params = parse_qs(query, keep_blank_values=True, max_num_fields=10)
    except ValueError:
        raise RequestError(400, "the query has too many parameters") from None
    for key, values in params.items():
        if key not in names:
            known = ", ".join(names) if names else "none"
            raise RequestError(400, f"unknown parameter {key[:40]!r} (this request takes: {known})")
        if len(values) > 1:
            raise RequestError(400, f"the parameter {key!r} is given {len(values)} times")
    return {key: values[0] for key, values in params.items()}


def query_number(text: str, name: str) -> int:
    """A query parameter as a whole number; RequestError 400 otherwise (or too long)."""
    if not (text.isascii() and text.isdigit()) or len(text) > MAX_DIGITS:
        raise RequestError(400, f"{name} must be a whole number, not {text[:20]!r}")
    return int(text)


def parse_fields(body: bytes, names: tuple[str, ...]) -> dict[str, Any]:
    """The JSON object of a request body (empty: no fields); only `names` may appear.

    Raises:
      RequestError: 400, the body is not a JSON object of those fields, or a number in
        it has more than `MAX_DIGITS` digits, or more than `MAX_NUMBER_CHARS` characters
        with a fraction or exponent (refused before Python converts it: an integer takes
        time quadratic in its digits and fails past 4,300).
    """
    if not body.strip():
        return {}
    try:
        fields = bounded.loads(body, strict=True)
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise RequestError(400, f"the request body is not valid JSON: {e}") from None
    except NumberTextError as e:
        raise RequestError(400, f"the request body: {e}") from None
    if not isinstance(fields, dict):
        raise RequestError(400, "the request body must be a JSON object")
    unknown = sorted(set(fields) - set(names))
    if unknown:
        known = ", ".join(names) if names else "none"
        raise RequestError(400, f"unknown field {unknown[0]!r} (this request takes: {known})")
    return fields
