"""Constant fitting shared by the built-in methods: a skeleton's free constants by least squares.

A *skeleton* is a formula whose free constants are slots (``skeletons.SLOT``).
:class:`ConstantFitter` holds one problem's support points and fits skeletons to them:

- the skeleton is compiled once into closures over the input rows and the constant vector (no
  re-parsing or re-compilation per optimiser step);
- SciPy's ``least_squares`` (Levenberg-Marquardt, or trust-region reflective when there are fewer
  points than constants) minimises the residuals scaled so that the cost is FVU/2, so tolerances
  mean the same thing on every problem;
- NaN and inf predictions become large residuals, so a skeleton undefined on part of the domain is
  pushed back into its domain instead of stopping the optimiser;
- ``restarts`` starting points (default 3): the first is the caller's initial values (all ones
  when none are given), the others are drawn from a generator seeded by the fitter's seed and the
  skeleton's text, so a skeleton's fit is the same whichever method and order asked for it.
  Restarts stop early once the fit is exact (FVU at or below ``FVU_FLOOR``).

The returned formula has the fitted constants substituted, printed by ``srbf.expr.to_infix`` with
full precision (``repr`` floats), so parsing it back gives bit-identical constants.
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from srbf.expr import Call, Expr, Var, to_infix
from srbf.methods.builtin.skeletons import (
    SLOT,
    SLOT_NAME,
    Node,
    compile_gradient,
    compile_values,
    has_derivatives,
    substitute,
)

# Below one rounding unit of float64 the unexplained variance is rounding noise (see the metric
# definitions): fits at or below the floor count as exact and tie with each other.
FVU_FLOOR = 2.0**-52

# NaN and inf predictions become a fixed penalty residual for the whole of one optimisation:
# PENALTY_FACTOR times the largest finite residual at the start, and at least _MIN_PENALTY (a point
# adding 1e6 to the FVU). Relative to the start, so that a NaN point always costs more than the
# finite points did, yet the optimiser's predicted reductions stay meaningful (a fixed penalty far
# above the finite residuals stalls Levenberg-Marquardt at the edge of the skeleton's domain).
# Finite residuals are only capped at _CEILING, so that their squares cannot overflow.
_MIN_PENALTY = 1e3
_PENALTY_FACTOR = 10.0
_CEILING = 1e100


def fvu(y: np.ndarray, yhat: np.ndarray | float) -> float:
    """Fraction of variance unexplained; inf when any prediction is NaN or inf.

    For a constant target (zero variance) the mean squared error stands in, so candidates still
    rank by their error instead of all tying at infinity.
    """
    y = np.asarray(y, dtype=np.float64)
    yhat = np.broadcast_to(np.asarray(yhat, dtype=np.float64), y.shape)
    if not np.all(np.isfinite(yhat)):
        return math.inf
    with np.errstate(all="ignore"):
        sse = float(np.sum((y - yhat) ** 2))
    return sse / _denominator(y)


def _denominator(y: np.ndarray) -> float:
    denom = float(np.sum((y - np.mean(y)) ** 2))
    return denom if denom > 0 else float(max(len(y), 1))


def constant_value(expr: Expr) -> float:
    """The value of a variable-free, slot-free subtree (NaN/inf returned as such)."""
    root, k = compile_values(expr, {})
    if k or not isinstance(root, float):
        raise ValueError(f"not a constant subtree: {to_infix(expr)}")
    return root


@dataclass(frozen=True)
class FitOutcome:
    """One fitted skeleton: the formula with constants substituted, the constants, its support FVU."""

    skeleton: Expr
    expr: Expr
    constants: tuple[float, ...]
    fvu: float
    nfev: int = 0

    @property
    def text(self) -> str:
        return to_infix(self.expr)


class ConstantFitter:
    """Fits skeletons' constants to one problem's support points ``X`` (n, d) and ``y`` (n,)."""

    def __init__(
        self,
        X: np.ndarray,
        y: np.ndarray,
        variables: Sequence[str],
        *,
        restarts: int = 3,
        seed: int = 0,
        max_nfev: int | None = None,
        tol: float = 1e-10,
    ):
        X = np.asarray(X, dtype=np.float64)
        if X.ndim == 1:
            X = X[:, None]
        y = np.asarray(y, dtype=np.float64).ravel()
        if X.ndim != 2 or X.shape[0] != y.shape[0] or X.shape[1] != len(variables):
            raise ValueError(
                f"expected X of shape (n, {len(variables)}) and y of shape (n,), got {X.shape} and {y.shape}"
            )
        if not np.all(np.isfinite(y)):
            raise ValueError("y has NaN or infinite values: there is nothing to fit them to")
        if SLOT_NAME in variables:
            raise ValueError(f"a variable is named {SLOT_NAME!r}, the name reserved for free constants")
        if restarts < 1:
            raise ValueError(f"restarts must be at least 1, got {restarts!r}")
        self.variables = tuple(variables)
        self.columns = {name: i for i, name in enumerate(self.variables)}
        self.rows = [np.ascontiguousarray(X[:, i]) for i in range(X.shape[1])]
        self.y = y
        self.n = y.shape[0]
        self.scale = 1.0 / math.sqrt(_denominator(y))
        self.restarts = int(restarts)
        self.seed = int(seed)
        self.max_nfev = max_nfev
        self.tol = float(tol)

    def predict(self, skeleton: Expr, theta: Sequence[float] = ()) -> np.ndarray:
        """The skeleton's values on the support points for constants ``theta``."""
        root, _ = compile_values(skeleton, self.columns)
        return self._evaluate(root, np.asarray(theta, dtype=np.float64))

    def _evaluate(self, root: Node | float, theta: np.ndarray) -> np.ndarray:
        if isinstance(root, float):
            return np.full(self.n, root)
        with np.errstate(all="ignore"):
            out = root(self.rows, theta)
        out = np.asarray(out, dtype=np.float64)
        if out.shape != (self.n,):
            out = np.broadcast_to(out, (self.n,)).copy()
        return out

    def fit(self, skeleton: Expr, init: Sequence[float] | None = None) -> FitOutcome:
        """Fit the skeleton's constants; the best of ``restarts`` starts by support FVU."""
        root, k = compile_values(skeleton, self.columns)
        if k == 0:
            value = fvu(self.y, self._evaluate(root, np.empty(0)))
            return FitOutcome(skeleton, skeleton, (), value, 1)
        if init is not None and len(init) != k:
            raise ValueError(f"init has {len(init)} value(s) but the skeleton has {k} constant(s)")
        y, scale = self.y, self.scale

        def raw_residuals(theta: np.ndarray) -> np.ndarray:
            with np.errstate(all="ignore"):
                return (self._evaluate(root, theta) - y) * scale

        def residual_function(theta0: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
            start = np.abs(raw_residuals(theta0))
            finite = start[np.isfinite(start)]
            largest = float(finite.max()) if finite.size else 0.0
            penalty = min(max(_MIN_PENALTY, _PENALTY_FACTOR * largest), _CEILING)

            def residuals(theta: np.ndarray) -> np.ndarray:
                r = raw_residuals(theta)
                r[~np.isfinite(r)] = penalty
                return np.clip(r, -_CEILING, _CEILING, out=r)

            return residuals

        jacobian: Callable | str = "2-point"
        if has_derivatives(skeleton):
            gradient, _ = compile_gradient(skeleton, self.columns)
            n = self.n

            def jacobian(theta: np.ndarray) -> np.ndarray:
                with np.errstate(all="ignore"):
                    value, partials = gradient(self.rows, theta)
                    J = np.zeros((n, k))
                    for i, g in partials.items():
                        J[:, i] = g
                    J *= scale
                    value = np.broadcast_to(value, (n,))
                    flat = ~(np.abs((value - y) * scale) < _CEILING)  # NaN, inf or capped
                J[flat] = 0.0
                J[~np.isfinite(J)] = 0.0
                return J

        best_theta, best_fvu, nfev = None, math.inf, 0
        for theta0 in self._starts(skeleton, k, init):
            theta0 = np.where(np.isfinite(theta0), theta0, 1.0)
            theta, used = self._optimise(residual_function(theta0), jacobian, theta0, k)
            nfev += used
            value = fvu(y, self._evaluate(root, theta))
            if best_theta is None or value < best_fvu:
                best_theta, best_fvu = theta, value
            if best_fvu <= FVU_FLOOR:
                break
        constants = tuple(float(v) for v in best_theta)
        return FitOutcome(skeleton, substitute(skeleton, constants), constants, best_fvu, nfev)

    def _starts(self, skeleton: Expr, k: int, init: Sequence[float] | None):
        first = np.ones(k) if init is None else np.asarray(init, dtype=np.float64)
        yield first
        if self.restarts > 1:
            rng = np.random.default_rng([self.seed, zlib.crc32(to_infix(skeleton).encode())])
            for _ in range(self.restarts - 1):
                # log-uniform magnitudes in [0.1, 10] with random signs: covers the usual scales
                yield rng.choice([-1.0, 1.0], size=k) * 10.0 ** rng.uniform(-1.0, 1.0, size=k)

    def _optimise(self, residuals, jacobian, theta0: np.ndarray, k: int) -> tuple[np.ndarray, int]:
        """One least-squares run from ``theta0``, in units of the start's magnitudes.

        Optimising ``u = theta / |theta0|`` keeps the Jacobian's columns comparable when the
        constants span many orders of magnitude (``1e-34`` next to ``3e8`` in physics formulas).
        """
        unit = np.where(theta0 != 0, np.abs(theta0), 1.0)
        fun = lambda u: residuals(u * unit)  # noqa: E731
        jac = jacobian if isinstance(jacobian, str) else (lambda u: jacobian(u * unit) * unit)
        method = "lm" if self.n >= k else "trf"
        max_nfev = self.max_nfev if self.max_nfev is not None else 50 * (k + 1)
        try:
            result = _least_squares()(
                fun, theta0 / unit, jac=jac, method=method, max_nfev=max_nfev, ftol=self.tol, xtol=self.tol, gtol=self.tol
            )
        except (ValueError, FloatingPointError, np.linalg.LinAlgError):
            return theta0, 1
        theta = result.x * unit
        if not np.all(np.isfinite(theta)):
            theta = theta0
        return np.array(theta, dtype=np.float64), int(result.nfev)


def warm_up() -> None:
    """Run one tiny fit so SciPy's lazily loaded code is in memory before the first timed fit."""
    x = np.linspace(-1.0, 1.0, 16)
    fitter = ConstantFitter(x[:, None], 2.0 * x + 1.0, ["x"], restarts=1)
    fitter.fit(Call("add", (Call("mul", (SLOT, Var("x"))), SLOT)))


def _least_squares():
    """SciPy's ``least_squares``, imported on first use (by ``warm_up``, in a method's ``setup``):
    ``scipy.optimize`` takes about half a second to import, which ``linear`` never needs."""
    from scipy.optimize import least_squares

    return least_squares
