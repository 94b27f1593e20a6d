"""Formulas: one tree for every formula srbf reads, prints, evaluates or compares.

The public surface:

- the tree: ``Num(value)``, ``Var(name)``, ``Const(name)`` (``pi``, ``e``), ``Call(op, args)``;
- ``parse(text, variables=None, *, one_based=False, notation="auto")`` reads every spelling SR
  packages emit (never through ``eval``) and raises ``ParseError`` naming the token and position;
- ``to_infix``, ``to_prefix``, ``to_latex`` print a tree back;
- ``compile_expr(expr, variables)`` turns a tree into a vectorised function of an (n, d) float64
  array whose columns follow ``variables``; it never prints warnings and returns NaN/inf as such;
- ``variables_of(expr)`` lists the variable names a formula uses;
- ``canonicalize(expr, *, time_limit=1.0)`` gives the canonical form (a ``CanonicalForm`` with
  ``expr`` and ``complete``), ``canonical(expr)`` just its tree;
- ``mask(expr, level)`` masks the canonical form's numbers at level "structure", "exponents" or
  "all" (a masked number is ``MASK``); ``raw_skeleton(expr)`` masks the formula as written.
"""

from __future__ import annotations

from srbf.core import lazy_attributes

# SymPy (the canonical form) and NumPy (compile_expr) load on first use
_EXPORTS = {
    "compile_expr": "srbf.expr.evaluate",
    "OPERATORS": "srbf.expr.operators",
    "Operator": "srbf.expr.operators",
    "lookup_function": "srbf.expr.operators",
    "ParseError": "srbf.expr.parser",
    "parse": "srbf.expr.parser",
    "to_infix": "srbf.expr.printer",
    "to_latex": "srbf.expr.printer",
    "to_prefix": "srbf.expr.printer",
    "Call": "srbf.expr.tree",
    "Const": "srbf.expr.tree",
    "Expr": "srbf.expr.tree",
    "Num": "srbf.expr.tree",
    "Var": "srbf.expr.tree",
    "count_nodes": "srbf.expr.tree",
    "variables_of": "srbf.expr.tree",
    "CanonicalForm": "srbf.expr.canonical",
    "canonical": "srbf.expr.canonical",
    "canonicalize": "srbf.expr.canonical",
    "LEVELS": "srbf.expr.masking",
    "MASK": "srbf.expr.masking",
    "mask": "srbf.expr.masking",
    "raw_skeleton": "srbf.expr.masking",
}

__all__ = sorted(_EXPORTS)

__getattr__ = lazy_attributes(__name__, _EXPORTS)
