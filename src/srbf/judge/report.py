"""The judge from the command line: score a formula against an .npz file, print the metrics.

``judge_from_files`` is what ``srbf judge`` calls; ``format_metrics`` prints a result as a table
grouped like docs/metrics.md; ``jsonable`` makes a result safe for strict JSON (infinities as the
strings "inf" and "-inf").
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from srbf.judge.data import ARRAYS, JudgeInputError, positive_variables
from srbf.judge.npz import read_npz
from srbf.judge.scoring import COMPARISON_KEYS, FIT_KEYS, LENGTH_KEYS, SRBENCH_KEYS, Judge


def judge_from_files(
    truth: str,
    prediction: str,
    data_path: str | Path,
    variables: Sequence[str] | str | None = None,
    srbench: bool = False,
    positive: Sequence[str] | str | None = None,
    target: str | None = None,
    **options: Any,
) -> dict[str, Any]:
    """Score ``prediction`` against ``truth`` on the arrays of the .npz file ``data_path``.

    ``variables``: the column names (a list, or one comma-separated string); default: the file's
    ``variables`` array, else x0..x{d-1}. ``positive``: the variables never negative on the
    problem's domain (see ``Judge``); default: those the file's catalog entry declares so, when
    the file was written by ``srbf sample`` from a shipped catalog of the same version with the
    same variables, else none. ``target``: the output's name, so that ``target = formula`` is read
    as the formula (``y = ...`` always is); default: that catalog entry's target. Raises JudgeInputError (one line, starting with the
    path) for a file that is not a readable .npz archive, missing arrays, mismatched shapes or
    an unreadable truth. An unreadable prediction is not an input error: it is scored as a
    failure and ``failure_reason`` says why.
    """
    path = Path(data_path)
    arrays, names = read_npz(path)
    missing = [key for key in ARRAYS if key not in arrays]
    if missing:
        raise JudgeInputError(
            f"{path}: lacks the array(s) {', '.join(missing)} (has: {', '.join(sorted(names)) or 'none'}; "
            f"need {', '.join(ARRAYS)})"
        )
    if isinstance(variables, str):
        variables = [name.strip() for name in variables.split(",") if name.strip()]
    entry = _declared_entry(path, variables if variables is not None else arrays.get("variables"))
    if positive is None:
        positive = positive_variables(entry.variables) if entry is not None else ()
    if target is None and entry is not None:
        target = entry.target
    try:
        judge = Judge(truth, arrays, variables=variables, srbench=srbench, positive=positive, target=target, **options)
    except JudgeInputError as error:
        raise JudgeInputError(f"{path}: {error}") from None
    return judge.score(prediction)


def _declared_entry(path: Path, variables: Any) -> Any:
    """The shipped catalog entry the file names (``srbf sample`` records catalog, version and
    problem id), or None when it names none that matches its version and variables."""
    from srbf.catalogs.loader import list_catalogs, load_catalog

    try:
        with np.load(path, allow_pickle=False) as data:
            name, version, problem_id = (str(data[key]) for key in ("catalog", "catalog_version", "problem_id"))
        if variables is None or name not in list_catalogs():
            return None
        catalog = load_catalog(name)
        entry = catalog.entry(problem_id)
    except (KeyError, ValueError, OSError):
        return None
    if str(catalog.version) != version or list(entry.variable_names) != [str(v) for v in np.ravel(variables)]:
        return None
    return entry


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
