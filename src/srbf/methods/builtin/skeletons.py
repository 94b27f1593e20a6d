"""Skeletons: formulas whose free constants are slots, filled in by value or compiled to closures.

A *skeleton* is a formula tree in which every free constant is the slot ``SLOT`` (a ``Var`` named
``_c``, a name no catalog gives a variable). Slots are numbered in prefix order, left to right.
``substitute`` fills them with numbers; ``compile_values`` turns a skeleton once into closures over
the input rows and the constant vector, and ``compile_gradient`` into closures that also give the
partial derivatives by the constants, so the optimiser in ``fitting`` never re-walks the tree.
"""

from __future__ import annotations

import math
from typing import Callable, Sequence

import numpy as np

from srbf.expr import Call, Const, Expr, Num, Var
from srbf.expr.operators import CONSTANTS, OPERATORS

SLOT_NAME = "_c"
SLOT = Var(SLOT_NAME)
Node = Callable[[list, np.ndarray], "np.ndarray | float"]


def count_slots(expr: Expr) -> int:
    """How many free constants a skeleton has."""
    if isinstance(expr, Var):
        return 1 if expr.name == SLOT_NAME else 0
    if isinstance(expr, Call):
        return sum(count_slots(arg) for arg in expr.args)
    return 0


def substitute(skeleton: Expr, values: Sequence[float]) -> Expr:
    """The skeleton with its slots replaced by ``values`` (in prefix order).

    ``a + (-2.5)`` is written ``a - 2.5``, ``a - -2.5 * x`` as ``a + 2.5 * x`` and so on: negating
    a number and flipping the sign of the sum is exact in IEEE arithmetic, so the formula computes
    the same values and prints naturally.
    """
    it = iter(float(v) for v in values)
    out = _substitute(skeleton, it)
    if next(it, None) is not None:
        raise ValueError(f"got more values than the skeleton has constants ({count_slots(skeleton)})")
    return out


def _substitute(expr: Expr, values) -> Expr:
    if isinstance(expr, Var) and expr.name == SLOT_NAME:
        try:
            return Num(next(values))
        except StopIteration:
            raise ValueError("got fewer values than the skeleton has constants") from None
    if not isinstance(expr, Call):
        return expr
    args = tuple(_substitute(arg, values) for arg in expr.args)
    if expr.op in ("add", "sub"):
        negated = _negated(args[1])
        if negated is not None:
            return Call("sub" if expr.op == "add" else "add", (args[0], negated))
    return Call(expr.op, args)


def _negated(expr: Expr) -> Expr | None:
    """``-expr`` when it is a negative number, or a product/quotient led by one; else None."""
    if isinstance(expr, Num):
        if expr.value < 0 or math.copysign(1.0, expr.value) < 0:
            return Num(-expr.value)
        return None
    if isinstance(expr, Call) and expr.op in ("mul", "div"):
        left = _negated(expr.args[0])
        return None if left is None else Call(expr.op, (left, expr.args[1]))
    return None


def compile_values(skeleton: Expr, columns: dict[str, int]) -> tuple[Node | float, int]:
    """Closures computing the skeleton from the input rows and a constant vector ``theta``."""
    counter = [0]

    def build(expr: Expr) -> Node | float:
        if isinstance(expr, Num):
            return float(expr.value)
        if isinstance(expr, Const):
            return CONSTANTS[expr.name]
        if isinstance(expr, Var):
            if expr.name == SLOT_NAME:
                index = counter[0]
                counter[0] += 1
                return lambda rows, theta: theta[index]
            column = columns[expr.name]
            return lambda rows, theta: rows[column]
        kernel = OPERATORS[expr.op].kernel
        parts = [build(arg) for arg in expr.args]
        if all(isinstance(part, float) for part in parts):
            with np.errstate(all="ignore"):
                return float(kernel(*(np.float64(p) for p in parts)))
        if len(parts) == 1:
            (only,) = parts
            return lambda rows, theta: kernel(only(rows, theta))
        left, right = parts
        if isinstance(left, float):
            return lambda rows, theta: kernel(left, right(rows, theta))
        if isinstance(right, float):
            return lambda rows, theta: kernel(left(rows, theta), right)
        return lambda rows, theta: kernel(left(rows, theta), right(rows, theta))

    return build(skeleton), counter[0]


# Forward-mode derivatives: for a unary operator, d op(a) / da from (a, op(a)); for a binary one,
# the two partials from (a, b, op(a, b)). An operator missing here falls back to finite differences.
_LN10, _LN2 = math.log(10.0), math.log(2.0)
_UNARY_DERIVATIVES: dict[str, Callable] = {
    "neg": lambda a, v: -1.0,
    "abs": lambda a, v: np.sign(a),
    "sqrt": lambda a, v: 0.5 / v,
    "cbrt": lambda a, v: 1.0 / (3.0 * v * v),
    "exp": lambda a, v: v,
    "log": lambda a, v: 1.0 / a,
    "log10": lambda a, v: 1.0 / (a * _LN10),
    "log2": lambda a, v: 1.0 / (a * _LN2),
    "sin": lambda a, v: np.cos(a),
    "cos": lambda a, v: -np.sin(a),
    "tan": lambda a, v: 1.0 + v * v,
    "asin": lambda a, v: 1.0 / np.sqrt(1.0 - a * a),
    "acos": lambda a, v: -1.0 / np.sqrt(1.0 - a * a),
    "atan": lambda a, v: 1.0 / (1.0 + a * a),
    "sinh": lambda a, v: np.cosh(a),
    "cosh": lambda a, v: np.sinh(a),
    "tanh": lambda a, v: 1.0 - v * v,
    "asinh": lambda a, v: 1.0 / np.sqrt(a * a + 1.0),
    "acosh": lambda a, v: 1.0 / np.sqrt(a * a - 1.0),
    "atanh": lambda a, v: 1.0 / (1.0 - a * a),
    "inv": lambda a, v: -v * v,
    "square": lambda a, v: 2.0 * a,
    "cube": lambda a, v: 3.0 * a * a,
}
_BINARY_DERIVATIVES: dict[str, Callable] = {
    "add": lambda a, b, v: (1.0, 1.0),
    "sub": lambda a, b, v: (1.0, -1.0),
    "mul": lambda a, b, v: (b, a),
    "div": lambda a, b, v: (1.0 / b, -v / b),
    "pow": lambda a, b, v: (b * a ** (b - 1.0), v * np.log(a)),
    "max": lambda a, b, v: (np.greater_equal(a, b) * 1.0, np.less(a, b) * 1.0),
    "min": lambda a, b, v: (np.less_equal(a, b) * 1.0, np.greater(a, b) * 1.0),
    "atan2": lambda a, b, v: (b / (a * a + b * b), -a / (a * a + b * b)),
}


def has_derivatives(expr: Expr) -> bool:
    if not isinstance(expr, Call):
        return True
    table = _UNARY_DERIVATIVES if len(expr.args) == 1 else _BINARY_DERIVATIVES
    return expr.op in table and all(has_derivatives(arg) for arg in expr.args)


def compile_gradient(skeleton: Expr, columns: dict[str, int]):
    """Closures computing ``(value, {slot index: d value / d theta[index]})`` in one pass."""
    counter = [0]
    no_slots: dict = {}

    def build(expr: Expr):
        if isinstance(expr, Num):
            value = float(expr.value)
            return lambda rows, theta: (value, no_slots)
        if isinstance(expr, Const):
            value = CONSTANTS[expr.name]
            return lambda rows, theta: (value, no_slots)
        if isinstance(expr, Var):
            if expr.name == SLOT_NAME:
                index = counter[0]
                counter[0] += 1
                unit = {index: 1.0}
                return lambda rows, theta: (theta[index], unit)
            column = columns[expr.name]
            return lambda rows, theta: (rows[column], no_slots)
        kernel = OPERATORS[expr.op].kernel
        if len(expr.args) == 1:
            inner = build(expr.args[0])
            rule = _UNARY_DERIVATIVES[expr.op]

            def unary(rows, theta):
                a, da = inner(rows, theta)
                v = kernel(a)
                if not da:
                    return v, no_slots
                factor = rule(a, v)
                return v, {i: factor * g for i, g in da.items()}

            return unary
        left, right = build(expr.args[0]), build(expr.args[1])
        rule2 = _BINARY_DERIVATIVES[expr.op]

        def binary(rows, theta):
            a, da = left(rows, theta)
            b, db = right(rows, theta)
            v = kernel(a, b)
            if not da and not db:
                return v, no_slots
            fa, fb = rule2(a, b, v)
            out = {i: fa * g for i, g in da.items()}
            for i, g in db.items():
                out[i] = out[i] + fb * g if i in out else fb * g
            return v, out

        return binary

    return build(skeleton), counter[0]
