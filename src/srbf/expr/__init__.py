"""Formulas: one tree for every formula srbf reads, prints, evaluates or compares.

The public surface:

- the tree: ``Num(value)``, ``Var(name)``, ``Const(name)`` (``pi``, ``e``), ``Call(op, args)``;
- ``parse(text, variables=None, *, one_based=False, notation="auto")`` reads every spelling SR
  packages emit (never through ``eval``) and raises ``ParseError`` naming the token and position;
- ``to_infix``, ``to_prefix``, ``to_latex`` print a tree back;
- ``compile_expr(expr, variables)`` turns a tree into a vectorised function of an (n, d) float64
  array whose columns follow ``variables``; it never prints warnings and returns NaN/inf as such;
- ``variables_of(expr)`` lists the variable names a formula uses.
"""

from srbf.expr.evaluate import compile_expr
from srbf.expr.operators import OPERATORS, Operator, lookup_function
from srbf.expr.parser import ParseError, parse
from srbf.expr.printer import to_infix, to_latex, to_prefix
from srbf.expr.tree import Call, Const, Expr, Num, Var, count_nodes, variables_of

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
]
