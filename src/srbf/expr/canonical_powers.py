"""The canonical form's rules for powers and the functions that meet them: ``pow``, ``exp``, ``log``
and ``abs`` (docs/canonical.md lists them).

``PowerRules`` is one half of the ``Rewriter`` (``canonical_rewrite``): its constructors take
canonical children and return a canonical node, calling the sums and products of the other half
(``add``, ``mul``, ``negate``, ``divide_sum``) and reading ``positive`` (the variables known to be
positive). Kept apart so that each half of the rules reads in one sitting.
"""

from __future__ import annotations

import math

import numpy as np

from srbf.expr.canonical_nodes import (
    CALL,
    MINUS_ONE,
    NUM,
    ONE,
    can_extract_minus,
    fold,
    is_call,
    is_even,
    is_integer,
    nonnegative,
    num,
    snap,
    split_coefficient,
    sum_content,
    value_of,
)


class PowerRules:
    """The power and function constructors of ``Rewriter`` (a mixin: it has no state of its own)."""

    __slots__ = ()

    def pow(self, base: tuple, exponent: tuple) -> tuple:
        if exponent[0] == NUM:
            p = value_of(exponent)
            if p == 0:
                return ONE
            if p == 1:
                return base
            if base[0] == NUM:
                return fold("pow", (value_of(base), p))
            if base[0] == CALL:
                op, args = base[1], base[3]
                if op == "pow":
                    inner, a = args
                    if a[0] == NUM:  # (x**a)**p
                        av = value_of(a)
                        if is_integer(p) or not is_even(av):
                            return self.pow(inner, num(snap(av * p)))
                        return self.pow(self.abs(inner), num(snap(av * p)))  # (x**2)**0.5 = |x|
                    if is_integer(p):
                        return self.pow(inner, self.mul([a, exponent]))
                elif op == "mul":
                    if is_integer(p):  # (x*y)**2 -> x**2 * y**2
                        return self.mul([self.pow(f, exponent) for f in args])
                    split = self._split_nonnegative(args)
                    if split is not None:
                        outside, inside = split
                        rest = self.pow(self.mul(inside), exponent) if inside else ONE
                        return self.mul([self.pow(f, exponent) for f in outside] + [rest])
                elif op == "add":  # (1 - v/c)**-1 -> c * (c - v)**-1; (2 + 2*y)**p -> 2**p * (1 + y)**p
                    cleared, inverse = self.clear_denominators(base)
                    if inverse is not None and (is_integer(p) or nonnegative(inverse, self.positive)):
                        return self.pow(self.mul([inverse, cleared]), exponent)
                    content = sum_content(base)  # (y - x)**2 -> (x - y)**2
                    c, rest = self.divide_sum(base, content if is_integer(p) else abs(content))
                    if c != 1:
                        return self.mul([fold("pow", (c, p)), self.pow(rest, exponent)])
                elif op == "exp":
                    return self.exp(self.mul([args[0], exponent]))
                elif op == "abs" and is_even(p):
                    return self.pow(args[0], exponent)
            return (CALL, "pow", 0.0, (base, exponent))
        if base[0] == NUM:
            b = value_of(base)
            if b == 1:
                return ONE
            if 0 < b < math.inf:  # 2**x -> exp(log(2)*x)
                return self.exp(self.mul([num(float(np.log(b))), exponent]))
        elif base[0] == CALL and base[1] == "exp":
            return self.exp(self.mul([base[3][0], exponent]))
        return (CALL, "pow", 0.0, (base, exponent))

    def _split_nonnegative(self, factors: tuple) -> tuple[list, list] | None:
        """Split a product's factors into those >= 0 everywhere and the rest (a negative
        coefficient leaves -1 behind and its size outside); None when nothing splits out."""
        outside, inside = [], []
        for f in factors:
            if f[0] == NUM and value_of(f) < 0 and value_of(f) != -1:
                outside.append(num(-value_of(f)))
                inside.append(MINUS_ONE)
            elif nonnegative(f, self.positive):
                outside.append(f)
            else:
                inside.append(f)
        return (outside, inside) if outside else None

    # -- functions ----------------------------------------------------------------------------
    def _as_power(self, term: tuple) -> tuple | None:
        """``exp(term)`` as a power when ``term`` is ``c*log(u)`` (``u**c``), or ``y*log(u)`` for a
        ``u`` known to be >= 0 and a symbolic ``y`` (``u**y``, which holds only there); else None."""
        c, body = split_coefficient(term)
        if is_call(body, "log"):
            return self.pow(body[3][0], num(c))
        if is_call(body, "mul"):
            logs = [f for f in body[3] if is_call(f, "log") and nonnegative(f[3][0], self.positive)]
            if len(logs) == 1:
                rest = [f for f in body[3] if f is not logs[0]]
                return self.pow(logs[0][3][0], self.mul([num(c), *rest]))
        return None

    def exp(self, arg: tuple) -> tuple:
        if arg[0] == NUM:
            return fold("exp", (value_of(arg),))
        if is_call(arg, "log"):
            return arg[3][0]
        if is_call(arg, "mul"):
            power = self._as_power(arg)  # exp(c*log(u)) -> u**c; exp(y*log(u)) -> u**y for u >= 0
            if power is not None:
                return power
        if is_call(arg, "add"):
            pulled: list[tuple] = []
            kept: list[tuple] = []
            for term in arg[3]:
                if term[0] == NUM:
                    pulled.append(fold("exp", (value_of(term),)))
                    continue
                power = self._as_power(term)
                if power is not None:
                    pulled.append(power)
                else:
                    kept.append(term)
            if pulled:
                if kept:
                    rest = kept[0] if len(kept) == 1 else (CALL, "add", 0.0, tuple(kept))
                    pulled.append((CALL, "exp", 0.0, (rest,)))
                return self.mul(pulled)
        return (CALL, "exp", 0.0, (arg,))

    def log(self, arg: tuple) -> tuple:
        if arg[0] == NUM:
            return fold("log", (value_of(arg),))
        if arg[0] == CALL:
            op, args = arg[1], arg[3]
            if op == "exp":
                return args[0]
            if op == "add":  # log(2 + 2*x) -> log(2) + log(1 + x), as log(2*(1 + x)) would split
                c, rest = self.divide_sum(arg, abs(sum_content(arg)))
                if c != 1:
                    return self.add([fold("log", (c,)), self.log(rest)])
            if op == "pow" and args[1][0] == NUM:  # log(x**p) -> p*log(x), p*log|x| for even p
                p = value_of(args[1])
                inner = self.abs(args[0]) if is_even(p) else args[0]
                return self.mul([args[1], self.log(inner)])
            if op == "mul":  # log(a*b) = log(a) + log(b) when a >= 0: split such factors out
                pulled, kept = [], []
                for f in args:
                    if f[0] == NUM and value_of(f) not in (1.0, -1.0):
                        pulled.append(fold("log", (abs(value_of(f)),)))
                        if value_of(f) < 0:
                            kept.append(MINUS_ONE)
                    elif f[0] != NUM and nonnegative(f, self.positive):
                        pulled.append(self.log(f))
                    else:
                        kept.append(f)
                if pulled:
                    return self.add(pulled + ([self.log(self.mul(kept))] if kept else []))
        return (CALL, "log", 0.0, (arg,))

    def abs(self, arg: tuple) -> tuple:
        if arg[0] == NUM:
            return fold("abs", (value_of(arg),))
        if nonnegative(arg, self.positive):
            return arg
        if is_call(arg, "mul") and arg[3][0][0] == NUM:  # |c*x| -> |c|*|x|
            c, rest = split_coefficient(arg)
            return self.mul([num(abs(c)), self.abs(rest)])
        if is_call(arg, "add"):  # |2 + 2*x| -> 2*|1 + x|
            c, rest = self.divide_sum(arg, abs(sum_content(arg)))
            if c != 1:
                return self.mul([num(c), self.abs(rest)])
        if can_extract_minus(arg):
            return self.abs(self.negate(arg))
        return (CALL, "abs", 0.0, (arg,))
