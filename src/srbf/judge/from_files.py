"""The judge on files: score a formula against the points of an .npz file (``srbf judge``).

``judge_from_files`` reads the arrays (``npz``), takes the positive variables and the target from
the shipped catalog entry the file was sampled from when it names one, and scores with ``Judge``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

import numpy as np

from srbf.judge.data import ARRAYS, JudgeInputError, positive_variables
from srbf.judge.npz import read_npz
from srbf.judge.scoring import Judge

__all__ = ["judge_from_files"]


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
