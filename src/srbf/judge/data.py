"""The points a prediction is judged on: support and validation arrays, checked once.

``data`` may be a mapping (a dict, or an ``.npz`` file opened with ``numpy.load``) or any object
with the attributes ``X_support, y_support, X_validation, y_validation`` (such as a sampled
``Problem``); an optional ``variables`` entry names the columns.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Sequence

import numpy as np

from srbf.core import SrbfError

ARRAYS = ("X_support", "y_support", "X_validation", "y_validation")


class JudgeInputError(SrbfError, ValueError):
    """Input the judge cannot score against: the message is one line that says what is wrong."""


def _get(data: Any, key: str) -> Any:
    if hasattr(data, "keys") and hasattr(data, "__getitem__"):
        try:
            return data[key] if key in data else None
        except (KeyError, TypeError):
            return None
    return getattr(data, key, None)


@dataclass(frozen=True, eq=False)
class JudgeData:
    """Validated float64 arrays (X of shape (n, d), y of shape (n,)) and the column names."""

    X_support: np.ndarray
    y_support: np.ndarray
    X_validation: np.ndarray
    y_validation: np.ndarray
    variables: tuple[str, ...]

    @classmethod
    def from_any(cls, data: Any, variables: Sequence[str] | None = None) -> "JudgeData":
        """Read and check ``data``; every problem raises JudgeInputError naming the array."""
        if isinstance(data, JudgeData):
            if variables is None or tuple(variables) == data.variables:
                return data
            data = {**{k: getattr(data, k) for k in ARRAYS}}
        arrays: dict[str, np.ndarray] = {}
        supplied = {key: _get(data, key) for key in ARRAYS}
        missing = [key for key, value in supplied.items() if value is None]
        if missing:
            raise JudgeInputError(f"the data lacks the array(s) {', '.join(missing)} (need {', '.join(ARRAYS)})")
        for key in ARRAYS:
            try:
                value = np.asarray(supplied[key])
                if value.dtype.kind == "c":  # float64 would silently drop the imaginary part
                    raise JudgeInputError(f"{key} holds complex numbers; it must hold real numbers")
                # copied (so that the caller cannot change it under the judge), unless it is read-only
                # C-ordered float64 already, as a sampled Problem's arrays are: the copy would be the same
                if value.dtype != np.float64 or value.flags.writeable or not value.flags.c_contiguous:
                    value = np.array(value, dtype=np.float64)
                arrays[key] = value
            except (TypeError, ValueError) as error:
                if isinstance(error, JudgeInputError):
                    raise
                raise JudgeInputError(f"{key} is not an array of numbers: {error}") from None
        for part in ("support", "validation"):
            X, y = arrays[f"X_{part}"], arrays[f"y_{part}"]
            if X.ndim == 1:
                X = X[:, None]
                arrays[f"X_{part}"] = X
            if X.ndim != 2:
                raise JudgeInputError(f"X_{part} must have 2 dimensions (points x variables), got shape {X.shape}")
            if y.ndim != 1:
                raise JudgeInputError(f"y_{part} must have 1 dimension, got shape {y.shape}")
            if X.shape[0] != y.shape[0]:
                raise JudgeInputError(f"X_{part} has {X.shape[0]} rows but y_{part} has {y.shape[0]} values")
            if y.shape[0] == 0:
                raise JudgeInputError(f"X_{part} and y_{part} hold no points (the {part} set is empty)")
            for name, array in ((f"y_{part}", y), (f"X_{part}", X)):
                finite = np.isfinite(array)
                if not np.logical_and.reduce(finite, axis=None):  # the ufunc's own reduction: no wrapper
                    raise JudgeInputError(f"{name} has {int(np.count_nonzero(~finite))} non-finite value(s)")
        d = arrays["X_support"].shape[1]
        if arrays["X_validation"].shape[1] != d:
            raise JudgeInputError(
                f"X_support has {d} columns but X_validation has {arrays['X_validation'].shape[1]}"
            )
        given = "given"
        if variables is None:
            stored = _get(data, "variables")
            if stored is not None:
                variables = [str(v) for v in np.ravel(np.asarray(stored))]
                given = "in the data's variables array"
        if variables is None:
            variables = [f"x{i}" for i in range(d)]
        variables = tuple(str(v).strip() for v in variables)
        if len(variables) != d:
            raise JudgeInputError(
                f"{len(variables)} variable name(s) {given} ({', '.join(variables)}) for {d} column(s) of X_support"
            )
        if len(set(variables)) != len(variables) or not all(variables):
            raise JudgeInputError(f"variable names must be distinct and non-empty, got {', '.join(variables)}")
        for array in arrays.values():
            array.setflags(write=False)
        return cls(variables=variables, **arrays)


def positive_variables(specs: Iterable[Any]) -> tuple[str, ...]:
    """The names of the variables a catalog entry declares never negative (its ``VariableSpec``s):
    drawn as their range gives them (sign ``range``) from a range starting at 0 or above. Out-of-range
    points keep that side of zero (``srbf.catalogs.draws.ood_range``), so the rules hold there too."""
    return tuple(spec.name for spec in specs if spec.sign == "range" and spec.low >= 0)
