"""Keeps TensorFlow's native start-up chatter off the terminal."""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from collections.abc import Iterator

__all__ = ["import_tensorflow_quietly", "quiet_native_logs"]


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


def import_tensorflow_quietly() -> None:
    """Imports tensorflow inside `quiet_native_logs`."""
    if "tensorflow" in sys.modules:
        return
    with quiet_native_logs():
        import tensorflow  # noqa: F401
