"""What the searching built-ins (prior, enumeration) share: skeleton normal form, option checks,
and the bookkeeping of a search (fit cache, incumbent, reported trajectory, Pareto front).

The normal form is deliberately simple; it removes the duplicates that cost the most fits without
any algebra system:

1. a subtree without variables is one free constant (``sin(C)``, ``C + C`` and ``x - x``,
   ``x / x`` all become ``C``);
2. ``a - C`` becomes ``a + C`` and ``a / C`` becomes ``a * C`` (the constant is free either way);
3. chains of ``+`` and of ``*`` are flattened, hold at most one constant, are sorted (constant
   first, then by printed text) and rebuilt left-nested: ``(x1 + C) + x0`` is ``C + x0 + x1``.

Normal forms are hereditary (every subtree of a normal form is one), which is what lets the
enumeration build size ``s`` from the normal forms of smaller sizes without missing any.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from srbf.expr import Call, Expr, Var, count_nodes, to_infix
from srbf.expr.operators import OPERATORS
from srbf.methods.builtin.fitting import FVU_FLOOR, ConstantFitter, FitOutcome
from srbf.methods.builtin.skeletons import SLOT, SLOT_NAME

DEFAULT_UNARY = ("sin", "cos", "exp", "log", "sqrt")
DEFAULT_BINARY = ("add", "sub", "mul", "div")
_CHAINS = ("add", "mul")


# --- options ---------------------------------------------------------------------------------


def check_options(method: str, options: Mapping[str, Any] | None, defaults: Mapping[str, Any]) -> dict[str, Any]:
    """``defaults`` updated with ``options``; an unknown key is an error naming the known ones."""
    options = dict(options or {})
    unknown = sorted(set(options) - set(defaults))
    if unknown:
        known = ", ".join(sorted(defaults))
        raise ValueError(f"{method}: unknown option(s) {', '.join(map(repr, unknown))} (known options: {known})")
    merged = dict(defaults)
    merged.update(options)
    return merged


def check_operators(method: str, key: str, names: Sequence[str], arity: int) -> tuple[str, ...]:
    """Operator names from the option ``key``, each checked against the table and its arity."""
    if isinstance(names, str) or not isinstance(names, Sequence):
        raise ValueError(f"{method}: option {key!r} must be a list of operator names, got {names!r}")
    out = []
    for name in names:
        op = OPERATORS.get(name)
        if op is None:
            raise ValueError(f"{method}: option {key!r}: unknown operator {name!r} (see srbf.expr.OPERATORS)")
        if op.arity != arity:
            raise ValueError(f"{method}: option {key!r}: operator {name!r} takes {op.arity} argument(s), not {arity}")
        if name not in out:
            out.append(name)
    return tuple(out)


def check_number(method: str, key: str, value: Any, *, minimum: float, integer: bool = False) -> Any:
    """A numeric option at least ``minimum`` (an integer when ``integer``)."""
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and value >= minimum
    if ok and integer:
        ok = float(value).is_integer()
    if not ok:
        kind = "an integer" if integer else "a number"
        raise ValueError(f"{method}: option {key!r} must be {kind} >= {minimum}, got {value!r}")
    return int(value) if integer else float(value)


# --- normal form -----------------------------------------------------------------------------


def is_slot(expr: Expr) -> bool:
    return isinstance(expr, Var) and expr.name == SLOT_NAME


def has_variables(expr: Expr) -> bool:
    if isinstance(expr, Var):
        return expr.name != SLOT_NAME
    if isinstance(expr, Call):
        return any(has_variables(arg) for arg in expr.args)
    return False


def normal_form(expr: Expr) -> Expr:
    """The skeleton's normal form (see the module docstring); numbers and constants are kept."""
    if not has_variables(expr):
        return SLOT
    if not isinstance(expr, Call):
        return expr
    args = tuple(normal_form(arg) for arg in expr.args)
    return combine(expr.op, args)


def combine(op: str, args: tuple[Expr, ...]) -> Expr:
    """The normal form of ``op(*args)`` for arguments already in normal form."""
    if not any(has_variables(arg) for arg in args):
        return SLOT
    if op in ("sub", "div"):
        left, right = args
        if left == right:
            return SLOT
        if is_slot(right):
            op = "add" if op == "sub" else "mul"
    if op in _CHAINS:
        return _chain(op, args)
    return Call(op, args)


def _chain(op: str, args: tuple[Expr, ...]) -> Expr:
    terms: list[Expr] = []
    for arg in args:
        terms.extend(_flatten(op, arg))
    constant = any(is_slot(t) for t in terms)
    terms = sorted((t for t in terms if not is_slot(t)), key=to_infix)
    if constant:
        terms.insert(0, SLOT)
    result = terms[0]
    for term in terms[1:]:
        result = Call(op, (result, term))
    return result


def _flatten(op: str, expr: Expr) -> list[Expr]:
    out, stack = [], [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, Call) and node.op == op:
            stack.extend(reversed(node.args))
        else:
            out.append(node)
    return out


def skeleton_key(expr: Expr) -> str:
    """The text that identifies a normal-form skeleton (constants print as ``_c``)."""
    return to_infix(expr)


# --- the search ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Candidate:
    """A fitted skeleton with its size (nodes, constants counted once each) and selection score."""

    outcome: FitOutcome
    size: int
    score: float
    order: int  # when it was first fitted; the earlier of two exact ties wins

    @property
    def rank(self) -> tuple[float, int, int]:
        return (self.score, self.size, self.order)


def selection_score(fvu: float, size: int, parsimony: float) -> float:
    """log10 of the support FVU (floored at FVU_FLOOR) plus ``parsimony`` per node; lower wins.

    With ``parsimony = 0`` this ranks by FVU alone, and exact fits (at or below the floor) tie and
    go to the smallest formula. A positive value is Flash-ANSR's rule (there ``gamma = 0.05``).
    """
    if not math.isfinite(fvu) or fvu != fvu:
        return math.inf
    return math.log10(max(fvu, FVU_FLOOR)) + parsimony * size


class Search:
    """Fits skeletons once each, keeps the incumbent, reports it whenever it improves."""

    def __init__(
        self,
        fitter: ConstantFitter,
        report: Callable[[str], Any] | None,
        *,
        parsimony: float = 0.0,
        front_size: int = 32,
    ):
        self.fitter = fitter
        self.report = report
        self.parsimony = parsimony
        self.front_size = front_size
        self.cache: dict[str, Candidate] = {}
        self.best: Candidate | None = None
        self.improvements = 0

    def consider(self, skeleton: Expr) -> Candidate:
        """Fit ``skeleton`` (a normal form) unless it was fitted before; update the incumbent."""
        key = skeleton_key(skeleton)
        known = self.cache.get(key)
        if known is not None:
            return known
        outcome = self.fitter.fit(skeleton)
        size = count_nodes(skeleton)
        candidate = Candidate(outcome, size, selection_score(outcome.fvu, size, self.parsimony), len(self.cache))
        self.cache[key] = candidate
        if self.best is None or candidate.rank < self.best.rank:
            self.best = candidate
            if math.isfinite(candidate.score):
                self.improvements += 1
                if self.report is not None:
                    self.report(outcome.text)
        return candidate

    def front(self) -> list[dict[str, Any]]:
        """The Pareto front of size (nodes) against support FVU (``loss``), smallest first (at most ``front_size``)."""
        best_by_size: dict[int, Candidate] = {}
        for candidate in self.cache.values():
            if not math.isfinite(candidate.outcome.fvu):
                continue
            held = best_by_size.get(candidate.size)
            if held is None or (candidate.outcome.fvu, candidate.order) < (held.outcome.fvu, held.order):
                best_by_size[candidate.size] = candidate
        front, best_fvu = [], math.inf
        for size in sorted(best_by_size):
            candidate = best_by_size[size]
            floored = max(candidate.outcome.fvu, FVU_FLOOR)
            if floored < best_fvu:
                best_fvu = floored
                front.append(
                    {"expression": candidate.outcome.text, "complexity": size, "loss": candidate.outcome.fvu}
                )
        return front[: self.front_size]

    def result(self, **internals: Any) -> dict[str, Any]:
        """The fit's return value: the incumbent, its constants, the front and the internals.

        A search that found nothing finite on the support points returns the fitted constant (the
        floor every search reaches), never a formula it already knows to be undefined there."""
        if self.best is None or not math.isfinite(self.best.score):
            self.consider(SLOT)
        outcome = self.best.outcome
        return {
            "expression": outcome.text,
            "constants": list(outcome.constants),
            "front": self.front(),
            "support_fvu": _finite_or_none(outcome.fvu),
            "skeleton": skeleton_key(self.best.outcome.skeleton),
            "candidates_fitted": len(self.cache),
            "improvements": self.improvements,
            **internals,
        }


def _finite_or_none(value: float) -> float | None:
    return value if math.isfinite(value) else None
