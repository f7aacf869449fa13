"""A checkpoint's replay file: named arrays written in parts, read back whole (numpy only).

Layout::

    MAGIC                      16 bytes
    part, part, ...            each a block of one array's rows, compressed
    index                      JSON: the caller's header, each array's dtype and shape,
                               each part's array, first row, rows, codec, place, CRC-32
    index length, END          8 + 8 bytes

Parts are written as they come (`ReplayFileWriter.write`), so a ring of hundreds of MB
is written block by block without a second copy of it in memory; the index goes last,
when every part's place is known. Board planes and legal masks hold only 0 and 1: such
a part is bit-packed (eight cells a byte) before zlib, which is what makes a million
Connect Four transitions (185 MB in memory) small on disk.

The file is written under a temporary name and renamed when whole (then fsync'd, with
its directory), so a reader sees a whole file or none. A file cut short has no END;
a part with a changed byte fails its CRC: both are refused with `ReplayFileError`.
"""

from __future__ import annotations

import json
import os
import tempfile
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from boardq.errors import RunDirError

__all__ = ["ReplayFileError", "ReplayFileReader", "ReplayFileWriter"]

MAGIC = b"BOARDQ-REPLAY-1\n"
END = b"BQREPEND"
_TRAILER = 16  # the index's length (8 bytes, little-endian) and END
_LEVEL = 1  # zlib's fastest: bit-packed planes are mostly runs already (measured in docs)


class ReplayFileError(RunDirError):
    """A replay file that is missing, cut short, damaged or not a replay file."""


def _is_bits(rows: np.ndarray) -> bool:
    """Whether every value is 0 or 1 (bool, or an 8-bit integer array of planes)."""
    if rows.dtype == np.bool_:
        return True
    if rows.dtype not in (np.int8, np.uint8) or rows.size == 0:
        return False
    return bool(rows.min() >= 0 and rows.max() <= 1)


def _encode(rows: np.ndarray) -> tuple[str, bytes]:
    if _is_bits(rows):
        return "bits+zlib", zlib.compress(np.packbits(rows.reshape(-1).view(np.uint8)), _LEVEL)
    return "zlib", zlib.compress(np.ascontiguousarray(rows).tobytes(), _LEVEL)


def _decode(codec: str, data: bytes, dtype: np.dtype, shape: tuple[int, ...]) -> np.ndarray:
    raw = zlib.decompress(data)
    count = int(np.prod(shape))
    if codec == "bits+zlib":
        flat = np.unpackbits(np.frombuffer(raw, np.uint8), count=count)
        return flat.view(np.bool_ if dtype == np.bool_ else dtype).reshape(shape)
    if codec == "zlib":
        return np.frombuffer(raw, dtype, count=count).reshape(shape)
    raise ValueError(f"unknown codec {codec!r}")


class ReplayFileWriter:
    """Writes one replay file: `write` parts, then `close` with the header.

    Used as a context manager, a file not closed (an error, kill -9 aside) leaves
    nothing: its temporary file is removed.

    Args:
      path: where the whole file goes.
    """

    def __init__(self, path: str | Path):
        self.path = Path(path)
        prefix = f".{self.path.name}."
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=prefix, suffix=".tmp")
        self._tmp = Path(tmp)
        self._file = os.fdopen(fd, "wb")
        self._file.write(MAGIC)
        self._offset = len(MAGIC)
        self._arrays: dict[str, dict[str, Any]] = {}
        self._parts: list[list[Any]] = []
        self.raw_bytes = 0

    def write(self, name: str, rows: np.ndarray, start: int = 0, total: int | None = None) -> None:
        """Appends rows [start, start + len(rows)) of array `name` (of `total` rows)."""
        rows = np.asarray(rows)
        entry = self._arrays.setdefault(
            name,
            {
                "dtype": rows.dtype.str,
                "shape": [len(rows) if total is None else int(total), *rows.shape[1:]],
            },
        )
        if entry["dtype"] != rows.dtype.str or entry["shape"][1:] != list(rows.shape[1:]):
            raise ValueError(f"part of {name} does not match its first part")
        codec, data = _encode(rows)
        self._file.write(data)
        crc = zlib.crc32(data)
        self._parts.append([name, int(start), len(rows), codec, self._offset, len(data), crc])
        self._offset += len(data)
        self.raw_bytes += rows.nbytes

    def close(self, header: dict[str, Any]) -> int:
        """Writes the index and renames the file into place; returns its size in bytes."""
        index = json.dumps({"header": header, "arrays": self._arrays, "parts": self._parts}).encode(
            "utf-8"
        )
        self._file.write(index)
        self._file.write(len(index).to_bytes(8, "little") + END)
        self._file.flush()
        os.fsync(self._file.fileno())
        self._file.close()
        size = self._offset + len(index) + _TRAILER
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(self._tmp, 0o666 & ~umask)
        os.replace(self._tmp, self.path)
        _fsync_dir(self.path.parent)
        return size

    def abort(self) -> None:
        """Drops the unfinished file."""
        if not self._file.closed:
            self._file.close()
        self._tmp.unlink(missing_ok=True)

    def __enter__(self) -> ReplayFileWriter:
        return self

    def __exit__(self, kind, value, traceback) -> None:
        if kind is not None or self._tmp.exists():
            self.abort()


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class ReplayFileReader:
    """Reads a replay file's index at once and its parts on demand.

    Args:
      path: the file.

    Raises:
      ReplayFileError: missing, not a replay file, or cut short.
    """

    def __init__(self, path: str | Path):
        self.path = Path(path)
        try:
            self._file = open(self.path, "rb")  # noqa: SIM115 (closed by close())
        except FileNotFoundError:
            raise ReplayFileError(f"replay file {self.path} is missing") from None
        except OSError as e:
            raise ReplayFileError(f"cannot read replay file {self.path}: {e.strerror}") from None
        try:
            self._read_index()
        except BaseException:
            self._file.close()
            raise

    def _read_index(self) -> None:
        size = os.fstat(self._file.fileno()).st_size
        if size < len(MAGIC) + _TRAILER or self._file.read(len(MAGIC)) != MAGIC:
            raise ReplayFileError(f"{self.path} is not a boardq replay file")
        self._file.seek(size - _TRAILER)
        trailer = self._file.read(_TRAILER)
        length = int.from_bytes(trailer[:8], "little")
        if trailer[8:] != END or length > size - len(MAGIC) - _TRAILER:
            raise ReplayFileError(f"replay file {self.path} is cut short (no end)")
        self._file.seek(size - _TRAILER - length)
        try:
            index = json.loads(self._file.read(length))
            self.header: dict[str, Any] = dict(index["header"])
            self.arrays: dict[str, dict[str, Any]] = dict(index["arrays"])
            self._parts: list[list[Any]] = list(index["parts"])
        except (ValueError, KeyError, TypeError):
            raise ReplayFileError(f"replay file {self.path} has a damaged index") from None

    def shape(self, name: str) -> tuple[int, ...]:
        return tuple(self.arrays[name]["shape"])

    def parts(self, prefix: str = "") -> Iterator[tuple[str, int, np.ndarray]]:
        """(array name, first row, rows) of every part whose name starts with `prefix`.

        Raises:
          ReplayFileError: a part fails its CRC.
        """
        for name, start, count, codec, offset, length, crc in self._parts:
            if not name.startswith(prefix):
                continue
            self._file.seek(offset)
            data = self._file.read(length)
            if len(data) != length or zlib.crc32(data) != crc:
                raise ReplayFileError(
                    f"replay file {self.path} is damaged (part of {name} at row {start})"
                )
            info = self.arrays[name]
            yield name, start, _decode(codec, data, np.dtype(info["dtype"]),
                                       (count, *info["shape"][1:]))  # fmt: skip

    def array(self, name: str) -> np.ndarray:
        """One whole array (for the small ones)."""
        info = self.arrays[name]
        out = np.empty(info["shape"], np.dtype(info["dtype"]))
        for _, start, rows in self.parts(name):
            if _ == name:
                out[start : start + len(rows)] = rows
        return out

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> ReplayFileReader:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
