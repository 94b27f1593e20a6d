"""Numeric equivalence: do two formulas give the same values, to 1e-12, in 50-digit arithmetic?

This catches formulas that are equal but that the canonical form does not bring together
(``sin(x)**2 + cos(x)**2`` and ``1``), while an offset as small as 1e-8 on values of order one
is a miss. Both formulas are evaluated with mpmath at 50 significant digits, so rounding in
float64 cannot make equal formulas differ or hide a real difference.

The points: ``N_POINTS`` drawn uniformly (fixed seed) in the box spanned by the support points'
per-column minimum and maximum. Points where the truth is undefined (not a finite real number)
are skipped, since the box may leave the truth's domain; when fewer than ``MIN_POINTS`` remain,
support points themselves (which lie in the domain) are added. A prediction agrees at a point
when |p - t| <= 1e-12 * max(|t|, s), where s is the root mean square of the validation targets
(so a truth crossing zero does not demand the impossible there); it must agree at every point.
The truth's values are computed once per problem and only as far as needed: a prediction is
judged not equivalent at the first point where it differs, which is usually the first.

Operators follow srbf's NumPy evaluator where mpmath's principal values differ: ``cbrt`` is the
real cube root, and a result with an imaginary part is undefined (NaN in NumPy).
"""

from __future__ import annotations

import math
from typing import Callable, Sequence

import mpmath
import numpy as np

from srbf.expr.operators import CONSTANTS
from srbf.expr.tree import Const, Expr, Num, Var

RELATIVE_TOLERANCE = 1e-12
DIGITS = 50
N_POINTS = 24
MIN_POINTS = 12
SEED = 20240611

_CTX = mpmath.MPContext()
_CTX.dps = DIGITS


def _real(value):
    """``value`` as a finite real mpf, or None (complex with an imaginary part, inf, nan)."""
    if isinstance(value, _CTX.mpc):
        if value.imag != 0:
            return None
        value = value.real
    if not _CTX.isfinite(value):
        return None
    return value


def _pow(a, b):
    if a == 0 and b < 0:
        return None
    return _CTX.power(a, b)


def _div(a, b):
    return None if b == 0 else a / b


def _log_base(base):
    def log(a):
        return None if a <= 0 else _CTX.log(a, base) if base else _CTX.log(a)

    return log


def _sqrt(a):
    return None if a < 0 else _CTX.sqrt(a)


def _inv(a):
    return None if a == 0 else 1 / a


def _atan2(a, b):
    if a == 0 and b == 0:
        return _CTX.mpf(0) if _CTX.sign(b) >= 0 else _CTX.pi
    return _CTX.atan2(a, b)


_KERNELS: dict[str, Callable] = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": _div,
    "pow": _pow,
    "neg": lambda a: -a,
    "abs": abs,
    "sqrt": _sqrt,
    "cbrt": lambda a: _CTX.sign(a) * _CTX.cbrt(abs(a)),
    "exp": _CTX.exp,
    "log": _log_base(None),
    "log10": _log_base(10),
    "log2": _log_base(2),
    "sin": _CTX.sin,
    "cos": _CTX.cos,
    "tan": _CTX.tan,
    "asin": _CTX.asin,
    "acos": _CTX.acos,
    "atan": _CTX.atan,
    "sinh": _CTX.sinh,
    "cosh": _CTX.cosh,
    "tanh": _CTX.tanh,
    "asinh": _CTX.asinh,
    "acosh": _CTX.acosh,
    "atanh": _CTX.atanh,
    "inv": _inv,
    "square": lambda a: a * a,
    "cube": lambda a: a * a * a,
    "max": max,
    "min": min,
    "atan2": _atan2,
}


class _Undefined(Exception):
    pass


def _check(value):
    """A kernel's result as a finite real mpf, or _Undefined."""
    if value is None:
        raise _Undefined
    if type(value) is not _MPF:
        value = _real(value)
        if value is None:
            raise _Undefined
    elif not _CTX.isfinite(value):
        raise _Undefined
    return value


_MPF = type(_CTX.mpf(1))


def compile_mp_for(expr: Expr, variables: Sequence[str]) -> Callable[[tuple], object]:
    """Compile ``expr`` into nested closures over mpmath kernels (numbers converted once)."""
    columns = {name: i for i, name in enumerate(variables)}
    out: list = []
    stack: list[tuple[Expr, bool]] = [(expr, False)]
    while stack:
        node, done = stack.pop()
        if isinstance(node, Num):
            if not math.isfinite(node.value):
                out.append(_raiser)
            else:
                out.append(_constant(_CTX.mpf(node.value)))
        elif isinstance(node, Const):
            value = +_CTX.pi if node.name == "pi" else (_CTX.e + 0 if node.name == "e" else _CTX.mpf(CONSTANTS[node.name]))
            out.append(_constant(value))
        elif isinstance(node, Var):
            out.append(_variable(columns[node.name]))
        elif not done:
            stack.append((node, True))
            stack.extend((arg, False) for arg in reversed(node.args))
        else:
            n = len(node.args)
            parts = out[len(out) - n :]
            del out[len(out) - n :]
            out.append(_combine(node.op, parts))
    return out[0]


def _raiser(point):
    raise _Undefined


def _constant(value):
    return lambda point: value


def _variable(index: int):
    return lambda point: point[index]


def _combine(op: str, parts: list):
    kernel = _KERNELS.get(op)
    if kernel is None:
        if op == "add":
            return lambda point: _check(_CTX.fsum([part(point) for part in parts]))
        if op == "mul":
            return lambda point: _check(_CTX.fprod([part(point) for part in parts]))
        return _raiser
    if len(parts) == 1:
        (only,) = parts

        def unary(point):
            try:
                return _check(kernel(only(point)))
            except (ZeroDivisionError, ValueError, OverflowError, TypeError):
                raise _Undefined from None

        return unary
    left, right = parts

    def binary(point):
        try:
            return _check(kernel(left(point), right(point)))
        except (ZeroDivisionError, ValueError, OverflowError, TypeError):
            raise _Undefined from None

    return binary


def evaluate_mp(expr: Expr, point: dict[str, object]):
    """``expr`` at ``point`` (variable name -> number) in 50 digits, or None where undefined."""
    names = list(point)
    try:
        return compile_mp_for(expr, names)(tuple(_CTX.mpf(point[name]) for name in names))
    except (_Undefined, RecursionError):
        return None


class TruthPoints:
    """The points where a truth is compared, with its 50-digit values, computed as needed.

    ``scale`` is the typical size of the truth's values (the judge passes the root mean square
    of the validation targets): a prediction agrees at a point when
    |p - t| <= 1e-12 * max(|t|, scale).
    """

    def __init__(self, truth: Expr, variables: Sequence[str], X_support: np.ndarray, scale: float):
        X_support = np.asarray(X_support, dtype=np.float64)
        self.variables = tuple(variables)
        self._truth = compile_mp_for(truth, self.variables)
        self._scale = _CTX.mpf(abs(float(scale)))
        low, high = X_support.min(axis=0), X_support.max(axis=0)
        rng = np.random.default_rng(SEED)
        self._candidates = low + (high - low) * rng.random((N_POINTS, len(self.variables)))
        self._support = X_support  # visited in a fixed shuffled order, only if needed
        self._support_order: np.ndarray | None = None
        self._valid: list[tuple[tuple, object, object]] = []  # (point, truth value, tolerance)
        self._next_candidate = 0
        self._next_support = 0

    def _point(self, index: int) -> tuple | None:
        """The index-th valid comparison point, drawing more candidates as needed."""
        while len(self._valid) <= index:
            if self._next_candidate < len(self._candidates):
                row = self._candidates[self._next_candidate]
                self._next_candidate += 1
            elif len(self._valid) < MIN_POINTS and self._next_support < len(self._support):
                if self._support_order is None:
                    self._support_order = np.random.default_rng(SEED + 1).permutation(len(self._support))
                row = self._support[self._support_order[self._next_support]]
                self._next_support += 1
            else:
                return None
            point = tuple(_CTX.mpf(x) for x in row.tolist())
            try:
                value = self._truth(point)
            except (_Undefined, RecursionError):
                continue
            self._valid.append((point, value, RELATIVE_TOLERANCE * max(abs(value), self._scale)))
        return self._valid[index]

    def agrees(self, prediction: Expr) -> bool | None:
        """True when ``prediction`` matches the truth at every point; None when the truth is
        defined at none of them. Stops at the first point where they differ."""
        try:
            predicted = compile_mp_for(prediction, self.variables)
        except KeyError:  # a variable the problem does not have
            return False
        index = 0
        while (entry := self._point(index)) is not None:
            point, value, tolerance = entry
            try:
                if abs(predicted(point) - value) > tolerance:
                    return False
            except (_Undefined, RecursionError):
                return False
            index += 1
        return True if index else None


def numerically_equivalent(
    truth: Expr, prediction: Expr, variables: Sequence[str], X_support: np.ndarray, scale: float
) -> bool | None:
    """One-off form of :class:`TruthPoints` ``.agrees``."""
    return TruthPoints(truth, variables, X_support, scale).agrees(prediction)
