"""Names of games built on the fly: `openspiel:NAME[(params)]` and `pettingzoo:ENV_ID[(params)]`.

A name is a source, a colon, and a spec: the game or environment and, in parentheses,
its parameters as `key=value` pairs separated by commas (OpenSpiel's own syntax, which
nests: `turn_based_simultaneous_game(game=goofspiel(num_cards=4))`). `--env-arg K=V`
on the command line adds pairs (`with_args`). Pure string handling, nothing imported.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from boardq.game import GameFitError

__all__ = ["SOURCES", "GameSpec", "format_spec", "is_generic", "parse_name", "with_args"]

SOURCES = ("openspiel", "pettingzoo")
"""Where a generic game comes from: the text before the colon."""


@dataclass(frozen=True)
class GameSpec:
    """A parsed name.

    Attributes:
        source: "openspiel" or "pettingzoo".
        base: the game's name or the environment's id, e.g. "breakthrough".
        params: the parameters as typed, in order.
    """

    source: str
    base: str
    params: tuple[tuple[str, str], ...] = ()


def is_generic(name: str) -> bool:
    """Whether `name` names a game built on the fly (it has a `source:` prefix)."""
    return name.strip().partition(":")[0].lower() in SOURCES and ":" in name


def _split_top(text: str) -> list[str]:
    """`text` split at the commas outside parentheses."""
    parts, depth, start = [], 0, 0
    for i, char in enumerate(text):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth < 0:
            raise GameFitError(f"unbalanced parentheses in {text!r}")
        if char == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    if depth:
        raise GameFitError(f"unbalanced parentheses in {text!r}")
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def _pair(text: str) -> tuple[str, str]:
    key, eq, value = text.partition("=")
    if not eq or not key.strip() or not value.strip():
        raise GameFitError(f"expected a parameter as key=value, got {text!r}")
    return key.strip(), value.strip()


def parse_name(name: str) -> GameSpec:
    """Parses `source:base(key=value,...)`.

    Raises:
        GameFitError: not of that form.
    """
    source, _, rest = name.strip().partition(":")
    source = source.lower()
    if source not in SOURCES:
        raise GameFitError(f"expected openspiel:NAME or pettingzoo:ENV_ID, got {name!r}")
    rest = rest.strip()
    base, paren, inner = rest.partition("(")
    if paren:
        if not inner.endswith(")"):
            raise GameFitError(f"expected {source}:NAME(key=value,...), got {name!r}")
        params = tuple(_pair(p) for p in _split_top(inner[:-1]))
    else:
        params = ()
    if not base.strip():
        raise GameFitError(f"{name!r} names no game after '{source}:'")
    return GameSpec(source, base.strip(), params)


def with_args(name: str, args: Iterable[str]) -> str:
    """`name` with more `key=value` parameters (the command line's `--env-arg`).

    A key given again replaces the value in the name.

    Raises:
        GameFitError: `name` is not a generic game's, or an argument is not key=value.
    """
    args = list(args)
    if not args:
        return name
    if not is_generic(name):
        raise GameFitError(
            f"--env-arg is for games built from an environment (openspiel:NAME, "
            f"pettingzoo:ENV_ID), not for {name!r}"
        )
    spec = parse_name(name)
    params = dict(spec.params)
    params.update(_pair(a) for a in args)
    return format_spec(GameSpec(spec.source, spec.base, tuple(params.items())))


def format_spec(spec: GameSpec) -> str:
    """The name of a spec: `source:base` and its parameters in parentheses, if any."""
    inner = ",".join(f"{k}={v}" for k, v in spec.params)
    return f"{spec.source}:{spec.base}" + (f"({inner})" if inner else "")
