"""The canonical form's rewriting engine: the rules that turn a tree into its canonical node.

``Rewriter.canon`` walks an srbf tree bottom-up; its smart constructors (``add``, ``mul``,
``apply`` here, ``pow``, ``exp``, ``log``, ``abs`` in ``canonical_powers``) take canonical
children and return a canonical node, which is what makes the form idempotent. The rules are
listed in docs/canonical.md. Kept apart from the public API (``canonical``) so that the rules read
in one piece, without the caching and conversion around them; numbers are folded here with
exactly rounded sums and the evaluator's own kernels, so a form does not depend on the order its
terms came in.
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
    fold,
    is_call,
    num,
    snap,
    split_coefficient,
    sum_content,
    value_of,
)
from srbf.expr.canonical_powers import PowerRules
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


def _fsum(values: list[float]) -> float:
    """Exactly rounded, so the result does not depend on the order the terms came in; snapped
    (``snap``, to the ulps of the largest addend) when it adds several numbers."""
    if len(values) == 1:
        return values[0]
    try:
        total = math.fsum(values)
    except (OverflowError, ValueError):  # inf - inf, or an intermediate overflow
        return float(np.sum(np.array(sorted(values, key=repr))))
    return snap(total, max(map(abs, values)))


def _product(values: list[float]) -> float:
    if len(values) == 1:
        return values[0]
    result = 1.0
    for v in sorted(values, key=lambda v: (v != v, v if v == v else 0.0)):
        result *= v
    return snap(result)

# How the operators of a chain of sums or products unfold: for each operator, whether each argument
# is flipped (negated in a sum, inverted in a product); None for n-ary operators, nothing flipped.
# In a product a unary minus is a factor -1 (``_MINUS_ONE_LEAF``) in front of its argument.
_SUM_CHAIN = {"add": None, "sub": (False, True), "neg": (True,)}
_PRODUCT_CHAIN = {"mul": None, "div": (False, True), "neg": (False,), "inv": (True,)}
_MINUS_ONE_LEAF = (None, False)


def _chain_leaves(expr: Call, chain: dict) -> list[tuple[Expr | None, bool]]:
    """The operands of a chain of ``chain``'s operators in order, each with whether it is flipped;
    iterative, so a chain's length costs memory, not Python frames. An operator with another
    number of arguments than its rule is an operand."""
    leaves: list[tuple[Expr | None, bool]] = []
    stack = [(expr, False)]
    while stack:
        node, flipped = stack.pop()
        flips = chain.get(node.op, ()) if type(node) is Call else ()
        if flips is None:
            stack.extend((arg, flipped) for arg in reversed(node.args))
        elif flips and len(flips) == len(node.args):
            if chain is _PRODUCT_CHAIN and node.op == "neg":
                leaves.append(_MINUS_ONE_LEAF)
            stack.extend((arg, flipped != flip) for arg, flip in reversed(tuple(zip(node.args, flips))))
        else:
            leaves.append((node, flipped))
    return leaves


class Rewriter(PowerRules):
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
        leaves = _chain_leaves(expr, _SUM_CHAIN)
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
        leaves = _chain_leaves(expr, _PRODUCT_CHAIN)
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
            return fold(op, [value_of(arg) for arg in args])
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
        """Each sum among a product's factors has its denominators cleared (``w*(1 - v/c)`` is
        ``w*c**-1*(c - v)``) and gives its content (``sum_content``) to the product's coefficient
        (``x*(2 + 2*y)`` is ``2*x*(1 + y)``, ``x*(y - x)`` is ``-x*(x - y)``).
        Past the deadline the sums stay as they are (the form is then incomplete)."""
        if self.past_deadline():
            return factors
        out: list[tuple] = []
        for f in factors:
            if f[0] == CALL and f[1] == "add":
                f, denominator = self.clear_denominators(f)
                if denominator is not None:
                    self._absorb(denominator, coefficients, out)
                c, f = self.divide_sum(f, sum_content(f)) if f[0] == CALL and f[1] == "add" else (1.0, f)
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
                terms.append(num(snap(value_of(term) / c)))
            else:
                tc, body = split_coefficient(term)
                terms.append(_with_coefficient(snap(tc / c), body))
        return c, self.add(terms)

    def clear_denominators(self, total: tuple) -> tuple[tuple, tuple | None]:
        """A canonical sum ``s`` whose terms have factors with negative integer exponents, as
        ``s*D`` and ``D**-1`` (None when there is nothing to clear): ``D`` is the product of each
        such base to the largest of its negated exponents, so ``1 - v/c`` is ``c**-1 * (c - v)`` and
        ``1/a + n/b`` is ``(a*b)**-1 * (b + a*n)``. Order-independent: a property of the terms' set.
        Only bases that are not sums are cleared, and nothing is cleared when a term would become
        a number (``log(y) + 1/x`` stays: its implicit 1 would become a constant term that masking
        frees) or a sum (``2*(x + y)/z + x`` stays: ``2*x + 2*y + x*z`` would merge terms)."""
        needed: dict[tuple, float] = {}
        for term in total[3]:
            if term[0] != CALL:
                continue
            for f in (term[3] if term[1] == "mul" else (term,)):
                if f[0] == CALL and f[1] == "pow" and f[3][1][0] == NUM and not is_call(f[3][0], "add"):
                    p = value_of(f[3][1])
                    if p < 0 and p.is_integer() and needed.get(f[3][0], 0.0) < -p:
                        needed[f[3][0]] = -p
        if not needed:
            return total, None
        denominator = [self.pow(base, num(p)) for base, p in needed.items()]
        terms = [self.mul([term, *denominator]) for term in total[3]]
        if any(term[0] == NUM or is_call(term, "add") for term in terms):
            return total, None
        return self.add(terms), self.pow(self.mul(denominator), MINUS_ONE)
