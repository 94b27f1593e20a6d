"""The judge from the command line: score a formula against an .npz file, print the metrics.

``judge_from_files`` is what ``srbf judge`` calls; ``format_metrics`` prints a result as a table
grouped like docs/metrics.md; ``jsonable`` makes a result safe for strict JSON (infinities as the
strings "inf" and "-inf").
"""

from __future__ import annotations

import math
import zipfile
import zlib
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from srbf.judge.data import ARRAYS, JudgeInputError
from srbf.judge.scoring import COMPARISON_KEYS, FIT_KEYS, LENGTH_KEYS, SRBENCH_KEYS, Judge


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


def _read_npz(path: Path) -> tuple[dict[str, np.ndarray], list[str]]:
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
            for key in (*ARRAYS, "variables"):
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


def judge_from_files(
    truth: str,
    prediction: str,
    data_path: str | Path,
    variables: Sequence[str] | str | None = None,
    srbench: bool = False,
    **options: Any,
) -> dict[str, Any]:
    """Score ``prediction`` against ``truth`` on the arrays of the .npz file ``data_path``.

    ``variables``: the column names (a list, or one comma-separated string); default: the file's
    ``variables`` array, else x0..x{d-1}. Raises JudgeInputError (one line, starting with the
    path) for a file that is not a readable .npz archive, missing arrays, mismatched shapes or
    an unreadable truth. An unreadable prediction is not an input error: it is scored as a
    failure and ``failure_reason`` says why.
    """
    path = Path(data_path)
    arrays, names = _read_npz(path)
    missing = [key for key in ARRAYS if key not in arrays]
    if missing:
        raise JudgeInputError(
            f"{path}: lacks the array(s) {', '.join(missing)} (has: {', '.join(sorted(names)) or 'none'}; "
            f"need {', '.join(ARRAYS)})"
        )
    if isinstance(variables, str):
        variables = [name.strip() for name in variables.split(",") if name.strip()]
    try:
        judge = Judge(truth, arrays, variables=variables, srbench=srbench, **options)
    except JudgeInputError as error:
        raise JudgeInputError(f"{path}: {error}") from None
    return judge.score(prediction)


def jsonable(metrics: Mapping[str, Any]) -> dict[str, Any]:
    """A copy with infinities as "inf"/"-inf" (and NumPy scalars as Python numbers)."""
    out: dict[str, Any] = {}
    for key, value in metrics.items():
        if isinstance(value, np.generic):
            value = value.item()
        if isinstance(value, float) and math.isinf(value):
            value = "inf" if value > 0 else "-inf"
        out[key] = value
    return out


def _format_value(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        if value == 0:
            return "0"
        if 1e-4 <= abs(value) < 1e6:
            return f"{value:.6g}"
        return f"{value:.4e}"
    return str(value)


_SECTIONS = (
    ("Fit to the data", FIT_KEYS + ("srbench_accuracy_solution",)),
    ("Comparison with the truth", COMPARISON_KEYS + ("srbench_symbolic_solution",)),
    ("Length", LENGTH_KEYS),
)


def format_metrics(metrics: Mapping[str, Any]) -> str:
    """A readable table of one result: sections, one metric per line, '-' for missing values."""
    shown = set()
    lines: list[str] = []
    width = max((len(key) for key in metrics), default=10)
    for title, keys in _SECTIONS:
        present = [key for key in keys if key in metrics]
        if not present:
            continue
        lines.append(title)
        for key in present:
            lines.append(f"  {key:<{width}}  {_format_value(metrics[key])}")
            shown.add(key)
    notes = [key for key in metrics if key not in shown and key not in SRBENCH_KEYS]
    extra = [(key, metrics[key]) for key in notes if metrics[key] not in (None, "", False) or key == "failure_reason"]
    if extra:
        lines.append("Notes")
        for key, value in extra:
            lines.append(f"  {key:<{width}}  {_format_value(value)}")
    return "\n".join(lines)
