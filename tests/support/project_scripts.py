"""The project's scripts (scripts/NAME.py) imported as modules, to test their functions."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]  # the checkout under test


def load_script(name: str) -> ModuleType:
    """scripts/NAME.py as a fresh module (its `main` is not run)."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
