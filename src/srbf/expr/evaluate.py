"""Compile a tree once into a vectorised NumPy function, reusable across point sets.

The compiled function is a tree of closures over NumPy kernels (no code generation, no ``eval``).
Constant subtrees are folded at compile time. Evaluation silences floating-point warnings and
returns NaN and inf as they arise, so a divergent formula is visible in its values, not the log.
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from srbf.expr.operators import CONSTANTS, OPERATORS
from srbf.expr.tree import Call, Const, Expr, Num, Var, variables_of

_Node = Callable[[np.ndarray], "np.ndarray | float"]


class CompiledFormula:
    """``f(X)`` for an (n, d) float64 array whose columns follow ``variables``; returns shape (n,)."""

    def __init__(self, expr: Expr, variables: Sequence[str]):
        self.expr = expr
        self.variables = tuple(variables)
        columns = {name: i for i, name in enumerate(self.variables)}
        missing = sorted(variables_of(expr) - columns.keys())
        if missing:
            raise ValueError(
                f"formula uses variable(s) {', '.join(missing)} that are not among the input columns "
                f"({', '.join(self.variables) or 'none'})"
            )
        self._root = _build(expr, columns)

    def __call__(self, X: np.ndarray) -> np.ndarray:
        X = np.asarray(X, dtype=np.float64)
        if X.ndim == 1 and len(self.variables) == 1:
            X = X[:, None]
        if X.ndim != 2 or X.shape[1] != len(self.variables):
            raise ValueError(
                f"expected an array of shape (n, {len(self.variables)}) for variables "
                f"{', '.join(self.variables)}, got shape {X.shape}"
            )
        rows = np.ascontiguousarray(X.T)  # one contiguous row per variable: fast kernels
        if isinstance(self._root, float):
            return np.full(X.shape[0], self._root)
        with np.errstate(all="ignore"):
            out = self._root(rows)
        out = np.asarray(out, dtype=np.float64)
        if out.shape != (X.shape[0],):
            out = np.full(X.shape[0], float(out))
        return out


def compile_expr(expr: Expr, variables: Sequence[str]) -> CompiledFormula:
    """Compile ``expr`` for inputs whose columns are named ``variables`` (in order)."""
    return CompiledFormula(expr, variables)


def _build(expr: Expr, columns: dict[str, int]) -> _Node | float:
    """A closure computing ``expr`` from the per-variable rows, or a float for a constant subtree."""
    if isinstance(expr, Num):
        return float(expr.value)
    if isinstance(expr, Const):
        return CONSTANTS[expr.name]
    if isinstance(expr, Var):
        index = columns[expr.name]
        return lambda rows: rows[index]
    if len(expr.args) > 2:  # an n-ary sum or product (canonical form) folds left
        expr = Call(expr.op, (Call(expr.op, expr.args[:-1]), expr.args[-1]))
    kernel = OPERATORS[expr.op].kernel
    parts = [_build(arg, columns) for arg in expr.args]
    if all(isinstance(part, float) for part in parts):
        with np.errstate(all="ignore"):
            return float(kernel(*(np.float64(p) for p in parts)))
    if len(parts) == 1:
        (only,) = parts
        return lambda rows: kernel(only(rows))
    left, right = parts
    if isinstance(left, float):
        return lambda rows: kernel(left, right(rows))
    if isinstance(right, float):
        return lambda rows: kernel(left(rows), right)
    return lambda rows: kernel(left(rows), right(rows))


def evaluate(expr: Expr, X: np.ndarray, variables: Sequence[str]) -> np.ndarray:
    """Compile and evaluate in one step (for one-off use; compile once when reusing)."""
    return compile_expr(expr, variables)(X)
