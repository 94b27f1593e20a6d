"""Linear: ordinary least squares on the inputs plus an intercept. The floor of the benchmark.

``y ~ w0*x0 + ... + w_{d-1}*x_{d-1} + b`` by ``numpy.linalg.lstsq`` (minimum-norm when the
columns are collinear or there are fewer points than coefficients). Any SR method should beat it
on a nonlinear problem; a method that does not is broken or starved. ``budget`` is unused.

Worker protocol: ``fit(X, y, *, budget, seed, variables, options, report) -> dict``.
"""

from __future__ import annotations

import time
from typing import Any, Callable, Sequence

import numpy as np

from srbf.expr import Call, Expr, Num, Var, to_infix
from srbf.methods.builtin.fitting import fvu
from srbf.methods.builtin.search import check_options

NAME = "linear"
DEFAULTS: dict[str, Any] = {
    "intercept": True,  # fit the constant term b
}


def fit(
    X: np.ndarray,
    y: np.ndarray,
    *,
    budget: float | None = None,
    seed: int = 0,
    variables: Sequence[str],
    options: dict[str, Any] | None = None,
    report: Callable[[str], Any] | None = None,
) -> dict[str, Any]:
    """Least squares on the columns of ``X`` (plus an intercept); deterministic, ``seed`` unused."""
    started = time.perf_counter()
    opts = check_options(NAME, options, DEFAULTS)
    X = np.asarray(X, dtype=np.float64)
    if X.ndim == 1:
        X = X[:, None]
    y = np.asarray(y, dtype=np.float64).ravel()
    if X.shape != (y.shape[0], len(variables)):
        raise ValueError(f"{NAME}: expected X of shape ({y.shape[0]}, {len(variables)}), got {X.shape}")
    intercept = bool(opts["intercept"])
    design = np.column_stack([X, np.ones(len(y))]) if intercept else X
    if design.shape[1] == 0:
        weights = np.zeros(0)
    else:
        weights, *_ = np.linalg.lstsq(design, y, rcond=None)
    coefficients = [float(w) for w in weights[: len(variables)]]
    offset = float(weights[-1]) if intercept else None
    expr = linear_formula(variables, coefficients, offset)
    text = to_infix(expr)
    if report is not None:
        report(text)
    value = fvu(y, design @ weights if design.shape[1] else np.zeros_like(y))
    return {
        "expression": text,
        "constants": coefficients + ([offset] if intercept else []),
        "support_fvu": value if np.isfinite(value) else None,
        "fit_seconds": time.perf_counter() - started,
    }


def linear_formula(variables: Sequence[str], coefficients: Sequence[float], offset: float | None) -> Expr:
    """``w0 * x0 + w1 * x1 - ... + b``, negative terms written with ``-`` (exact in IEEE arithmetic)."""
    expr: Expr | None = None
    for name, weight in zip(variables, coefficients):
        negative = weight < 0 or (weight == 0 and np.signbit(weight))
        term = Call("mul", (Num(abs(weight) if expr is not None else weight), Var(name)))
        if expr is None:
            expr = term
        else:
            expr = Call("sub" if negative else "add", (expr, term))
    if offset is not None:
        if expr is None:
            expr = Num(offset)
        else:
            negative = offset < 0 or (offset == 0 and np.signbit(offset))
            expr = Call("sub" if negative else "add", (expr, Num(abs(offset))))
    return expr if expr is not None else Num(0.0)
