"""The operator table: every operator a formula may use, with its arity, NumPy kernel and display.

One table serves the parser (names and the spellings SR packages use for them), the evaluator
(the NumPy kernel) and the printers (infix symbol or function name, LaTeX). Binary arithmetic has
an infix symbol and a precedence; everything else prints as a function call.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np


@dataclass(frozen=True)
class Operator:
    """One operator. ``symbol`` is set for infix arithmetic (``+``, ``**``, ...)."""

    name: str
    arity: int
    kernel: Callable[..., np.ndarray]
    latex: str  # a format string over {0}, {1}
    symbol: str | None = None
    precedence: int = 0  # infix binding strength; higher binds tighter
    aliases: tuple[str, ...] = field(default=())


def _inv(x):
    return 1.0 / x


def _square(x):
    return x * x


def _cube(x):
    return x * x * x


_TABLE = [
    # infix arithmetic
    Operator("add", 2, np.add, r"{0} + {1}", "+", 1, ("plus",)),
    Operator("sub", 2, np.subtract, r"{0} - {1}", "-", 1, ("minus", "subtract")),
    Operator("mul", 2, np.multiply, r"{0} {1}", "*", 2, ("times", "multiply", "prod")),
    Operator("div", 2, np.true_divide, r"\frac{{{0}}}{{{1}}}", "/", 2, ("divide", "truediv")),
    Operator("pow", 2, np.power, r"{0}^{{{1}}}", "**", 4, ("power",)),
    # unary minus binds tighter than * and looser than ** (as in Python)
    Operator("neg", 1, np.negative, r"-{0}", "-", 3, ("negative",)),
    # functions of one argument
    Operator("abs", 1, np.abs, r"\left|{0}\right|", aliases=("fabs", "absolute")),
    Operator("sqrt", 1, np.sqrt, r"\sqrt{{{0}}}"),
    Operator("cbrt", 1, np.cbrt, r"\sqrt[3]{{{0}}}"),
    Operator("exp", 1, np.exp, r"e^{{{0}}}"),
    Operator("log", 1, np.log, r"\log\left({0}\right)", aliases=("ln",)),
    Operator("log10", 1, np.log10, r"\log_{{10}}\left({0}\right)"),
    Operator("log2", 1, np.log2, r"\log_{{2}}\left({0}\right)"),
    Operator("sin", 1, np.sin, r"\sin\left({0}\right)"),
    Operator("cos", 1, np.cos, r"\cos\left({0}\right)"),
    Operator("tan", 1, np.tan, r"\tan\left({0}\right)"),
    Operator("asin", 1, np.arcsin, r"\arcsin\left({0}\right)", aliases=("arcsin",)),
    Operator("acos", 1, np.arccos, r"\arccos\left({0}\right)", aliases=("arccos",)),
    Operator("atan", 1, np.arctan, r"\arctan\left({0}\right)", aliases=("arctan",)),
    Operator("sinh", 1, np.sinh, r"\sinh\left({0}\right)"),
    Operator("cosh", 1, np.cosh, r"\cosh\left({0}\right)"),
    Operator("tanh", 1, np.tanh, r"\tanh\left({0}\right)"),
    Operator("asinh", 1, np.arcsinh, r"\operatorname{{arsinh}}\left({0}\right)", aliases=("arcsinh",)),
    Operator("acosh", 1, np.arccosh, r"\operatorname{{arcosh}}\left({0}\right)", aliases=("arccosh",)),
    Operator("atanh", 1, np.arctanh, r"\operatorname{{artanh}}\left({0}\right)", aliases=("arctanh",)),
    Operator("inv", 1, _inv, r"\frac{{1}}{{{0}}}", aliases=("recip", "reciprocal")),
    Operator("square", 1, _square, r"\left({0}\right)^{{2}}", aliases=("sq",)),
    Operator("cube", 1, _cube, r"\left({0}\right)^{{3}}"),
    # functions of two arguments
    Operator("max", 2, np.maximum, r"\max\left({0}, {1}\right)", aliases=("maximum",)),
    Operator("min", 2, np.minimum, r"\min\left({0}, {1}\right)", aliases=("minimum",)),
    Operator("atan2", 2, np.arctan2, r"\operatorname{{atan2}}\left({0}, {1}\right)", aliases=("arctan2",)),
]

OPERATORS: dict[str, Operator] = {op.name: op for op in _TABLE}

# Named constants. A declared variable of the same name takes precedence when parsing.
CONSTANTS: dict[str, float] = {"pi": float(np.pi), "e": float(np.e)}
CONSTANT_LATEX = {"pi": r"\pi", "e": r"e"}

_FUNCTION_NAMES: dict[str, str] = {}
for _op in _TABLE:
    for _spelling in (_op.name, *_op.aliases):
        _FUNCTION_NAMES[_spelling] = _op.name

# Module prefixes methods print in front of function names (np.sin, sympy.exp, ...).
MODULE_PREFIXES = ("numpy.", "np.", "math.", "sympy.", "sp.", "torch.", "jnp.")


def lookup_function(spelling: str) -> str | None:
    """The operator name a function spelling stands for (case-insensitive), or None.

    ``Sin``, ``np.sin`` and ``SIN`` all give ``sin``; ``Recip`` gives ``inv``; ``arcsin`` gives
    ``asin``.
    """
    word = spelling
    for prefix in MODULE_PREFIXES:
        if word.lower().startswith(prefix):
            word = word[len(prefix):]
            break
    return _FUNCTION_NAMES.get(word.lower())


def is_reserved_name(name: str) -> bool:
    """True for names a catalog should not give a variable (constants and function names)."""
    return name in CONSTANTS or lookup_function(name) is not None
