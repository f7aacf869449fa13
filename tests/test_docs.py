"""The README and docs/ name only what exists: files, folders, modules and their names."""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
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
