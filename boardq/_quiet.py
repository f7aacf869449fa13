"""Keeps TensorFlow's native start-up chatter off the terminal.

TensorFlow's native code logs CUDA probing, oneDNN and CPU-feature notices while it
is imported, before any Python setting applies, and a failed `cuInit` on its first
op. `import boardq` installs `quiet_tensorflow_imports`: the first import of
tensorflow, by boardq or by the user's own script, runs with file descriptor 2
captured (and shown after all if the import fails), and TensorFlow's own log level
defaults to errors only (`TF_CPP_MIN_LOG_LEVEL=3`; set it yourself to see more).
"""

from __future__ import annotations

import contextlib
import importlib.abc
import importlib.machinery
import os
import sys
import tempfile
from collections.abc import Iterator

__all__ = ["import_tensorflow_quietly", "quiet_native_logs", "quiet_tensorflow_imports"]


@contextlib.contextmanager
def quiet_native_logs(expected: tuple[type[BaseException], ...] = ()) -> Iterator[None]:
    """Sends file descriptor 2 to a temporary file for the duration of the block.

    TensorFlow's native code logs CUDA probing and oneDNN notices before any Python
    setting applies. If the block fails with anything but an `expected` exception
    (or Ctrl-C), what was written is shown after all.
    """
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as log:
        os.dup2(log.fileno(), 2)
        try:
            yield
        except (*expected, KeyboardInterrupt):
            raise
        except BaseException:
            os.dup2(saved, 2)
            log.seek(0)
            sys.stderr.write(log.read().decode("utf-8", "replace"))
            raise
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)


class _QuietLoader(importlib.abc.Loader):
    """Runs a module's top-level code with file descriptor 2 captured."""

    def __init__(self, loader: importlib.abc.Loader):
        self._loader = loader

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module) -> None:
        with quiet_native_logs():
            self._loader.exec_module(module)


class _QuietTensorFlow(importlib.abc.MetaPathFinder):
    """Finds `tensorflow` as the path finder does and wraps its loader (once)."""

    def find_spec(self, name, path, target=None):
        if name != "tensorflow":
            return None
        sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is not None and spec.loader is not None:
            spec.loader = _QuietLoader(spec.loader)
        return spec


def quiet_tensorflow_imports() -> None:
    """Makes the first import of tensorflow in this process quiet (see the module)."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    if "tensorflow" in sys.modules or any(isinstance(f, _QuietTensorFlow) for f in sys.meta_path):
        return
    sys.meta_path.insert(0, _QuietTensorFlow())


def import_tensorflow_quietly() -> None:
    """Imports tensorflow now, quietly."""
    quiet_tensorflow_imports()
    import tensorflow  # noqa: F401
