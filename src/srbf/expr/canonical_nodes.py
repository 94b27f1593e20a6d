"""The canonical form's internal nodes: what a node is, how to build and read one, and how to
convert between nodes and srbf's tree.

The rewriting engine (``canonical_rewrite``), the public API (``canonical``) and masking all work
on these nodes, so their representation lives in one place. A node is a plain tuple
``(kind, label, value, children)``: comparing two such tuples is the total order used to sort
sums and products (numbers < named constants < variables < operators; numbers by value, names
and operators by string, then children in turn), and tuples compare and hash at C speed. A
subtree left as written (the time limit ran out) is ``(RAW, "", 0.0, (), expr)``.
"""

from __future__ import annotations

import math

import numpy as np

from srbf.expr.operators import OPERATORS
from srbf.expr.tree import Call, Const, Expr, Num, Var, hashed_call

NUM, SYM, VAR, CALL, RAW = 0, 1, 2, 3, 9


def num(value: float) -> tuple:
    """The internal number node (NaN gets a label so that tuples stay totally ordered)."""
    value = float(value)
    if value != value:
        return (NUM, "nan", 0.0, ())
    return (NUM, "", value + 0.0 if value == 0 else value, ())  # -0.0 -> 0.0


def value_of(node: tuple) -> float:
    return math.nan if node[1] else node[2]


def call(op: str, args) -> tuple:
    return (CALL, op, 0.0, tuple(args))


ZERO, ONE, MINUS_ONE = num(0.0), num(1.0), num(-1.0)


def is_call(node: tuple, op: str) -> bool:
    return node[0] == CALL and node[1] == op


def split_coefficient(term: tuple) -> tuple[float, tuple]:
    """``c * rest`` -> (c, rest); a term without a leading number has coefficient 1."""
    if term[0] == CALL and term[1] == "mul" and term[3][0][0] == NUM:
        rest = term[3][1:]
        return value_of(term[3][0]), (rest[0] if len(rest) == 1 else (CALL, "mul", 0.0, rest))
    return 1.0, term


def sum_content(total: tuple) -> float:
    """The number a canonical sum gives out where a rule takes a constant out of it (a factor of
    a product, the base of a power, the argument of ``log`` or ``abs``), by a rule on the *set* of
    its non-constant terms, never on the order they came in:

    - its sign is that of the coefficient of the term whose body comes first in the canonical
      order (exactly one of ``s`` and ``-s`` has a positive one);
    - its size is 1 when some non-constant term has a coefficient of size 1, so that dividing
      never turns an implicit coefficient 1 into a literal that masking would free; otherwise the
      smallest size among them (``2*x + 4*y`` gives 2, ``2 + 4*x`` gives 4), so that
      ``x*(2*y + 4*z)`` and ``2*x*(y + 2*z)`` meet.

    1 for a sum without a non-constant term or with a coefficient that is not finite."""
    sign = 0.0
    smallest = math.inf
    for term in total[3]:
        if term[0] == NUM:
            continue
        c = split_coefficient(term)[0]
        if not sign:
            sign = -1.0 if c < 0 else 1.0
        size = abs(c)
        if not size < math.inf:  # inf or nan: take nothing out
            return 1.0
        if size == 1:
            return sign
        if size < smallest:
            smallest = size
    return sign * smallest if sign else 1.0


SNAP_DENOMINATOR = 12  # a folded number this close to p/q with q <= 12 becomes p/q
SNAP_ULPS = 4
SNAP_LIMIT = 1e6


def snap(value: float, scale: float = 0.0) -> float:
    """A number computed from others (a product or sum of coefficients, a quotient, a folded
    function) that lies within ``SNAP_ULPS`` units in the last place of p/q, q <= 12 and
    abs(p/q) <= 1e6, becomes p/q (the smallest q first), so that rounding never decides a structural
    match: ``10**log10(x)`` folds its exponent to 0.9999999999999999, which is 1. The ulps are
    those of ``scale`` when it is larger than the value (the largest addend of a sum, so that a
    cancellation like 0.1 + 0.2 - 0.3 snaps to 0). Numbers written in a formula are never snapped."""
    size = abs(value)
    if not size < SNAP_LIMIT:  # also inf and nan
        return value
    if scale < size:
        scale = size
    if not scale < SNAP_LIMIT or scale == 0:
        return value
    tolerance = SNAP_ULPS * math.ulp(scale)
    for q in range(1, SNAP_DENOMINATOR + 1):
        p = round(value * q)
        if abs(value - p / q) <= tolerance:
            return p / q + 0.0
    return value


def fold(op: str, values) -> tuple:
    """Evaluate an operator on numbers with the evaluator's own kernel (same values, same NaNs),
    snapped (``snap``): ``exp(log(3))`` is 3, not 3.0000000000000004."""
    return num(snap(float(OPERATORS[op].kernel(*(np.float64(v) for v in values)))))


def factor_key(factor: tuple) -> tuple:
    """The sort key of a product's factor: its base, then its exponent (1 when it is no power).
    Like bases are merged first, so the base alone decides in a canonical product."""
    if factor[0] == CALL and factor[1] == "pow":
        return factor[3]
    return (factor, ONE)


def is_integer(p: float) -> bool:
    return p == p and p not in (math.inf, -math.inf) and p.is_integer()


def is_even(p: float) -> bool:
    return is_integer(p) and p % 2 == 0


def can_extract_minus(node: tuple) -> bool:
    """True if ``node`` reads as ``-(something)``: a negative number, a product with a negative
    coefficient, or a sum whose first non-constant term has a negative coefficient. Exactly one of
    ``s`` and ``-s`` qualifies for a canonical sum (negation keeps the bodies and their order)."""
    kind = node[0]
    if kind == NUM:
        return value_of(node) < 0
    if kind != CALL:
        return False
    if node[1] == "mul":
        first = node[3][0]
        return first[0] == NUM and value_of(first) < 0
    if node[1] == "add":
        for term in node[3]:
            if term[0] != NUM:
                return split_coefficient(term)[0] < 0
    return False


def nonnegative(node: tuple, positive: frozenset = frozenset()) -> bool:
    """True for a node known to be >= 0 wherever it is real: nonnegative numbers, the variables
    in ``positive``, exp, abs, cosh, acos, acosh, even powers, fractional powers (NaN below 0),
    and sums and products of such nodes."""
    kind = node[0]
    if kind == NUM:
        return value_of(node) >= 0
    if kind == VAR:
        return node[1] in positive
    if kind != CALL:
        return False
    op = node[1]
    if op in ("exp", "abs", "cosh", "acos", "acosh"):
        return True
    if op == "pow":
        base, exponent = node[3]
        if exponent[0] == NUM:
            p = value_of(exponent)
            if is_even(p) or (p == p and not is_integer(p)):
                return True
        return nonnegative(base, positive)
    if op in ("add", "mul"):
        return all(nonnegative(arg, positive) for arg in node[3])
    return False


def to_expr(node: tuple, hashed: bool = False) -> Expr:
    """An internal node back to srbf's tree (sums and products n-ary; iterative for deep trees).
    ``hashed``: each call's hash computed as it is built, for a tree that will be compared (far
    cheaper than the hash a call computes on first use)."""
    make = hashed_call if hashed else Call
    out: list[Expr] = []
    stack: list[tuple] = [node]  # a node, or (node,): its children are done, build it
    pop, push, append = stack.pop, stack.append, out.append
    leaves: dict[tuple, Expr] = {}  # one tree node per distinct leaf: masks and variables recur
    while stack:
        current = pop()
        kind = current[0]
        if kind == CALL:
            push((current,))
            stack.extend(reversed(current[3]))
        elif kind == NUM or kind == VAR or kind == SYM:
            leaf = leaves.get(current)
            if leaf is None:
                leaf = leaves[current] = (Num(math.nan if current[1] else current[2]) if kind == NUM
                                          else Var(current[1]) if kind == VAR else Const(current[1]))  # fmt: skip
            append(leaf)
        elif kind == RAW:
            append(current[4])
        else:  # (node,): a call whose arguments are the last of ``out``
            current = kind
            n = len(current[3])
            args = tuple(out[len(out) - n:])
            del out[len(out) - n:]
            append(make(current[1], args))
    return out[0]


def from_expr(expr: Expr) -> tuple:
    """srbf's tree to an internal node as written (no rewriting, iterative for deep trees)."""
    out: list[tuple] = []
    stack: list[tuple[Expr, bool]] = [(expr, False)]
    while stack:
        node, done = stack.pop()
        kind = type(node)
        if kind is Num:
            out.append(num(node.value))
        elif kind is Var:
            out.append((VAR, node.name, 0.0, ()))
        elif kind is Const:
            out.append((SYM, node.name, 0.0, ()))
        elif done:
            n = len(node.args)
            args = tuple(out[len(out) - n:])
            del out[len(out) - n:]
            out.append((CALL, node.op, 0.0, args))
        else:
            stack.append((node, True))
            stack.extend((arg, False) for arg in reversed(node.args))
    return out[0]
