"""Print a tree back: Python-syntax infix, prefix tokens, and LaTeX for reports.

Infix printing uses as few brackets as Python's precedence rules allow and is exact: numbers are
written with ``repr`` (shortest round-tripping form), and ``parse(to_infix(t)) == t`` for every
tree ``t`` (a negated positive number prints as ``-(2.5)`` so that it does not read back as the
number ``-2.5``).
"""

from __future__ import annotations

import math
import re

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


def _left_nested(expr: Call) -> Call:
    """``add(a, b, c)`` as ``add(add(a, b), c)``: how Python reads ``a + b + c``."""
    return Call(expr.op, (Call(expr.op, expr.args[:-1]), expr.args[-1]))


def to_infix(expr: Expr) -> str:
    """Python-syntax infix text of the tree, e.g. ``x0**2 + sin(x1)``."""
    if isinstance(expr, Num):
        return format_number(expr.value)
    if isinstance(expr, (Var, Const)):
        return expr.name
    op = OPERATORS[expr.op]
    if op.symbol is None:
        return f"{op.name}({', '.join(to_infix(arg) for arg in expr.args)})"
    if op.name == "neg":
        (operand,) = expr.args
        text = to_infix(operand)
        if _precedence(operand) < _NEG or (isinstance(operand, Num) and _precedence(operand) == _ATOM):
            text = f"({text})"
        return f"-{text}"
    if len(expr.args) > 2:  # an n-ary sum or product (canonical form) prints left-nested
        return to_infix(_left_nested(expr))
    left, right = expr.args
    left_text, right_text = to_infix(left), to_infix(right)
    if op.name == "pow":  # right-associative; the exponent may be a unary minus
        if _precedence(left) <= _POW:
            left_text = f"({left_text})"
        if _precedence(right) < _NEG:
            right_text = f"({right_text})"
        return f"{left_text}**{right_text}"
    if _precedence(left) < op.precedence:
        left_text = f"({left_text})"
    if _precedence(right) <= op.precedence:
        right_text = f"({right_text})"
    return f"{left_text} {op.symbol} {right_text}"


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


def to_latex(expr: Expr) -> str:
    """LaTeX for reports, e.g. ``\\frac{x_{0}^{2}}{2} + \\sin\\left(x_{1}\\right)``."""
    if isinstance(expr, Num):
        return _latex_number(expr.value)
    if isinstance(expr, Var):
        return _latex_name(expr.name)
    if isinstance(expr, Const):
        return CONSTANT_LATEX[expr.name]
    if len(expr.args) > 2 and expr.op in ("add", "mul"):
        return to_latex(_left_nested(expr))
    op = OPERATORS[expr.op]
    parts = [to_latex(arg) for arg in expr.args]
    wrap = lambda text: rf"\left({text}\right)"  # noqa: E731
    if op.name in ("add", "sub"):
        right = parts[1]
        if right.startswith("-") or (op.name == "sub" and _precedence(expr.args[1]) <= op.precedence):
            right = wrap(right)
        return f"{parts[0]} {op.symbol} {right}"
    if op.name == "mul":
        left, right = parts
        if _precedence(expr.args[0]) < op.precedence:
            left = wrap(left)
        if _precedence(expr.args[1]) <= _NEG:
            right = wrap(right)
        joiner = r" \cdot " if right[:1].isdigit() else " "
        return f"{left}{joiner}{right}"
    if op.name == "neg":
        operand = parts[0]
        if _precedence(expr.args[0]) <= _NEG:
            operand = wrap(operand)
        return f"-{operand}"
    if op.name == "pow":
        base = parts[0]
        if _precedence(expr.args[0]) <= _POW:
            base = wrap(base)
        return f"{{{base}}}^{{{parts[1]}}}"
    return op.latex.format(*parts)
