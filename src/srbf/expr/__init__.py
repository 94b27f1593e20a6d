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

from srbf.expr.evaluate import compile_expr
from srbf.expr.operators import OPERATORS, Operator, lookup_function
from srbf.expr.parser import ParseError, parse
from srbf.expr.printer import to_infix, to_latex, to_prefix
from srbf.expr.tree import Call, Const, Expr, Num, Var, count_nodes, variables_of
from srbf.expr.canonical import CanonicalForm, canonical, canonicalize
from srbf.expr.masking import LEVELS, MASK, mask, raw_skeleton

__all__ = [
    "Call",
    "Const",
    "Expr",
    "Num",
    "OPERATORS",
    "Operator",
    "ParseError",
    "Var",
    "compile_expr",
    "count_nodes",
    "lookup_function",
    "parse",
    "to_infix",
    "to_latex",
    "to_prefix",
    "variables_of",
    "CanonicalForm",
    "canonical",
    "canonicalize",
    "LEVELS",
    "MASK",
    "mask",
    "raw_skeleton",
]
