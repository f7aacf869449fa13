"""The replay file: round trips, compact planes, and files cut short or damaged."""

from __future__ import annotations

import os

import numpy as np
import pytest

from boardq.dqn.replay_file import END, MAGIC, ReplayFileError, ReplayFileReader, ReplayFileWriter
from boardq.errors import RunDirError


def _write(path, arrays, parts=2, header=None):
    with ReplayFileWriter(path) as out:
        for name, array in arrays.items():
            for rows in np.array_split(np.arange(len(array)), parts):
                if len(rows):
                    out.write(name, array[rows], int(rows[0]), len(array))
        return out.close(header or {"game": "g"})


def _arrays(n=1000, seed=0):
    rng = np.random.default_rng(seed)
    return {
        "obs": rng.integers(0, 2, (n, 6, 7, 2)).astype(np.int8),  # 0/1 planes: bit-packed
        "signed": rng.integers(-3, 3, (n, 4)).astype(np.int8),  # not 0/1: as it is
        "mask": rng.random((n, 7)) < 0.5,
        "reward": rng.standard_normal(n).astype(np.float32),
        "action": rng.integers(0, 7, n).astype(np.int16),
    }


def test_arrays_come_back_whole_in_their_dtypes_and_shapes(tmp_path):
    arrays = _arrays()
    _write(tmp_path / "r.replay", arrays, parts=3, header={"game": "connect_four", "n": 1})
    with ReplayFileReader(tmp_path / "r.replay") as reader:
        assert reader.header == {"game": "connect_four", "n": 1}
        for name, array in arrays.items():
            back = reader.array(name)
            assert back.dtype == array.dtype and back.shape == array.shape
            np.testing.assert_array_equal(back, array)
        starts = [start for name, start, _ in reader.parts("obs")]
        assert starts == [0, 334, 667]
    assert [p.name for p in tmp_path.iterdir()] == ["r.replay"]  # no temporary file left


def test_board_planes_take_about_a_bit_a_cell(tmp_path):
    n = 20_000
    obs = np.random.default_rng(1).integers(0, 2, (n, 6, 7, 2)).astype(np.int8)
    size = _write(tmp_path / "r.replay", {"obs": obs})
    # Random bits do not compress further: an eighth of the bytes, and the index.
    assert size < obs.nbytes / 8 * 1.02
    assert size == (tmp_path / "r.replay").stat().st_size


@pytest.mark.parametrize("keep", [0.0, 0.3, 0.9, 0.9999])
def test_a_file_cut_short_is_refused(tmp_path, keep):
    path = tmp_path / "r.replay"
    _write(path, _arrays())
    data = path.read_bytes()
    path.write_bytes(data[: int(len(data) * keep)])
    with pytest.raises(ReplayFileError, match="cut short|not a boardq replay file"):
        ReplayFileReader(path)


def test_an_index_length_reaching_into_the_magic_is_refused_as_cut_short(tmp_path):
    path = tmp_path / "r.replay"
    # 32 bytes: the trailer says the index is the 16 bytes before it, which are the magic.
    path.write_bytes(MAGIC + (16).to_bytes(8, "little") + END)
    with pytest.raises(ReplayFileError, match="cut short"):
        ReplayFileReader(path)


def test_a_changed_byte_is_refused_when_its_part_is_read(tmp_path):
    path = tmp_path / "r.replay"
    _write(path, _arrays())
    data = bytearray(path.read_bytes())
    data[100] ^= 0xFF  # inside the first part
    path.write_bytes(bytes(data))
    reader = ReplayFileReader(path)
    with pytest.raises(ReplayFileError, match="damaged .part of obs at row 0"):
        reader.array("obs")
    reader.close()


def test_missing_and_foreign_files_are_refused_as_run_directory_errors(tmp_path):
    with pytest.raises(RunDirError, match="is missing"):
        ReplayFileReader(tmp_path / "none.replay")
    (tmp_path / "x.replay").write_bytes(b"PK\x03\x04" + bytes(100))
    with pytest.raises(ReplayFileError, match="not a boardq replay file"):
        ReplayFileReader(tmp_path / "x.replay")


def test_an_unfinished_file_is_hidden_and_named_after_its_file(tmp_path):
    # The checkpoint sweep reads a leftover .ckpt-N.replay.*.tmp as checkpoint N's.
    with ReplayFileWriter(tmp_path / "r.replay") as out:
        out.write("obs", np.zeros((10, 2), np.int8))
        (unfinished,) = tmp_path.iterdir()
        assert unfinished.name.startswith(".r.replay.") and unfinished.name.endswith(".tmp")
        out.close({"game": "g"})
    assert [p.name for p in tmp_path.iterdir()] == ["r.replay"]


def test_a_write_that_fails_leaves_no_file(tmp_path):
    with pytest.raises(RuntimeError), ReplayFileWriter(tmp_path / "r.replay") as out:
        out.write("obs", np.zeros((10, 2), np.int8))
        raise RuntimeError("disk gone")
    assert list(tmp_path.iterdir()) == []


def test_a_written_file_has_the_mode_of_any_new_file(tmp_path):
    umask = os.umask(0o022)
    try:
        _write(tmp_path / "r.replay", {"obs": np.zeros((4, 2), np.int8)})
    finally:
        os.umask(umask)
    assert (tmp_path / "r.replay").stat().st_mode & 0o777 == 0o644  # not mkstemp's 0o600


def test_an_error_after_close_is_raised_as_it_is_and_the_file_stays(tmp_path):
    obs = np.arange(10, dtype=np.int16)
    with (
        pytest.raises(RuntimeError, match="after the file"),
        ReplayFileWriter(tmp_path / "r.replay") as out,
    ):
        out.write("obs", obs)
        out.close({"game": "g"})
        raise RuntimeError("after the file")
    with ReplayFileReader(tmp_path / "r.replay") as reader:
        np.testing.assert_array_equal(reader.array("obs"), obs)
