"""RILS-ROLS's printed formula: read it, evaluate it, write it as srbf infix, and recover its
constants' full values from the package's own predictions.

RILS-ROLS prints constants with six digits after the decimal point, so the printed text is not the
model it predicts with; ``recover_constants`` keeps the printed structure and fits the constants
by least squares to the predictions on the support points (adapter.py says why and when). A module
of its own beside adapter.py, which imports it from the method folder the worker puts on
``sys.path``; like the adapter it imports only the standard library, NumPy and the shared helpers.
"""

import math
import os
import re
import sys

import numpy as np

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "shared"))
import _shared  # noqa: E402  the adapters' shared helpers: srbf/methods/shared/_shared.py

RECOVERY_TOLERANCE = 1e-9  # the recovered formula's largest miss, relative to the predictions' scale

_TOKEN = re.compile(r"\s*(?:(?P<num>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)|(?P<name>[A-Za-z_]\w*)|(?P<op>\*\*|[-+*/(),]))")
_FUNCTIONS = {"sin": 1, "cos": 1, "ln": 1, "exp": 1, "sqrt": 1, "pow": 2, "MIN": 2, "MAX": 2}


class FormulaError(ValueError):
    """A formula RILS-ROLS printed that this reader does not understand."""


def tokenize(text):
    tokens, pos = [], 0
    text = text.strip()
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if match is None or match.end() == pos:
            raise FormulaError("unexpected %r at position %d of %r" % (text[pos], pos, text))
        pos = match.end()
        kind = match.lastgroup
        tokens.append((kind, match.group(kind)))
    return tokens


class Formula:
    """A formula as RILS-ROLS prints it, read into a small tree. Its constants written with a
    decimal point are free (``values``); integers (the package prints a constant within 1e-12 of
    an integer as one) and the exponent of squaring stay fixed."""

    def __init__(self, text):
        self.text = text
        self.values = []
        self._tokens = tokenize(text)
        self._i = 0
        self.tree = self._sum()
        if self._i != len(self._tokens):
            raise FormulaError("unexpected %r in %r" % (self._tokens[self._i][1], text))

    # recursive descent, Python precedence: sum > product > unary minus > power
    def _peek(self):
        return self._tokens[self._i] if self._i < len(self._tokens) else (None, None)

    def _take(self, expected=None):
        kind, value = self._peek()
        if kind is None or (expected is not None and value != expected):
            raise FormulaError("expected %r in %r" % (expected or "more", self.text))
        self._i += 1
        return kind, value

    def _sum(self):
        left = self._product()
        while self._peek()[1] in ("+", "-"):
            op = self._take()[1]
            left = ("bin", op, left, self._product())
        return left

    def _product(self):
        left = self._unary()
        while self._peek()[1] in ("*", "/"):
            op = self._take()[1]
            left = ("bin", op, left, self._unary())
        return left

    def _unary(self):
        if self._peek()[1] == "-":
            self._take()
            if self._peek()[0] == "num":
                return self._number(negative=True)
            return ("neg", self._unary())
        return self._power()

    def _power(self):
        base = self._primary()
        if self._peek()[1] == "**":
            self._take()
            return ("bin", "**", base, self._unary())
        return base

    def _number(self, negative=False):
        text = self._take()[1]
        value = -float(text) if negative else float(text)
        if "." in text or "e" in text.lower():
            self.values.append(value)
            return ("const", len(self.values) - 1)
        return ("int", value)

    def _primary(self):
        kind, value = self._peek()
        if kind == "num":
            return self._number()
        if value == "(":
            self._take()
            inner = self._sum()
            self._take(")")
            return inner
        if kind == "name":
            self._take()
            if value in _FUNCTIONS:
                self._take("(")
                args = [self._sum()]
                while self._peek()[1] == ",":
                    self._take()
                    args.append(self._sum())
                self._take(")")
                if len(args) != _FUNCTIONS[value]:
                    raise FormulaError("%s takes %d argument(s) in %r" % (value, _FUNCTIONS[value], self.text))
                return ("call", value, args)
            if re.fullmatch(r"x\d+", value):
                return ("var", int(value[1:]))
            if value.lower() in ("nan", "inf"):
                return ("int", float(value))
            raise FormulaError("unknown name %r in %r" % (value, self.text))
        raise FormulaError("unexpected %r in %r" % (value, self.text))

    def evaluate(self, X, values=None):
        values = self.values if values is None else values
        with np.errstate(all="ignore"):
            return np.broadcast_to(_evaluate(self.tree, X, values), (X.shape[0],)).astype(float)

    def infix(self, variables, values=None):
        values = self.values if values is None else values
        return _infix(self.tree, variables, values)


_NUMPY = {"sin": np.sin, "cos": np.cos, "ln": np.log, "exp": np.exp, "sqrt": np.sqrt, "pow": np.power,
          "MIN": np.minimum, "MAX": np.maximum}
_BINARY = {"+": np.add, "-": np.subtract, "*": np.multiply, "/": np.true_divide, "**": np.power}


def _evaluate(node, X, values):
    kind = node[0]
    if kind == "const":
        return np.float64(values[node[1]])
    if kind == "int":
        return np.float64(node[1])
    if kind == "var":
        return X[:, node[1]]
    if kind == "neg":
        return -_evaluate(node[1], X, values)
    if kind == "bin":
        return _BINARY[node[1]](_evaluate(node[2], X, values), _evaluate(node[3], X, values))
    return _NUMPY[node[1]](*[_evaluate(a, X, values) for a in node[2]])


_SRBF_NAMES = {"ln": "log", "MIN": "min", "MAX": "max"}


def _infix(node, variables, values):
    kind = node[0]
    if kind == "const":
        return _shared.number(values[node[1]])
    if kind == "int":
        value = node[1]
        if not math.isfinite(value):
            return repr(value)
        text = str(int(value)) if value.is_integer() and abs(value) < 1e15 else repr(value)
        return "(%s)" % text if text.startswith("-") else text
    if kind == "var":
        if node[1] >= len(variables):
            raise FormulaError("the formula uses x%d, the problem has %d variables" % (node[1], len(variables)))
        return variables[node[1]]
    if kind == "neg":
        return "(-%s)" % _infix(node[1], variables, values)
    if kind == "bin":
        return "(%s %s %s)" % (_infix(node[2], variables, values), node[1], _infix(node[3], variables, values))
    args = [_infix(a, variables, values) for a in node[2]]
    if node[1] == "pow":
        return "(%s ** %s)" % (args[0], args[1])
    return "%s(%s)" % (_SRBF_NAMES.get(node[1], node[1]), ", ".join(args))


def least_squares(residual, start, iterations=200):
    """Levenberg-Marquardt on ``residual(values)`` from ``start``, with a central-difference
    Jacobian; returns the best values seen."""
    x = np.array(start, dtype=float)
    r = residual(x)
    cost = float(r @ r)
    damping = 1e-3
    for _ in range(iterations):
        if cost == 0.0:
            break
        steps = 1e-7 * np.maximum(1.0, np.abs(x))
        J = np.empty((r.size, x.size))
        for j in range(x.size):
            e = np.zeros_like(x)
            e[j] = steps[j]
            J[:, j] = (residual(x + e) - residual(x - e)) / (2 * steps[j])
        scale = np.sqrt(np.sum(J * J, axis=0)) + 1e-300
        improved = False
        while damping < 1e16:
            A = np.vstack([J, np.diag(np.sqrt(damping) * scale)])
            b = np.concatenate([-r, np.zeros(x.size)])
            step = np.linalg.lstsq(A, b, rcond=None)[0]
            candidate = x + step
            r_new = residual(candidate)
            new_cost = float(r_new @ r_new)
            if new_cost < cost:
                converged = np.all(np.abs(step) <= 1e-16 * np.maximum(1.0, np.abs(x)))
                x, r, cost = candidate, r_new, new_cost
                damping = max(damping / 10, 1e-15)
                improved = True
                break
            damping *= 10
        if not improved or converged:
            break
    return x


def recover_constants(formula, X, predictions):
    """Full-precision constants for ``formula`` that reproduce ``predictions`` on ``X``: least
    squares from the printed values. Returns (values, relative error, how)."""
    target = np.asarray(predictions, dtype=float)
    start = np.array(formula.values, dtype=float)
    finite = target[np.isfinite(target)]
    scale = float(np.max(np.abs(finite))) if finite.size and np.max(np.abs(finite)) > 0 else 1.0

    def error(values):
        ours = formula.evaluate(X, values)
        diff = np.abs(ours - target)
        diff[np.isnan(ours) & np.isnan(target)] = 0.0
        diff[(ours == target)] = 0.0  # equal infinities
        return float(np.max(diff, initial=0.0)) / scale if not np.isnan(diff).any() else math.inf

    printed = error(start)
    if printed <= RECOVERY_TOLERANCE or start.size == 0:
        return [float(v) for v in start], printed, "printed"
    mask = np.isfinite(target) & np.isfinite(formula.evaluate(X, start))
    if mask.sum() < start.size:
        return [float(v) for v in start], printed, "printed (too few finite points to recover the constants)"
    Xm, tm = X[mask], target[mask]

    def residual(values):
        r = (formula.evaluate(Xm, values) - tm) / scale
        return np.where(np.isfinite(r), r, 1e6)

    values = least_squares(residual, start)
    recovered = error(values)
    if recovered <= RECOVERY_TOLERANCE:
        return [float(v) for v in values], recovered, "recovered"
    return [float(v) for v in start], printed, "printed (recovery reached only %.3g)" % recovered
