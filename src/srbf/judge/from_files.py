"""The judge on files: score a formula against the points of an .npz file (``srbf judge``).

``judge_from_files`` reads the arrays (``npz``) and scores with ``Judge``, which takes the positive
variables and the target from the shipped catalog entry the file was sampled from when it names
one (``catalog_entry``), as ``srbf.judge.score()`` does with a sampled ``Problem``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from srbf.judge.data import ARRAYS, JudgeInputError
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
    try:
        judge = Judge(truth, arrays, variables=variables, srbench=srbench, positive=positive, target=target, **options)
    except JudgeInputError as error:
        raise JudgeInputError(f"{path}: {error}") from None
    return judge.score(prediction)
