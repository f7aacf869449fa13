"""Argument parsing shared by every command: value parsers and the settings' options.

Also `counted`, how the commands' reports word a count ("1 game", "100 games").

The training settings' options are generated from the fields of `TrainConfig` and
`NetworkConfig` here, in one place: each flag is the field's name with dashes, shown
in its group (`boardq.config.GROUPS`).
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import typing
from collections.abc import Callable
from typing import Any

from boardq import bounded
from boardq.bounded import MAX_WHOLE_DIGITS, NumberTextError
from boardq.config import GROUPS, NetworkConfig, TrainConfig
from boardq.errors import EXIT_USAGE
from boardq.search.spec import SearchSpec

__all__ = [
    "Parser",
    "add_config_options",
    "add_search_options",
    "choice",
    "config_from_args",
    "counted",
    "list_of",
    "number",
    "parse_bool",
    "parse_sizes",
    "search_spec",
]


class Parser(argparse.ArgumentParser):
    """Prints usage errors as one line (and where to look for help)."""

    def error(self, message: str) -> typing.NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def parse_bool(text: str) -> bool:
    """true/false, yes/no, on/off, 1/0 (any case)."""
    value = text.strip().lower()
    if value in {"1", "true", "yes", "on"}:
        return True
    if value in {"0", "false", "no", "off"}:
        return False
    raise argparse.ArgumentTypeError(f"expected true or false, got {text!r}")


def counted(n: int, noun: str) -> str:
    """`n` and the noun, plural unless n is 1: "1 game", "100 games"."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def number(kind: type, minimum: float | None = None) -> Callable[[str], Any]:
    """A parser of whole numbers (`int`) or numbers (`float`), at least `minimum`."""

    def parse(text: str):
        noun = "whole number" if kind is int else "number"
        try:
            value = kind(bounded.check_number_text(text))
        except NumberTextError as e:
            raise argparse.ArgumentTypeError(str(e)) from None
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a {noun}, got {text!r}") from None
        if value != value:  # NaN
            raise argparse.ArgumentTypeError(f"expected a {noun}, got {text!r}")
        if kind is int and abs(value) >= 10**MAX_WHOLE_DIGITS:
            raise argparse.ArgumentTypeError(
                f"expected a whole number of at most {MAX_WHOLE_DIGITS} digits, got {text!r}"
            )
        if kind is float and not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
        if minimum is not None and value < minimum:
            raise argparse.ArgumentTypeError(f"expected a {noun} >= {minimum:g}, got {text!r}")
        return value

    parse.__name__ = kind.__name__
    return parse


def choice(values: tuple[str, ...]) -> Callable[[str], str]:
    """A parser of one of `values`."""

    def parse(text: str) -> str:
        if text not in values:
            raise argparse.ArgumentTypeError(f"expected one of {', '.join(values)}, got {text!r}")
        return text

    return parse


def parse_sizes(text: str) -> tuple[int, ...]:
    """Comma-separated layer sizes such as 256,256 ("none" or empty: no layers)."""
    text = text.strip().lower()
    if text in {"", "none"}:
        return ()
    try:
        sizes = tuple(int(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected comma-separated whole numbers such as 256,256, got {text!r}"
        ) from None
    if any(s < 1 for s in sizes):
        raise argparse.ArgumentTypeError(f"layer sizes must be >= 1, got {text!r}")
    return sizes


def list_of(parse: Callable[[str], Any], what: str) -> Callable[[str], tuple]:
    """A parser of comma-separated values, each parsed by `parse` (at least one)."""

    def parse_list(text: str) -> tuple:
        try:
            values = tuple(parse(part.strip()) for part in text.split(",") if part.strip())
        except (ValueError, argparse.ArgumentTypeError):
            raise argparse.ArgumentTypeError(
                f"expected comma-separated {what}, got {text!r}"
            ) from None
        if not values:
            raise argparse.ArgumentTypeError(f"expected at least one value, got {text!r}")
        return values

    return parse_list


def _parser_for(hint: Any) -> Callable[[str], Any]:
    if hint is bool:
        return parse_bool
    if hint in (int, float):
        return number(hint)
    if hint is str:
        return str
    if typing.get_origin(hint) is tuple:
        return parse_sizes
    raise TypeError(f"unsupported option type {hint!r}")


def add_config_options(parser: argparse.ArgumentParser) -> None:
    """One option per settings field, in its group; unset options keep the preset's."""
    groups = {
        key: parser.add_argument_group(f"{title} (default: the game's preset)")
        for key, title in GROUPS.items()
    }
    for cls in (TrainConfig, NetworkConfig):
        hints = typing.get_type_hints(cls)
        for f in dataclasses.fields(cls):
            meta = f.metadata
            if "help" not in meta or meta.get("cli") is False:
                continue
            groups[meta["group"]].add_argument(
                "--" + f.name.replace("_", "-"),
                dest=f.name,
                type=_parser_for(hints[f.name]),
                default=argparse.SUPPRESS,
                metavar="BOOL" if hints[f.name] is bool else f.name.upper(),
                choices=meta.get("choices"),
                help=meta["help"],
            )
            if meta.get("no_flag"):  # --no-save-replay: the same as --save-replay false
                groups[meta["group"]].add_argument(
                    "--no-" + f.name.replace("_", "-"),
                    dest=f.name,
                    action="store_const",
                    const=False,
                    default=argparse.SUPPRESS,
                    help=f"the same as --{f.name.replace('_', '-')} false",
                )


def config_from_args(base: TrainConfig, args: argparse.Namespace) -> TrainConfig:
    """The base config with every settings option the user gave applied."""
    names = {f.name for f in dataclasses.fields(TrainConfig)}
    names |= {f.name for f in dataclasses.fields(NetworkConfig)}
    changes = {k: v for k, v in vars(args).items() if k in names and k != "game"}
    return base.replace(**changes)


def add_search_options(p: argparse.ArgumentParser, who: str, search_help: str) -> None:
    """`--search D`, `--move-time SEC` or `--visits N` (one of them): how `who` looks ahead.

    Args:
      p: the command's parser.
      who: who searches ("the agent", "the evaluated agent").
      search_help: `--search`'s help text.
    """
    group = p.add_mutually_exclusive_group()
    group.add_argument(
        "--search",
        type=number(int, minimum=0),
        default=0,
        metavar="D",
        help=search_help + " (the alpha-beta search)",
    )
    group.add_argument(
        "--move-time",
        type=number(float, minimum=0.001),
        default=None,
        metavar="SEC",
        help=f"{who} grows a search tree over its values for SEC seconds a move (the tree "
        "kept from move to move), instead of a fixed --search depth",
    )
    group.add_argument(
        "--visits",
        type=number(int, minimum=1),
        default=None,
        metavar="N",
        help=f"{who} grows its search tree to N visits a move (what it keeps from the last "
        "move counts), however long that takes: the same moves on a fast or a slow machine",
    )


def search_spec(args: argparse.Namespace) -> SearchSpec:
    """The search the command line asks for (--search D, --move-time SEC, --visits N)."""
    return SearchSpec.of(
        args.search, getattr(args, "move_time", None), getattr(args, "visits", None)
    )


def add_handicap_option(p: argparse.ArgumentParser, what: str) -> None:
    """`--handicap N` (Go's fixed handicap, 2-9 stones); `what` says who takes them."""
    p.add_argument(
        "--handicap",
        type=number(int, minimum=2),
        default=None,
        metavar="N",
        help=f"Go: {what}",
    )


def handicap_of(args: argparse.Namespace, game):
    """The `Handicap` that `--handicap` asks for, or None.

    Raises:
        BoardqError: the game has no handicap stones, or none of that number.
    """
    from boardq.errors import BoardqError
    from boardq.players.match_openings import fixed_handicap

    if args.handicap is None:
        return None
    try:
        return fixed_handicap(game, args.handicap)
    except ValueError as e:
        raise BoardqError(f"--handicap {args.handicap}: {e}") from None


def add_engine_timeout_option(p: argparse.ArgumentParser) -> None:
    """`--engine-timeout SEC`: how long a GTP engine may take over one answer."""
    from boardq.gtp.client import DEFAULT_TIMEOUT_SEC

    p.add_argument(
        "--engine-timeout",
        type=number(float, minimum=1),
        default=None,
        metavar="SEC",
        help="how long a gtp: engine may take over one answer before the match stops "
        f"(default {DEFAULT_TIMEOUT_SEC:g}); strong levels on a busy machine take longer",
    )
