"""Reading the judge's points from an .npz file, with one clear line for every way a file can be
wrong: missing, not a file, empty, a .npy or a text file or any other non-archive, a damaged or
truncated archive, an array of Python objects (pickled data, which is never loaded)."""

from __future__ import annotations

import zipfile
import zlib
from pathlib import Path

import numpy as np

from srbf.judge.data import ARRAYS, JudgeInputError

__all__ = ["read_npz"]

_EXPECTED = f"expected an .npz archive of the arrays {', '.join(ARRAYS)} (write one with `srbf sample`)"
_ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")  # a zip archive (the second: one with no members)
_NPY_MAGIC = b"\x93NUMPY"


# what reading a damaged archive or member raises (zipfile, zlib, NumPy's .npy reader)
_READ_ERRORS = (OSError, ValueError, EOFError, zipfile.BadZipFile, zlib.error, NotImplementedError)


def _one_line(error: BaseException) -> str:
    return " ".join(str(error).split()) or type(error).__name__


def _not_npz(path: Path, what: str) -> JudgeInputError:
    return JudgeInputError(f"{path}: {what}; {_EXPECTED}")


def _looks_like_text(head: bytes) -> bool:
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError:  # may cut a character at the end of the head: try without it
        try:
            text = head[:-3].decode("utf-8")
        except UnicodeDecodeError:
            return False
    return "\x00" not in text


def read_npz(path: Path) -> tuple[dict[str, np.ndarray], list[str]]:
    """The judge's arrays (the four and ``variables``, when present) and every member name.

    Every way the file can be wrong raises one line that starts with the path and says what is
    wrong: missing, not a file, empty, not an .npz archive (a .npy, a CSV, any other file), a
    damaged or truncated archive, an array of Python objects (pickled data, never loaded).
    """
    if not path.exists():
        raise _not_npz(path, "no such file")
    if path.is_dir():
        raise _not_npz(path, "a directory, not a file")
    if not path.is_file():
        raise _not_npz(path, "not a regular file")
    try:
        with open(path, "rb") as handle:
            head = handle.read(512)
    except OSError as error:
        raise JudgeInputError(f"{path}: cannot open the file: {error.strerror or error}") from None
    if not head:
        raise _not_npz(path, "the file is empty")
    if head.startswith(_NPY_MAGIC):
        raise _not_npz(path, "a .npy file (one array), not an .npz archive")
    if not head.startswith(_ZIP_MAGIC):
        if _looks_like_text(head):
            raise _not_npz(path, "a text file (a CSV or the like), not an .npz archive")
        raise _not_npz(path, "not an .npz archive (an .npz is a zip file; this file is not one)")
    arrays: dict[str, np.ndarray] = {}
    try:
        with np.load(path, allow_pickle=False) as data:
            names = list(data.files)
            for key in (*ARRAYS, "variables", "catalog", "catalog_version", "problem_id"):
                if key not in names:
                    continue
                try:
                    value = data[key]
                except _READ_ERRORS as error:
                    if isinstance(error, ValueError) and "pickle" in str(error).lower():
                        raise JudgeInputError(
                            f"{path}: the array {key} holds Python objects (pickled data, which the judge "
                            "never loads); it must hold numbers"
                        ) from None
                    raise JudgeInputError(
                        f"{path}: a damaged .npz archive: cannot read the array {key} ({_one_line(error)})"
                    ) from None
                if not isinstance(value, np.ndarray):  # a member that is not a .npy file
                    raise JudgeInputError(f"{path}: the member {key} is not a NumPy array (.npy)")
                arrays[key] = np.array(value)
    except JudgeInputError:
        raise
    except _READ_ERRORS as error:
        raise JudgeInputError(f"{path}: a damaged or truncated .npz archive ({_one_line(error)})") from None
    return arrays, names
