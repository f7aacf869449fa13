"""The README and docs/ name only what exists: files, folders, modules and their names."""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")
PATH = re.compile(r"(?<![\w./-])((?:boardq|games|tests|scripts|docs)/[\w./-]*[\w/])")
DOTTED = re.compile(r"(?<![\w./-])((?:boardq_games|boardq)(?:\.\w+)+)")
# Placeholders and names that are not the project's modules (the entry-point group).
MADE = {"tests/games/<name>/"}
NOT_MODULES = {"boardq.games"}


def named(pattern: re.Pattern) -> list[tuple[str, str]]:
    return sorted(
        {(doc.name, m.group(1)) for doc in DOCS for m in pattern.finditer(doc.read_text())}
    )


@functools.cache
def top_level_names(path: Path) -> frozenset[str]:
    names = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name))
    # What a module imports counts only where it is public (its `__all__`).
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            names.update(ast.literal_eval(node.value))
    return frozenset(names)


def resolves(dotted: str) -> bool:
    """A module or package, then at most a name defined in it and that name's attribute."""
    parts = dotted.split(".")
    if parts[0] == "boardq_games":  # the games' import package is the folder games/
        parts[0] = "games"
    here, i = ROOT, 0
    while i < len(parts) and ((here / parts[i]).is_dir() or (here / f"{parts[i]}.py").is_file()):
        here = here / parts[i]
        i += 1
    rest = parts[i:]
    if not rest:
        return True
    module = here / "__init__.py" if here.is_dir() else here.with_suffix(".py")
    return rest[0] in top_level_names(module) and len(rest) <= 2


def test_the_checks_tell_what_exists_from_what_does_not():
    assert resolves("boardq.players.agent.Agent.load")
    assert resolves("boardq_games.tictactoe")
    assert not resolves("boardq.learner")
    assert not resolves("boardq.dqn.learner.build_models")


@pytest.mark.parametrize(("doc", "path"), named(PATH))
def test_every_path_a_doc_names_exists(doc, path):
    assert path in MADE or (ROOT / path).exists(), f"{doc} names {path}, which does not exist"


@pytest.mark.parametrize(("doc", "name"), named(DOTTED))
def test_every_module_a_doc_names_exists(doc, name):
    if name in NOT_MODULES or name.rsplit(".", 1)[-1] in {"md", "py", "json", "npz"}:
        return
    assert resolves(name), f"{doc} names {name}, which does not exist"


def anchors(doc: Path) -> set[str]:
    """The anchors GitHub makes of a page's headings (lower case, punctuation dropped)."""
    text = re.sub(r"```.*?```", "", doc.read_text(), flags=re.S)
    titles = re.findall(r"^#+ (.+)$", text, flags=re.M)
    return {re.sub(r"[^\w\- ]", "", t.strip().lower()).replace(" ", "-") for t in titles}


def links() -> list[tuple[str, str]]:
    found = set()
    for doc in DOCS:
        text = re.sub(r"```.*?```", "", doc.read_text(), flags=re.S)
        for target in LINK.findall(text):
            if not re.match(r"[a-z]+:", target):
                found.add((str(doc.relative_to(ROOT)), target))
    return sorted(found)


def test_the_anchors_are_the_ones_github_makes():
    assert "the-agent-as-a-gtp-engine-guis-and-match-runners" in anchors(ROOT / "docs/play.md")


@pytest.mark.parametrize(("doc", "target"), links())
def test_every_link_between_docs_lands(doc, target):
    path, _, anchor = target.partition("#")
    page = (ROOT / doc).parent / path if path else ROOT / doc
    assert page.exists(), f"{doc} links {target}: no {path}"
    if anchor and page.suffix == ".md":
        assert anchor in anchors(page), f"{doc} links {target}: no heading makes #{anchor}"


@pytest.mark.parametrize("doc", [str(d.relative_to(ROOT)) for d in DOCS])
def test_no_table_cell_is_longer_than_a_short_line(doc):
    # Tables hold one short line a cell; what does not fit is prose under the table.
    rows = [line for line in (ROOT / doc).read_text().splitlines() if line.startswith("|")]
    cells = [c.strip() for row in rows for c in re.split(r"(?<!\\)\|", row)[1:-1]]
    long = [c[:60] for c in cells if len(c) > 200]
    assert not long, f"{doc} has table cells over 200 characters: {long}"
