"""Numbers in text that others wrote, bounded before Python converts them.

Records (JSON lines, SGF), the web board's requests and `--config` files come from
other programs and people. Python refuses to convert an integer of more than 4,300
digits (a ValueError that ends a command in a traceback where nothing expects it) and
below that takes time quadratic in the digits; a float's text of any length converts,
to inf past 1e308. No number boardq reads needs more than `MAX_NUMBER_CHARS`
characters, so longer ones are refused first, in one line (`NumberTextError`).
"""

from __future__ import annotations

import json
import re
import tomllib
from typing import Any

__all__ = [
    "MAX_NUMBER_CHARS",
    "MAX_WHOLE_DIGITS",
    "NumberTextError",
    "check_number_text",
    "loads",
    "toml_loads",
    "whole_number",
]

MAX_NUMBER_CHARS = 40
"""The longest number boardq reads, in characters ("-1.2345678901234567e-308" has 24)."""


MAX_WHOLE_DIGITS = 18
"""The most digits of a whole number in settings and on the command line (every one fits
a 64-bit integer)."""


class NumberTextError(ValueError):
    """A number's text that boardq does not convert, or JSON nested too deeply; one line."""


def check_number_text(text: str | bytes, what: str = "") -> str:
    """`text` (bytes as Latin-1), once it is known to be short enough to convert.

    Args:
      text: a number's text.
      what: what the number is, to start the message ("KM", "a move's time").

    Raises:
      NumberTextError: it has more than `MAX_NUMBER_CHARS` characters.
    """
    if isinstance(text, bytes):
        text = text.decode("latin-1")
    if len(text) > MAX_NUMBER_CHARS:
        raise NumberTextError(
            f"{what + ': ' if what else ''}a number {len(text):,} characters long (boardq "
            f"reads numbers of at most {MAX_NUMBER_CHARS})"
        )
    return text


def whole_number(text: str | bytes, what: str) -> int:
    """The whole number written in `text`: ASCII digits, a sign, spaces around.

    Raises:
      NumberTextError: longer than `MAX_NUMBER_CHARS` characters, or not a whole number
        (the message starts with `what`).
    """
    digits = check_number_text(text, what).strip()
    body = digits[1:] if digits[:1] in ("+", "-") else digits
    if not (body.isascii() and body.isdigit()):
        raise NumberTextError(f"{what} is not a number")
    return int(digits)


def _int(text: str) -> int:
    return int(check_number_text(text))


def _float(text: str) -> float:
    return float(check_number_text(text))


def _whole(text: str) -> int:
    if len(text.lstrip("-")) > MAX_WHOLE_DIGITS:
        raise NumberTextError(f"a number has over {MAX_WHOLE_DIGITS} digits")
    return int(text)


def _no_constant(text: str) -> Any:
    raise NumberTextError(f"{text} is not a number")


def loads(data: str | bytes, strict: bool = False) -> Any:
    """`json.loads`, with each number's text bounded before it is converted.

    Args:
      data: the JSON text.
      strict: also refuse whole numbers of more than `MAX_WHOLE_DIGITS` digits, and
        NaN and Infinity, which `json` reads though JSON has neither (what a request
        from outside may carry: the web board's bodies).

    Raises:
      json.JSONDecodeError: not JSON.
      NumberTextError: a number longer than `MAX_NUMBER_CHARS` characters (strict: a
        whole number of more than `MAX_WHOLE_DIGITS` digits, NaN or Infinity), or arrays
        and objects nested deeper than Python's recursion limit.
    """
    extra = {"parse_int": _whole, "parse_constant": _no_constant} if strict else {}
    try:
        return json.loads(data, **{"parse_int": _int, "parse_float": _float, **extra})
    except RecursionError:
        raise NumberTextError("JSON nested too deeply") from None


# TOML's strings and comments, where digits are text and not numbers.
_TOML_TEXT = re.compile(
    r'"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|"(?:\\.|[^"\\\n])*"|\'[^\'\n]*\'|#[^\n]*'
)
_TOML_NUMBER = re.compile(r"[+-]?[0-9_.eE+-]*[0-9][0-9_.eE+-]*")


def toml_loads(text: str) -> dict[str, Any]:
    """`tomllib.loads`, with each number's text bounded before it is converted.

    tomllib converts integers itself (it has a hook for floats only), so the text
    outside TOML's strings and comments is looked over first.

    Raises:
      tomllib.TOMLDecodeError: not TOML.
      NumberTextError: a number longer than `MAX_NUMBER_CHARS` characters.
    """
    for number in _TOML_NUMBER.finditer(_TOML_TEXT.sub(" ", text)):
        check_number_text(number[0])
    return tomllib.loads(text, parse_float=_float)
