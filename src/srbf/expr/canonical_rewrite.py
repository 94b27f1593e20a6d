"""The canonical form's rewriting engine: the rules that turn a tree into its canonical node.

``Rewriter.canon`` walks an srbf tree bottom-up; its smart constructors (``add``, ``mul``,
``pow``, ``exp``, ``log``, ``abs``, ``apply``) take canonical children and return a canonical
node, which is what makes the form idempotent. The rules are listed in docs/canonical.md. Kept
apart from the public API (``canonical``) so that the rules read in one piece, without the
caching and conversion around them; numbers are folded here with exactly rounded sums and the
evaluator's own kernels, so a form does not depend on the order its terms came in.
"""

from __future__ import annotations

import math
import time

import numpy as np

from srbf.expr.canonical_nodes import (
    CALL,
    MINUS_ONE,
    NUM,
    ONE,
    RAW,
    SYM,
    VAR,
    ZERO,
    call,
    can_extract_minus,
    factor_key,
    is_call,
    is_even,
    is_integer,
    nonnegative,
    num,
    split_coefficient,
    value_of,
)
from srbf.expr.operators import CONSTANTS, OPERATORS
from srbf.expr.tree import Call, Const, Expr, Num, Var

_INV_LN10 = float(1.0 / np.log(10.0))
_INV_LN2 = float(1.0 / np.log(2.0))
_ODD = frozenset({"sin", "tan", "asin", "atan", "sinh", "tanh", "asinh", "atanh"})
_EVEN = frozenset({"cos", "cosh"})
_COMMUTATIVE = frozenset({"max", "min"})
_POWERS = {"sqrt": 0.5, "cbrt": 1.0 / 3.0, "square": 2.0, "cube": 3.0}


def _with_coefficient(c: float, body: tuple) -> tuple:
    if c == 1:
        return body
    if is_call(body, "mul"):
        return (CALL, "mul", 0.0, (num(c),) + body[3])
    return (CALL, "mul", 0.0, (num(c), body))


def _leading_coefficient(total: tuple) -> float:
    """The coefficient of a canonical sum's first non-constant term (1 when there is none)."""
    for term in total[3]:
        if term[0] != NUM:
            return split_coefficient(term)[0]
    return 1.0


def _fsum(values: list[float]) -> float:
    """Exactly rounded, so the result does not depend on the order the terms came in."""
    if len(values) == 1:
        return values[0]
    try:
        return math.fsum(values)
    except (OverflowError, ValueError):  # inf - inf, or an intermediate overflow
        return float(np.sum(np.array(sorted(values, key=repr))))


def _product(values: list[float]) -> float:
    if len(values) == 1:
        return values[0]
    result = 1.0
    for v in sorted(values, key=lambda v: (v != v, v if v == v else 0.0)):
        result *= v
    return result


def _fold(op: str, values) -> tuple:
    """Evaluate an operator on numbers with the evaluator's own kernel (same values, same NaNs)."""
    return num(float(OPERATORS[op].kernel(*(np.float64(v) for v in values))))


class Rewriter:
    """One canonicalisation: the smart constructors below take canonical children and return a
    canonical node; ``canon`` walks the input tree and calls them bottom-up."""

    __slots__ = ("deadline", "timed_out", "positive", "ticks")

    def __init__(self, deadline: float, positive: frozenset = frozenset()):
        self.deadline = deadline
        self.timed_out = False
        self.positive = positive
        self.ticks = 0

    def past_deadline(self) -> bool:
        """Whether the CPU-time deadline has passed; the clock (about 1 us a read) is read every
        16th call, which is far finer than any limit in seconds."""
        if not self.timed_out:
            self.ticks += 1
            if not self.ticks & 15 and time.thread_time() > self.deadline:
                self.timed_out = True
        return self.timed_out

    # -- walking the input ------------------------------------------------------------------
    def canon(self, expr: Expr) -> tuple:
        if self.past_deadline():
            return (RAW, "", 0.0, (), expr)
        kind = type(expr)
        if kind is Num:
            return num(expr.value)
        if kind is Var:
            return (VAR, expr.name, 0.0, ())
        if kind is Const:
            known = CONSTANTS.get(expr.name)
            return num(known) if known is not None else (SYM, expr.name, 0.0, ())
        op, n = expr.op, len(expr.args)
        if op == "add" or (op == "sub" and n == 2):
            return self._sum(expr)
        if op == "mul" or (op == "div" and n == 2) or (op in ("neg", "inv") and n == 1):
            return self._product(expr)
        args = [self.canon(arg) for arg in expr.args]
        if self.timed_out or (op in OPERATORS and n != OPERATORS[op].arity):
            return call(op, args)  # a malformed node is kept as an opaque function
        return self.apply(op, args)

    def _sum(self, expr: Call) -> tuple:
        """Flatten a chain of +, - and unary minus iteratively (long sums are deep binary trees)."""
        leaves = []
        stack = [(expr, False)]
        while stack:
            node, negated = stack.pop()
            if type(node) is Call:
                if node.op == "add":
                    stack.extend((arg, negated) for arg in reversed(node.args))
                    continue
                if node.op == "sub" and len(node.args) == 2:
                    stack.append((node.args[1], not negated))
                    stack.append((node.args[0], negated))
                    continue
                if node.op == "neg" and len(node.args) == 1:
                    stack.append((node.args[0], not negated))
                    continue
            leaves.append((node, negated))
        terms = []
        for node, negated in leaves:
            term = self.canon(node)
            if negated:
                term = call("neg", (term,)) if self.timed_out else self.mul([MINUS_ONE, term])
            terms.append(term)
        if self.timed_out:
            return terms[0] if len(terms) == 1 else call("add", terms)
        return self.add(terms)

    def _product(self, expr: Call) -> tuple:
        """Flatten a chain of *, /, unary minus and inv; divisors become powers -1."""
        leaves = []
        stack = [(expr, False)]
        while stack:
            node, inverted = stack.pop()
            if type(node) is Call:
                if node.op == "mul":
                    stack.extend((arg, inverted) for arg in reversed(node.args))
                    continue
                if node.op == "div" and len(node.args) == 2:
                    stack.append((node.args[1], not inverted))
                    stack.append((node.args[0], inverted))
                    continue
                if node.op == "neg" and len(node.args) == 1:
                    leaves.append((None, False))  # a factor -1
                    stack.append((node.args[0], inverted))
                    continue
                if node.op == "inv" and len(node.args) == 1:
                    stack.append((node.args[0], not inverted))
                    continue
            leaves.append((node, inverted))
        factors = []
        for node, inverted in leaves:
            factor = MINUS_ONE if node is None else self.canon(node)
            if inverted:
                factor = call("pow", (factor, MINUS_ONE)) if self.timed_out else self.pow(factor, MINUS_ONE)
            factors.append(factor)
        if self.timed_out:
            return factors[0] if len(factors) == 1 else call("mul", factors)
        return self.mul(factors)

    # -- one operator on canonical arguments --------------------------------------------------
    def apply(self, op: str, args: list[tuple]) -> tuple:
        if op in ("add", "mul"):  # also n-ary
            return self.add(args) if op == "add" else self.mul(args)
        if op == "sub":
            return self.add([args[0], self.mul([MINUS_ONE, args[1]])])
        if op == "div":
            return self.mul([args[0], self.pow(args[1], MINUS_ONE)])
        if op == "neg":
            return self.mul([MINUS_ONE, args[0]])
        if op == "inv":
            return self.pow(args[0], MINUS_ONE)
        if all(arg[0] == NUM for arg in args) and op in OPERATORS:
            return _fold(op, [value_of(arg) for arg in args])
        if op == "pow":
            return self.pow(args[0], args[1])
        if op in _POWERS:
            return self.pow(args[0], num(_POWERS[op]))
        if op == "exp":
            return self.exp(args[0])
        if op == "log":
            return self.log(args[0])
        if op == "log10":
            return self.mul([num(_INV_LN10), self.log(args[0])])
        if op == "log2":
            return self.mul([num(_INV_LN2), self.log(args[0])])
        if op == "abs":
            return self.abs(args[0])
        if op in _ODD and can_extract_minus(args[0]):
            return self.mul([MINUS_ONE, call(op, (self.negate(args[0]),))])
        if op in _EVEN and can_extract_minus(args[0]):
            return call(op, (self.negate(args[0]),))
        if op in _COMMUTATIVE:
            args = sorted(args)
            if args[0] == args[1]:
                return args[0]
        return call(op, args)

    def negate(self, node: tuple) -> tuple:
        return self.mul([MINUS_ONE, node])

    # -- sums ---------------------------------------------------------------------------------
    def add(self, terms: list[tuple]) -> tuple:
        constants: list[float] = []
        groups: dict[tuple, list[float]] = {}
        for term in terms:
            inner = term[3] if term[0] == CALL and term[1] == "add" else (term,)
            for t in inner:
                if t[0] == NUM:
                    constants.append(value_of(t))
                    continue
                c, body = split_coefficient(t)
                group = groups.get(body)
                if group is None:
                    groups[body] = [c]
                else:
                    group.append(c)
        out = []
        for body, coefficients in groups.items():
            c = _fsum(coefficients)
            if c != 0:
                out.append((body, c))
        out.sort(key=lambda pair: pair[0])  # bodies are unique: the order ignores coefficients
        result = [_with_coefficient(c, body) for body, c in out]
        if constants:
            k = _fsum(constants)
            if k != 0:
                result.insert(0, num(k))
        if not result:
            return ZERO
        if len(result) == 1:
            return result[0]
        return (CALL, "add", 0.0, tuple(result))

    # -- products -----------------------------------------------------------------------------
    @staticmethod
    def _absorb(node: tuple, coefficients: list[float], factors: list[tuple]) -> None:
        if node[0] == NUM:
            coefficients.append(value_of(node))
        elif node[0] == CALL and node[1] == "mul":
            for f in node[3]:
                if f[0] == NUM:
                    coefficients.append(value_of(f))
                else:
                    factors.append(f)
        else:
            factors.append(node)

    def mul(self, items: list[tuple]) -> tuple:
        coefficients: list[float] = []
        factors: list[tuple] = []
        for item in items:
            self._absorb(item, coefficients, factors)
        if len(factors) > 1 and any(f[0] == CALL and f[1] == "add" for f in factors):
            factors = self._collect_contents(factors, coefficients)
        for _ in range(16):  # merging may expose new like factors; a few rounds always suffice
            exps = [f for f in factors if f[0] == CALL and f[1] == "exp"]
            if len(exps) > 1:  # exp(a) * exp(b) -> exp(a + b)
                factors = [f for f in factors if not (f[0] == CALL and f[1] == "exp")]
                self._absorb(self.exp(self.add([e[3][0] for e in exps])), coefficients, factors)
            groups: dict[tuple, list] = {}
            for f in factors:
                base, exponent = f[3] if (f[0] == CALL and f[1] == "pow") else (f, ONE)
                group = groups.get(base)
                if group is None:
                    groups[base] = [f, exponent]
                else:
                    group.append(exponent)
            if len(groups) == len(factors):
                break
            merged: list[tuple] = []
            for base, group in groups.items():
                if len(group) == 2:
                    merged.append(group[0])
                    continue
                exponents = group[1:]
                if all(e[0] == NUM for e in exponents):
                    total = num(_fsum([value_of(e) for e in exponents]))
                else:
                    total = self.add(exponents)
                self._absorb(self.pow(base, total), coefficients, merged)
            factors = merged
        c = _product(coefficients) if coefficients else 1.0
        if c == 0:
            return ZERO
        if not factors:
            return num(c)
        factors.sort(key=factor_key)
        if len(factors) == 1:
            only = factors[0]
            if c == 1:
                return only
            if only[0] == CALL and only[1] == "add":  # c * (a + b) -> c*a + c*b
                return self.add([self.mul([num(c), t]) for t in only[3]])
            return (CALL, "mul", 0.0, (num(c), only))
        if c == 1:
            return (CALL, "mul", 0.0, tuple(factors))
        return (CALL, "mul", 0.0, (num(c), *factors))

    def _collect_contents(self, factors: list[tuple], coefficients: list[float]) -> list[tuple]:
        """Each sum among a product's factors gives its leading coefficient to the product's
        coefficient (``x*(2 + 2*y)`` is ``2*x*(1 + y)``, ``x*(y - x)`` is ``-x*(x - y)``).
        Past the deadline the sums stay as they are (the form is then incomplete)."""
        if self.past_deadline():
            return factors
        out: list[tuple] = []
        for f in factors:
            if f[0] == CALL and f[1] == "add":
                c, f = self.divide_sum(f, _leading_coefficient(f))
                coefficients.append(c)
                self._absorb(f, coefficients, out)
            else:
                out.append(f)
        return out

    def divide_sum(self, total: tuple, c: float) -> tuple[float, tuple]:
        """``total`` as ``c * rest`` (each coefficient divided by ``c``, so the term that had
        coefficient ``c`` has exactly 1); (1, total) when ``c`` is 1, 0 or not finite."""
        if c == 1 or c == 0 or not math.isfinite(c):
            return 1.0, total
        terms = []
        for term in total[3]:
            if term[0] == NUM:
                terms.append(num(value_of(term) / c))
            else:
                tc, body = split_coefficient(term)
                terms.append(_with_coefficient(tc / c, body))
        return c, self.add(terms)

    # -- powers -------------------------------------------------------------------------------
    def pow(self, base: tuple, exponent: tuple) -> tuple:
        if exponent[0] == NUM:
            p = value_of(exponent)
            if p == 0:
                return ONE
            if p == 1:
                return base
            if base[0] == NUM:
                return _fold("pow", (value_of(base), p))
            if base[0] == CALL:
                op, args = base[1], base[3]
                if op == "pow":
                    inner, a = args
                    if a[0] == NUM:  # (x**a)**p
                        av = value_of(a)
                        if is_integer(p) or not is_even(av):
                            return self.pow(inner, num(av * p))
                        return self.pow(self.abs(inner), num(av * p))  # (x**2)**0.5 = |x|
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
                elif op == "add":  # (2 + 2*y)**p -> 2**p * (1 + y)**p; (y - x)**2 -> (x - y)**2
                    lead = _leading_coefficient(base)
                    c, rest = self.divide_sum(base, lead if is_integer(p) else abs(lead))
                    if c != 1:
                        return self.mul([_fold("pow", (c, p)), self.pow(rest, exponent)])
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
    def exp(self, arg: tuple) -> tuple:
        if arg[0] == NUM:
            return _fold("exp", (value_of(arg),))
        if is_call(arg, "log"):
            return arg[3][0]
        if is_call(arg, "mul") and len(arg[3]) == 2 and arg[3][0][0] == NUM and is_call(arg[3][1], "log"):
            return self.pow(arg[3][1][3][0], arg[3][0])  # exp(c*log(u)) -> u**c
        if is_call(arg, "add"):
            pulled: list[tuple] = []
            kept: list[tuple] = []
            for term in arg[3]:
                if term[0] == NUM:
                    pulled.append(_fold("exp", (value_of(term),)))
                    continue
                c, body = split_coefficient(term)
                if is_call(body, "log"):
                    pulled.append(self.pow(body[3][0], num(c)))
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
            return _fold("log", (value_of(arg),))
        if arg[0] == CALL:
            op, args = arg[1], arg[3]
            if op == "exp":
                return args[0]
            if op == "add":  # log(2 + 2*x) -> log(2) + log(1 + x), as log(2*(1 + x)) would split
                c, rest = self.divide_sum(arg, abs(_leading_coefficient(arg)))
                if c != 1:
                    return self.add([_fold("log", (c,)), self.log(rest)])
            if op == "pow" and args[1][0] == NUM:  # log(x**p) -> p*log(x), p*log|x| for even p
                p = value_of(args[1])
                inner = self.abs(args[0]) if is_even(p) else args[0]
                return self.mul([args[1], self.log(inner)])
            if op == "mul":  # log(a*b) = log(a) + log(b) when a >= 0: split such factors out
                pulled, kept = [], []
                for f in args:
                    if f[0] == NUM and value_of(f) not in (1.0, -1.0):
                        pulled.append(_fold("log", (abs(value_of(f)),)))
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
            return _fold("abs", (value_of(arg),))
        if nonnegative(arg, self.positive):
            return arg
        if is_call(arg, "mul") and arg[3][0][0] == NUM:  # |c*x| -> |c|*|x|
            c, rest = split_coefficient(arg)
            return self.mul([num(abs(c)), self.abs(rest)])
        if is_call(arg, "add"):  # |2 + 2*x| -> 2*|1 + x|
            c, rest = self.divide_sum(arg, abs(_leading_coefficient(arg)))
            if c != 1:
                return self.mul([num(c), self.abs(rest)])
        if can_extract_minus(arg):
            return self.abs(self.negate(arg))
        return (CALL, "abs", 0.0, (arg,))
