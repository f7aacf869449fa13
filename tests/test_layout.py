"""The layout: imports run one way, from the kernel up (docs/architecture.md).

Every `import` in `boardq/` and `games/` is read with `ast`, those inside functions
and under `TYPE_CHECKING` too, and each must point to a module of its own layer or
one below it:

0. the kernel, the modules directly in `boardq/` (errors, settings, config, the game
   protocol, the run directory, the catalog);
1. `boardq_games` (the folder `games/`): the games, which import only the kernel;
2. `boardq.dqn`: the learning machinery;
3. `boardq.players`: agent files, search, opponents, matches' scores, the league;
   `boardq.records`: game records (JSON lines, SGF), beside it;
4. `boardq.training` (a run) and `boardq.play` (a person playing);
5. the top: `boardq.commands`, `boardq.benchmark`, the public `boardq` package.

Only the top may import `boardq_games` itself (`--env-arg`'s syntax); everything else finds
a game by name through `boardq.catalog`. No circle, in or across layers.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LAYERS = {
    "boardq.gtp.protocol": 0,
    "boardq.gtp.client": 3,
    "boardq.gtp.player": 3,
    "boardq_games": 1,
    "boardq.dqn": 2,
    "boardq.players": 3,
    "boardq.records": 3,
    "boardq.search": 3,
    "boardq.training": 4,
    "boardq.play": 4,
    "boardq.gtp": 4,
    "boardq.web": 4,
    "boardq.commands": 5,
    "boardq.benchmark": 5,
}
TOP = {"boardq", "boardq.__main__"}


PACKAGES = {"boardq": "boardq", "boardq_games": "games"}
"""Each import package and its folder (pyproject.toml's package-dir)."""


def modules() -> dict[str, Path]:
    found = {}
    for package, folder in PACKAGES.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = (package, *path.relative_to(ROOT / folder).with_suffix("").parts)
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = path
    return found


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The project modules `name` imports (a package's name when no module is named)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*up, base] if base else up)
            for alias in node.names:
                full = f"{base}.{alias.name}"
                out.add(full if full in known else base)
    return {m for m in out if m.split(".")[0] in PACKAGES and m in known}


def layer(name: str) -> int:
    if name in TOP:
        return 5
    for prefix, number in LAYERS.items():
        if name == prefix or name.startswith(prefix + "."):
            return number
    assert name.startswith("boardq.") and name.count(".") == 1, f"{name}: in no layer"
    return 0


def graph() -> dict[str, set[str]]:
    known = modules()
    return {name: imports(name, path, known) - {name} for name, path in known.items()}


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def test_the_walk_sees_the_imports_it_should():
    edges = graph()
    # A plain import, one inside a function, and a name imported from a package.
    assert "boardq.dqn.learner" in edges["boardq.dqn.learner_loop"]
    assert "boardq.training.remote" in edges["boardq.benchmark.stages"]
    assert "boardq.game" in edges["boardq_games.tictactoe"]
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_circle_anywhere():
    assert circles(graph()) == []


def test_imports_run_from_the_kernel_up():
    wrong = [
        f"{name} (layer {layer(name)}) imports {target} (layer {layer(target)})"
        for name, targets in graph().items()
        for target in sorted(targets)
        if layer(target) > layer(name)
    ]
    assert wrong == []


def test_only_the_top_imports_games():
    wrong = [
        f"{name} imports {target}"
        for name, targets in graph().items()
        if name.split(".")[0] == "boardq" and layer(name) < 5
        for target in targets
        if target.split(".")[0] == "boardq_games"
    ]
    assert wrong == []


def test_pyproject_lists_every_package_folder():
    """The packages are listed by hand (a folder maps to another name), so none is left out."""
    import tomllib

    setup = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert setup["package-dir"] == PACKAGES
    folders = {
        ".".join((package, *init.parent.relative_to(ROOT / folder).parts))
        for package, folder in PACKAGES.items()
        for init in (ROOT / folder).rglob("__init__.py")
    }
    assert sorted(setup["packages"]) == sorted(folders)
