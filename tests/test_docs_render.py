"""The README and docs/ render as written, and the commands they show are ones boardq takes.

Markdown that GitHub renders otherwise than its author meant: a code fence glued to
prose (from there the page's code and prose swap), a blank line inside a table (the
rows after it show as a paragraph of pipes). And a command shown with an option that
its parser does not take: a user who copies it gets an error.
And a page of docs/ outside docs/results/ that has grown past 20 KB: a reader works from
it, so what was measured moves to docs/results/.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from boardq.commands import build_parser

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
NAMES = [str(d.relative_to(ROOT)) for d in DOCS]
FENCE = re.compile(r"^\s*```[\w+-]*\s*$")
SEPARATOR = re.compile(r"^\|(\s*:?-+:?\s*\|)+\s*$")
COMMAND = re.compile(r"(?:^|`|\$ )(boardq [a-z][^`\n]*)", re.M)
# A page a reader works from stays short: what to run and how to read it. What was
# measured goes to docs/results/, which may be long.
PAGE_BYTES = 20_000


def fence_faults(text: str) -> list[str]:
    """Lines where a fence (```) shares its line with text, and an unclosed fence."""
    faults, open_at = [], None
    for i, line in enumerate(text.splitlines(), 1):
        if "```" not in line:
            continue
        if not FENCE.match(line):
            faults.append(f"line {i}: a fence glued to text: {line.strip()[:60]!r}")
            continue
        open_at = None if open_at else i
    if open_at:
        faults.append(f"line {open_at}: a fence never closed")
    return faults


def prose_lines(text: str) -> list[tuple[int, str]]:
    """The lines outside code fences, numbered from 1."""
    out, inside = [], False
    for i, line in enumerate(text.splitlines(), 1):
        if FENCE.match(line):
            inside = not inside
        elif not inside:
            out.append((i, line))
    return out


def table_faults(text: str) -> list[str]:
    """Blank lines between two rows of one table (the second row is not a new header)."""
    lines = prose_lines(text)
    faults = []
    for k in range(1, len(lines) - 1):
        (_, before), (i, blank), (_, after) = lines[k - 1], lines[k], lines[k + 1]
        if blank.strip() or not before.startswith("|") or not after.startswith("|"):
            continue
        follows = lines[k + 2][1] if k + 2 < len(lines) else ""
        if not SEPARATOR.match(follows.strip()):
            faults.append(f"line {i}: a blank line inside a table")
    return faults


def shown_commands(text: str) -> list[str]:
    """Every `boardq COMMAND ...` the page shows, in code blocks and inline code."""
    found = []
    for match in COMMAND.finditer(text):
        line = match.group(1).split("#")[0].strip().rstrip("\\").strip()
        found.append(line)
    return found


def options_of(command: str) -> set[str] | None:
    """The long options a `boardq` subcommand takes (None: no such command)."""
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    parser = sub.choices.get(command)
    if parser is None:
        return None
    return {o for a in parser._actions for o in a.option_strings if o.startswith("--")}


def option_faults(text: str) -> list[str]:
    """Options that a shown command's parser does not take (`--no-X` of a flag counts)."""
    faults = []
    for line in shown_commands(text):
        try:
            words = shlex.split(line)
        except ValueError:
            words = line.split()
        if len(words) < 2 or not re.fullmatch(r"[a-z]+", words[1]):
            continue
        options = options_of(words[1])
        if options is None:
            continue  # "boardq trains ..." in prose, not a command
        for word in words[2:]:
            flag = word.split("=")[0]
            if flag.startswith("--") and re.fullmatch(r"--[a-z][\w-]*", flag):
                if flag not in options:
                    faults.append(f"`boardq {words[1]}` takes no {flag}: {line[:80]}")
    return faults


def too_long(doc: str, size: int) -> bool:
    """A page of docs/ outside docs/results/ of PAGE_BYTES or more."""
    outside_results = doc.startswith("docs/") and not doc.startswith("docs/results/")
    return outside_results and size >= PAGE_BYTES


def prose_faults(text: str) -> list[str]:
    """Sentences that say commands take options (`play` ... takes `--flag`) they do not."""
    faults, paragraphs, lines = [], [], []
    for _, line in [*prose_lines(text), (0, "")]:  # paragraphs: no table row, no heading
        if line.strip() and not line.lstrip().startswith(("|", "#")):
            lines.append(line.strip())
        elif lines:
            paragraphs.append(" ".join(lines))
            lines = []
    sentences = [s for p in paragraphs for s in re.split(r"(?<=[.;])\s", p)]
    for sentence in sentences:
        if not re.search(r"\btakes?\b", sentence):
            continue
        flags = re.findall(r"`(--[a-z][\w-]*)", sentence)
        for name in re.findall(r"`(?:boardq )?([a-z]+)`", sentence):
            options = options_of(name) if flags else None
            missing = [f for f in flags if options is not None and f not in options]
            if missing:
                faults.append(f"`{name}` takes no {', '.join(missing)}: {sentence[:80]}")
    return faults


def test_the_checks_find_what_they_are_for():
    glued = "text\n\n```\nboardq play go\n``` Without\nmore\n"
    assert fence_faults(glued) and not fence_faults("a\n```bash\nb\n```\n")
    split_table = "| a | b |\n| --- | --- |\n| 1 | 2 |\n\n| 3 | 4 |\n"
    two_tables = "| a | b |\n| --- | --- |\n| 1 | 2 |\n\n| c | d |\n| --- | --- |\n"
    assert table_faults(split_table) and not table_faults(two_tables)
    assert option_faults("`boardq league go --move-time 1 a b`")
    assert not option_faults("```\nboardq evaluate go --move-time 1 --games 2\n```\n")
    assert not option_faults("boardq trains agents --fast")
    old_claim = (
        "A fixed depth is slow, so `play`, `evaluate`, `league`, `serve` and `gtp` also "
        "take a budget a move instead: `--move-time SEC` grows a tree; the tree is kept."
    )
    assert prose_faults(old_claim) == [f"`league` takes no --move-time: {old_claim[:80]}"]
    assert not prose_faults("`evaluate` and `league` take `--engine-timeout SEC`.")
    assert too_long("docs/strength.md", 49_079)  # the page as it was, before its results moved
    assert not too_long("docs/results/go.md", 56_212) and not too_long("README.md", 30_000)


FAULTS = {
    "fence glued to text": fence_faults,
    "blank line inside a table": table_faults,
    "option a sentence says a command takes": prose_faults,
    "option a shown command takes": option_faults,
}
"""Each kind of fault a page is read for, and its check."""


@pytest.mark.parametrize("kind", FAULTS)
@pytest.mark.parametrize("doc", NAMES)
def test_the_page_renders_and_its_commands_take_their_options(doc, kind):
    faults = FAULTS[kind]((ROOT / doc).read_text())
    assert not faults, f"{doc}: {faults}"


@pytest.mark.parametrize("doc", NAMES)
def test_every_page_but_the_results_is_under_20_kb(doc):
    size = (ROOT / doc).stat().st_size
    assert not too_long(doc, size), (
        f"{doc} is {size:,} bytes: keep it under {PAGE_BYTES:,} by moving measurements to "
        "docs/results/ and the code's inner workings to docs/internals/, a line and a link each"
    )
