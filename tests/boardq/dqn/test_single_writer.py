"""One writer: only the learner's train step writes the networks being trained.

Read from the source: every call that writes TensorFlow variables or Keras weights
(`assign*`, `scatter*`, `set_weights`, `load_weights`, `apply_gradients`, a
checkpoint's `restore`) anywhere in boardq, its games and scripts is one of those
listed here, each with the reason it is not a second writer. A new one, in an actor
or anywhere else, fails until it is read and listed.
"""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
WRITES = frozenset(
    {
        "assign",
        "assign_add",
        "assign_sub",
        "scatter_add",
        "scatter_nd_update",
        "scatter_update",
        "set_weights",
        "load_weights",
        "load_own_variables",
        "apply_gradients",
        "restore",
    }
)
# (file, function, method) -> calls: why it is no second writer of the trained networks.
ALLOWED: dict[tuple[str, str, str], int] = {
    # The write path: Adam's update, the step counter, then the target's update.
    ("boardq/dqn/learner.py", "Learner._train_step_impl", "apply_gradients"): 1,
    ("boardq/dqn/learner.py", "Learner._train_step_impl", "assign_add"): 1,
    ("boardq/dqn/learner.py", "Learner._update_target", "assign"): 2,  # hard or soft
    # The learning rate is the optimizer's variable, read by the compiled step.
    ("boardq/dqn/learner.py", "Learner.anneal", "assign"): 1,
    # The target starts as a copy of the online network, before anything runs.
    ("boardq/dqn/models.py", "build_models", "set_weights"): 1,
    # A resumed run loads its checkpoint on the main thread, before any thread starts.
    ("boardq/training/run_state.py", "RunState.restore", "restore"): 1,
    ("boardq/training/trainer.py", "Trainer._build", "restore"): 1,
    # The run's counters saved beside the networks (not weights).
    ("boardq/training/run_state.py", "RunState.save", "assign"): 4,
    # The opponent pool's past snapshots (immutable copies, not the learner's weights).
    ("boardq/training/resume.py", "apply", "restore"): 1,
    # A played or exported agent's own network, built from its file.
    ("boardq/players/agent.py", "Agent.load", "set_weights"): 1,
    ("boardq/players/serving.py", "_network", "set_weights"): 1,
    # The benchmark's naive baseline trains networks of its own, as a plain reference.
    ("boardq/benchmark/naive.py", "naive_learning.step", "apply_gradients"): 1,
    ("boardq/benchmark/naive.py", "naive_learning.step", "assign"): 1,
}


def _writes(path: Path, root: Path = ROOT) -> Counter:
    """(file, enclosing function, method) of every weight-writing call in a module."""
    found: Counter = Counter()
    scope: list[str] = []
    name = path.relative_to(root).as_posix()

    class Visitor(ast.NodeVisitor):
        def _scoped(self, node):
            scope.append(node.name)
            self.generic_visit(node)
            scope.pop()

        visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _scoped

        def visit_Call(self, node):
            if isinstance(node.func, ast.Attribute) and node.func.attr in WRITES:
                found[(name, ".".join(scope), node.func.attr)] += 1
            self.generic_visit(node)

    Visitor().visit(ast.parse(path.read_text(encoding="utf-8")))
    return found


def test_only_the_learner_writes_the_networks_it_trains():
    found: Counter = Counter()
    for folder in ("boardq", "games", "scripts"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            found += _writes(path)
    unlisted = {key: n for key, n in found.items() if n > ALLOWED.get(key, 0)}
    assert not unlisted, f"weights written outside the learner's train step: {unlisted}"
    train_step = ("boardq/dqn/learner.py", "Learner._train_step_impl", "apply_gradients")
    assert found[train_step] == 1, "the train step writes through apply_gradients"


def test_the_scan_finds_a_write_where_it_is_added(tmp_path):
    module = tmp_path / "boardq" / "dqn" / "actor.py"
    module.parent.mkdir(parents=True)
    module.write_text(
        "class Actor:\n    def act(self, net, w):\n        net.set_weights(w)\n", encoding="utf-8"
    )
    assert _writes(module, tmp_path) == Counter(
        {("boardq/dqn/actor.py", "Actor.act", "set_weights"): 1}
    )
