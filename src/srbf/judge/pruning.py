"""Pruning float noise out of a prediction before the tolerant structural comparison.

Numerical optimisers hand back the truth with a constant that is almost, but not exactly, what
it should be: an offset of 1e-9 next to terms of order one, a weight of 1.00000055 where the
truth has none. The strict structural rates count such a formula as another structure, by
definition. The tolerant (``*_pruned``) rates compare a pruned copy instead, built from the
prediction's canonical form by two deterministic steps (docs/metrics.md, "Tolerant structural
recovery"):

1. **Drop negligible terms.** Every term of every sum, in prefix order of the canonical tree, is
   removed when the whole prediction without it (and without the terms removed before it) stays
   within ``DROP_RELATIVE`` x the spread (standard deviation) of the prediction's values at every
   validation point; so all removals together move the prediction by less than that.
2. **Snap numbers.** Every product coefficient and every numeric exponent within
   ``SNAP_RELATIVE`` (relative) of an integer or of a fraction with a denominator up to
   ``MAX_DENOMINATOR`` becomes that number (the smallest denominator wins).

The caller canonicalises the result again and gates it on its own FVU. Formulas with more than
``MAX_TERMS`` sum terms keep all their terms (the search is quadratic in their number); they are
still snapped.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from srbf.expr.evaluate import compile_expr
from srbf.expr.tree import Call, Expr, Num

__all__ = ["DROP_RELATIVE", "MAX_DENOMINATOR", "MAX_TERMS", "SNAP_RELATIVE", "prune", "snap"]

DROP_RELATIVE = 1e-6
SNAP_RELATIVE = 1e-6
MAX_DENOMINATOR = 12
MAX_TERMS = 100

Path = tuple[int, ...]


def snap(value: float) -> float:
    """``value``, or the integer or simple fraction p/q (q <= 12, smallest q first) within
    ``SNAP_RELATIVE`` of it, relative to that fraction. Zero and non-finite values stay."""
    if not math.isfinite(value) or value == 0.0:
        return value
    for q in range(1, MAX_DENOMINATOR + 1):
        p = round(value * q)
        if p == 0:
            continue
        target = p / q
        if abs(value - target) <= SNAP_RELATIVE * abs(target):
            return target
    return value


def _term_paths(expr: Expr) -> list[Path]:
    """The path (child indices from the root) of every term of every sum, in prefix order."""
    paths: list[Path] = []
    stack: list[tuple[Expr, Path]] = [(expr, ())]
    while stack:
        node, path = stack.pop()
        if isinstance(node, Call):
            if node.op == "add":
                paths.extend(path + (i,) for i in range(len(node.args)))
            stack.extend((arg, path + (i,)) for i, arg in reversed(list(enumerate(node.args))))
    return paths


def _without(expr: Expr, removed: frozenset[Path], path: Path = ()) -> Expr:
    """``expr`` with the sum terms at ``removed`` left out (a sum of one term is that term, of
    none 0)."""
    if not isinstance(expr, Call):
        return expr
    args = [
        _without(arg, removed, path + (i,))
        for i, arg in enumerate(expr.args)
        if not (expr.op == "add" and path + (i,) in removed)
    ]
    if expr.op == "add" and len(args) <= 1:
        return args[0] if args else Num(0.0)
    return Call(expr.op, tuple(args))


def _snapped(expr: Expr) -> Expr:
    """``expr`` with product coefficients and numeric exponents snapped."""
    if not isinstance(expr, Call):
        return expr
    args = [_snapped(arg) for arg in expr.args]
    if expr.op == "mul" and isinstance(args[0], Num):
        args[0] = Num(snap(args[0].value))
    elif expr.op == "pow" and isinstance(args[1], Num):
        args[1] = Num(snap(args[1].value))
    return Call(expr.op, tuple(args))


def _drop_terms(expr: Expr, variables: Sequence[str], X: np.ndarray, values: np.ndarray) -> Expr:
    paths = _term_paths(expr)
    spread = float(np.std(values))
    if not paths or len(paths) > MAX_TERMS or not math.isfinite(spread) or spread == 0.0:
        return expr
    limit = DROP_RELATIVE * spread
    removed: frozenset[Path] = frozenset()
    for path in paths:
        if any(path[: len(r)] == r for r in removed):
            continue  # inside a term already removed
        trial = removed | {path}
        try:
            moved = np.abs(compile_expr(_without(expr, trial), variables)(X) - values)
        except (ValueError, ArithmeticError):
            continue
        if bool(np.all(moved < limit)):
            removed = trial
    return _without(expr, removed) if removed else expr


def prune(canonical: Expr, variables: Sequence[str], X_validation: np.ndarray, values: np.ndarray) -> Expr | None:
    """The pruned copy of a canonical tree (not itself canonical: canonicalise it again), or None
    when pruning changes nothing. ``values`` are the prediction's values at ``X_validation``."""
    try:
        pruned = _snapped(_drop_terms(canonical, variables, X_validation, values))
        return None if pruned == canonical else pruned
    except RecursionError:  # nested beyond what the walk can follow: no tolerant form
        return None
