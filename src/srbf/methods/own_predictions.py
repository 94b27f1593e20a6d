"""A method's own predictions against its formula: does the string srbf scores say what it fitted?

A method may return ``support_predictions``, what its fitted estimator predicts on the support
points, or on their first rows (the SRBench bridge always does: ``est.predict``, at most 10,000
rows, so that the list stays far below the internals' size limit). srbf parses the returned formula,
evaluates it on the same points and compares. The list itself is not kept (it is the size of the
support); a disagreement is kept on the prediction as ``internals["model_string_mismatch"]``:
how many points differ, the largest relative difference and the first point that differs. A
mismatch is a fact about the method's printout (rounded constants, protected operators, names
read wrongly), not a failure: the formula is still scored as it is.

Two values agree when ``|f - p| <= RTOL * max(|p|, scale)``, where ``scale`` is the root mean
square of the predictions (so that points where the prediction crosses zero are not judged by a
relative difference of nothing); two non-finite values agree when both are non-finite.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from srbf.core import FitResult
from srbf.expr import ParseError, compile_expr, parse

PREDICTIONS_KEY = "support_predictions"
MISMATCH_KEY = "model_string_mismatch"
RTOL = 1e-6


def check_own_predictions(result: FitResult, X: np.ndarray, variables: tuple[str, ...]) -> FitResult:
    """``result`` with its ``support_predictions`` replaced by a mismatch record, if any."""
    predicted = result.internals.pop(PREDICTIONS_KEY, None)
    if predicted is None or result.status != "ok" or not result.expression:
        return result
    mismatch = compare(result.expression, predicted, X, variables)
    if mismatch is not None:
        result.internals[MISMATCH_KEY] = mismatch
    return result


def compare(expression: str, predicted: Any, X: np.ndarray, variables: tuple[str, ...]) -> dict | None:
    """None when the formula agrees with ``predicted`` on every row of ``X``, else what differs."""
    try:
        p = np.array([np.nan if v is None else v for v in predicted], dtype=float)
    except (TypeError, ValueError):
        return {"reason": "support_predictions is not a list of numbers"}
    if p.ndim != 1 or p.size > len(X):
        return {"reason": f"{p.size} support_predictions for {len(X)} support points"}
    X = X[: p.size]  # a method may send the first rows only (the SRBench bridge: MAX_CHECKED)
    try:
        with np.errstate(all="ignore"):
            f = np.broadcast_to(compile_expr(parse(expression, variables), variables)(X), p.shape)
    except (ParseError, ValueError, TypeError) as exc:
        return {"reason": f"the formula does not evaluate: {exc}"}
    finite_p, finite_f = np.isfinite(p), np.isfinite(f)
    both = finite_p & finite_f
    scale = float(np.sqrt(np.mean(p[finite_p] ** 2))) if finite_p.any() else 0.0
    with np.errstate(all="ignore"):
        relative = np.abs(f - p) / np.maximum(np.abs(p), scale if scale > 0 else 1.0)
    bad = (finite_p != finite_f) | (both & (relative > RTOL))
    if not bad.any():
        return None
    first = int(np.argmax(bad))
    return {
        "points": int(bad.sum()),
        "of": int(len(p)),
        "max_relative": float(np.max(relative[both & bad])) if (both & bad).any() else None,
        "first": {"index": first, "formula": _plain(f[first]), "predict": _plain(p[first])},
    }


def _plain(value: float) -> float | str:
    return float(value) if np.isfinite(value) else str(float(value))
