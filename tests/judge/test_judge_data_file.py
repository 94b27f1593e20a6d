"""`srbf judge --data FILE` with a file that is not a good .npz: one clear line naming the file, exit 2."""

import io
import os
import zipfile

import numpy as np
import pytest

from srbf.cli import main
from srbf.judge import JudgeInputError, judge_from_files

GOOD = {
    "X_support": np.arange(10.0).reshape(5, 2),
    "y_support": np.arange(5.0),
    "X_validation": np.arange(10.0).reshape(5, 2),
    "y_validation": np.arange(5.0),
}


def _npz(path, **arrays):
    np.savez(path, **arrays)
    return path


def _judge(capsys, data):
    code = main(["judge", "--truth", "x0 + x1", "--prediction", "x0 + x1", "--data", str(data)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _assert_user_error(capsys, data, *fragments):
    code, out, err = _judge(capsys, data)
    assert code == 2, (code, err)
    assert out == ""
    line = err.rstrip("\n")
    assert "\n" not in line and "Traceback" not in line, err
    assert line.startswith(f"srbf: error: {data}: "), line
    assert "pickled data when allow_pickle" not in line and "allow_pickle=" not in line, line
    for fragment in fragments:
        assert fragment in line, line
    return line


def _files(tmp_path):
    """name -> (path, fragments the message must hold), one for every way the file can be wrong."""
    csv = tmp_path / "data.csv"
    csv.write_text("x0,x1,y\n1,2,3\n4,5,9\n")
    text = tmp_path / "notes.txt"
    text.write_text("these are not arrays\n")
    empty = tmp_path / "empty.npz"
    empty.write_bytes(b"")
    directory = tmp_path / "folder.npz"
    directory.mkdir()
    npy = tmp_path / "one.npy"
    np.save(npy, np.ones(3))
    binary = tmp_path / "noise.bin"
    binary.write_bytes(bytes(range(256)))
    good = _npz(tmp_path / "good.npz", **GOOD)
    truncated = tmp_path / "truncated.npz"
    truncated.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    header_only = tmp_path / "header_only.npz"
    header_only.write_bytes(b"PK\x03\x04 and then nothing of a zip")
    corrupt = tmp_path / "corrupt.npz"
    np.savez_compressed(corrupt, **{**GOOD, "X_support": np.random.default_rng(0).uniform(size=(4000, 2))})
    damaged = bytearray(corrupt.read_bytes())
    damaged[200:400] = bytes(b ^ 0xFF for b in damaged[200:400])
    corrupt.write_bytes(bytes(damaged))
    bad_member = tmp_path / "bad_member.npz"
    with zipfile.ZipFile(bad_member, "w") as archive:
        archive.writestr("X_support.npy", b"\x93NUMPY\x01\x00garbage")
    raw_member = tmp_path / "raw_member.npz"
    with zipfile.ZipFile(raw_member, "w") as archive:
        archive.writestr("X_support", "not a .npy member")
        for key in ("y_support", "X_validation", "y_validation"):
            buffer = io.BytesIO()
            np.save(buffer, GOOD[key])
            archive.writestr(f"{key}.npy", buffer.getvalue())
    objects = _npz(tmp_path / "objects.npz", **{**GOOD, "y_support": np.array([{"a": 1}] * 5, dtype=object)})
    plain_zip = tmp_path / "plain.zip"
    with zipfile.ZipFile(plain_zip, "w") as archive:
        archive.writestr("readme.txt", "hello")
    expected = "expected an .npz archive of the arrays X_support, y_support, X_validation, y_validation"
    return {
        "csv": (csv, ["a text file", "not an .npz archive", expected, "srbf sample"]),
        "text": (text, ["a text file", "not an .npz archive", expected]),
        "empty": (empty, ["the file is empty", expected]),
        "directory": (directory, ["a directory", expected]),
        "missing": (tmp_path / "nowhere.npz", ["no such file", expected]),
        "npy": (npy, ["a .npy file", "not an .npz archive", expected]),
        "binary": (binary, ["not an .npz archive", expected]),
        "truncated": (truncated, ["damaged or truncated .npz archive"]),
        "header_only": (header_only, ["damaged or truncated .npz archive"]),
        "corrupt": (corrupt, ["damaged", "X_support"]),
        "bad_member": (bad_member, ["damaged .npz archive", "cannot read the array X_support"]),
        "raw_member": (raw_member, ["the member X_support is not a NumPy array"]),
        "objects": (objects, ["the array y_support holds Python objects", "must hold numbers"]),
        "plain_zip": (plain_zip, ["lacks the array(s) X_support, y_support, X_validation, y_validation", "has: readme.txt"]),
    }


CASES = [
    "csv", "text", "empty", "directory", "missing", "npy", "binary", "truncated", "header_only",
    "corrupt", "bad_member", "raw_member", "objects", "plain_zip",
]  # fmt: skip


@pytest.mark.parametrize("case", CASES)
def test_a_file_that_is_not_a_good_npz_is_one_clear_line(case, tmp_path, capsys):
    path, fragments = _files(tmp_path)[case]
    _assert_user_error(capsys, path, *fragments)
    with pytest.raises(JudgeInputError) as error:  # the library call says the same
        judge_from_files("x0 + x1", "x0 + x1", path)
    assert str(error.value).startswith(f"{path}: ") and "\n" not in str(error.value)


def test_a_special_file_is_not_read(tmp_path, capsys):
    fifo = tmp_path / "pipe.npz"
    try:
        os.mkfifo(fifo)  # opening it would wait for a writer
    except (AttributeError, OSError):
        pytest.skip("no named pipes here")
    _assert_user_error(capsys, fifo, "not a regular file")


def test_an_unreadable_file_says_so(tmp_path, capsys, monkeypatch):
    path = _npz(tmp_path / "locked.npz", **GOOD)
    real_open = open

    def refuse(file, *args, **kwargs):
        if str(file) == str(path):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr("builtins.open", refuse)
    _assert_user_error(capsys, path, "cannot open the file: Permission denied")


def test_a_good_file_still_scores(tmp_path, capsys):
    code, out, err = _judge(capsys, _npz(tmp_path / "good.npz", **GOOD))
    assert code == 0 and err == "" and "Fit to the data" in out


def test_extra_arrays_the_judge_does_not_use_are_not_loaded(tmp_path, capsys):
    path = _npz(tmp_path / "extra.npz", **GOOD, notes=np.array([{"a": 1}], dtype=object))
    code, out, err = _judge(capsys, path)
    assert code == 0 and err == "", err


@pytest.mark.parametrize(
    "change, fragments",
    [
        ({"X_validation": None, "y_validation": None},
         ["lacks the array(s) X_validation, y_validation", "has: X_support, y_support"]),
        ({"y_support": None}, ["lacks the array(s) y_support"]),
        ({"X_support": np.ones((5, 2, 2))}, ["X_support must have 2 dimensions", "(5, 2, 2)"]),
        ({"X_support": np.float64(1.0)}, ["X_support must have 2 dimensions", "shape ()"]),
        ({"y_support": np.ones((5, 2))}, ["y_support must have 1 dimension", "(5, 2)"]),
        ({"y_validation": np.float64(1.0)}, ["y_validation must have 1 dimension", "shape ()"]),
        ({"y_support": np.ones(4)}, ["X_support has 5 rows but y_support has 4"]),
        ({"X_validation": np.ones((5, 3))}, ["X_support has 2 columns but X_validation has 3"]),
        ({"X_support": np.ones((0, 2)), "y_support": np.ones(0)}, ["X_support and y_support hold no points"]),
        ({"X_support": np.array([["a", "b"]] * 5)}, ["X_support is not an array of numbers"]),
        ({"X_validation": np.ones((5, 2)) + 1j}, ["X_validation holds complex numbers"]),
        ({"y_validation": np.array([1.0, np.nan, 2.0, 3.0, 4.0])}, ["y_validation has 1 non-finite value(s)"]),
        ({"variables": np.array(["a", "b", "c"])}, ["3 variable name(s) in the data's variables array (a, b, c)"]),
    ],
)  # fmt: skip
def test_a_wrong_array_is_named(change, fragments, tmp_path, capsys):
    arrays = {**GOOD, **change}
    arrays = {key: value for key, value in arrays.items() if value is not None}
    path = _npz(tmp_path / "problem.npz", **arrays)
    _assert_user_error(capsys, path, *fragments)
