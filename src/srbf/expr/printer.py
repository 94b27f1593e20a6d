"""Print a tree back: Python-syntax infix, prefix tokens, and LaTeX for reports.

Infix printing uses as few brackets as Python's precedence rules allow and is exact: numbers are
written with ``repr`` (shortest round-tripping form), and ``parse(to_infix(t)) == t`` for every
tree ``t`` (a negated positive number prints as ``-(2.5)`` so that it does not read back as the
number ``-2.5``).
"""

from __future__ import annotations

import math
import re
import string

from srbf.expr.operators import CONSTANT_LATEX, OPERATORS
from srbf.expr.tree import Call, Const, Expr, Num, Var

_ATOM = 5
_NEG = OPERATORS["neg"].precedence
_POW = OPERATORS["pow"].precedence


def format_number(value: float) -> str:
    """The shortest text that reads back as exactly ``value`` (integral values without '.0')."""
    value = float(value)
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    if value.is_integer() and abs(value) < 1e16:
        return str(int(value)) if value != 0 or math.copysign(1, value) > 0 else "-0.0"
    return repr(value)


def _precedence(expr: Expr) -> int:
    if isinstance(expr, Num):
        return _NEG if (expr.value < 0 or math.copysign(1, expr.value) < 0) else _ATOM
    if isinstance(expr, Call) and OPERATORS[expr.op].symbol is not None:
        return OPERATORS[expr.op].precedence
    return _ATOM


def _render(expr: Expr, leaf, pieces) -> str:
    """Text of the tree written piece by piece from an explicit stack, so a sum of any length
    prints: ``leaf`` writes a number, variable or constant, ``pieces`` splits a call into strings
    and subtrees."""
    out: list[str] = []
    stack: list = [expr]
    while stack:
        item = stack.pop()
        if type(item) is str:
            out.append(item)
        elif type(item) is Call:
            stack.extend(reversed(pieces(item)))
        else:
            out.append(leaf(item))
    return "".join(out)


def _infix_leaf(expr: Expr) -> str:
    return format_number(expr.value) if type(expr) is Num else expr.name


def to_infix(expr: Expr) -> str:
    """Python-syntax infix text of the tree, e.g. ``x0**2 + sin(x1)``. An n-ary sum or product
    (canonical form) prints left-nested, as Python reads ``a + b + c``."""
    return _render(expr, _infix_leaf, _infix_pieces)


def _wrapped(expr: Expr, wrap: bool) -> list:
    return ["(", expr, ")"] if wrap else [expr]


def _infix_pieces(expr: Call) -> list:
    """One call as a list of strings and argument trees, in reading order."""
    op = OPERATORS[expr.op]
    if op.symbol is None:
        pieces: list = [f"{op.name}("]
        for i, arg in enumerate(expr.args):
            pieces.extend((", ", arg) if i else (arg,))
        return pieces + [")"]
    if op.name == "neg":
        (operand,) = expr.args
        wrap = _precedence(operand) < _NEG or (isinstance(operand, Num) and _precedence(operand) == _ATOM)
        return ["-", *_wrapped(operand, wrap)]
    if op.name == "pow" and len(expr.args) == 2:  # right-associative; the exponent may be a unary minus
        left, right = expr.args
        return [*_wrapped(left, _precedence(left) <= _POW), "**", *_wrapped(right, _precedence(right) < _NEG)]
    first, *rest = expr.args  # left-nested: only the first operand can stay unbracketed at equal precedence
    pieces = _wrapped(first, _precedence(first) < op.precedence)
    for arg in rest:
        pieces.extend((f" {op.symbol} ", *_wrapped(arg, _precedence(arg) <= op.precedence)))
    return pieces


def to_prefix(expr: Expr) -> list[str]:
    """Prefix (Polish) tokens: binary arithmetic as ``+ - * / **``, unary minus as ``neg``."""
    tokens: list[str] = []
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, Num):
            tokens.append(format_number(node.value))
        elif isinstance(node, (Var, Const)):
            tokens.append(node.name)
        else:
            op = OPERATORS[node.op]
            tokens.append(op.symbol if op.symbol is not None and op.name != "neg" else op.name)
            if len(node.args) != op.arity:  # n-ary sums and products from the canonical form
                tokens[-1] = f"{tokens[-1]}/{len(node.args)}"
            stack.extend(reversed(node.args))
    return tokens


_GREEK = {
    "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa", "lambda",
    "mu", "nu", "xi", "pi", "rho", "sigma", "tau", "upsilon", "phi", "chi", "psi", "omega",
    "Gamma", "Delta", "Theta", "Lambda", "Xi", "Pi", "Sigma", "Upsilon", "Phi", "Psi", "Omega",
}


def _latex_name(name: str) -> str:
    """``theta_1`` -> ``\\theta_{1}``; ``x12`` -> ``x_{12}``; other names in \\mathrm."""
    match = re.fullmatch(r"([A-Za-z]+?)_?(\d+)", name) or re.fullmatch(r"([A-Za-z]+)_(\w+)", name)
    base, sub = (match.group(1), match.group(2)) if match else (name, "")
    if base in _GREEK:
        base = "\\" + base
    elif len(base) > 1:
        base = r"\mathrm{" + base.replace("_", r"\_") + "}"
    return f"{base}_{{{sub}}}" if sub else base


def _latex_number(value: float) -> str:
    text = format_number(value)
    if "e" in text and not math.isinf(value):
        mantissa, exponent = text.split("e")
        return rf"{mantissa} \cdot 10^{{{int(exponent)}}}"
    return {"inf": r"\infty", "-inf": r"-\infty", "nan": r"\mathrm{NaN}"}.get(text, text)


def _latex_leaf(expr: Expr) -> str:
    if type(expr) is Num:
        return _latex_number(expr.value)
    return _latex_name(expr.name) if type(expr) is Var else CONSTANT_LATEX[expr.name]


def to_latex(expr: Expr) -> str:
    """LaTeX for reports, e.g. ``\\frac{x_{0}^{2}}{2} + \\sin\\left(x_{1}\\right)``."""
    return _render(expr, _latex_leaf, _latex_pieces)


def _latex_wrapped(expr: Expr, wrap: bool) -> list:
    return [r"\left(", expr, r"\right)"] if wrap else [expr]


def _latex_starts_with_minus(expr: Expr) -> bool:
    """Whether the LaTeX of ``expr`` begins with '-' (followed down the left operands)."""
    while True:
        if isinstance(expr, Num):
            return _latex_number(expr.value).startswith("-")
        if not isinstance(expr, Call) or expr.op not in ("neg", "add", "sub", "mul"):
            return False
        if expr.op == "neg":
            return True
        if expr.op == "mul" and _precedence(expr.args[0]) < OPERATORS["mul"].precedence:
            return False  # bracketed
        expr = expr.args[0]


def _latex_pieces(expr: Call) -> list:
    """One call as a list of strings and argument trees, in reading order (n-ary sums and
    products left-nested)."""
    op = OPERATORS[expr.op]
    args = expr.args
    if op.name in ("add", "sub") or (op.name == "mul" and len(args) > 2):
        pieces: list = [args[0]] if op.name != "mul" else _latex_wrapped(args[0], _precedence(args[0]) < op.precedence)
        for right in args[1:]:
            if op.name == "mul":
                wrap = _precedence(right) <= _NEG
                pieces.extend((_latex_joiner(right, wrap), *_latex_wrapped(right, wrap)))
                continue
            wrap = _latex_starts_with_minus(right) or (op.name == "sub" and _precedence(right) <= op.precedence)
            pieces.extend((f" {op.symbol} ", *_latex_wrapped(right, wrap)))
        return pieces
    if op.name == "mul":
        left, right = args
        wrap = _precedence(right) <= _NEG
        return [*_latex_wrapped(left, _precedence(left) < op.precedence), _latex_joiner(right, wrap), *_latex_wrapped(right, wrap)]
    if op.name == "neg":
        return ["-", *_latex_wrapped(args[0], _precedence(args[0]) <= _NEG)]
    if op.name == "pow":
        return ["{", *_latex_wrapped(args[0], _precedence(args[0]) <= _POW), "}^{", args[1], "}"]
    pieces = []
    for literal, field_name, _, _ in string.Formatter().parse(op.latex):
        pieces.append(literal)
        if field_name is not None:
            pieces.append(args[int(field_name)])
    return pieces


def _latex_joiner(right: Expr, wrapped: bool) -> str:
    """A product's joiner: a visible dot before a number, a space otherwise."""
    digit = not wrapped and isinstance(right, Num) and _latex_number(right.value)[:1].isdigit()
    return r" \cdot " if digit else " "
