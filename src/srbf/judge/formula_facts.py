"""What the judge derives from one formula, once: canonical forms, masked skeletons, tokens, lengths.

``describe`` builds a ``FormulaFacts`` for a tree and caches it by tree (the truth of a problem and
the predictions many methods share are described once per process); what depends on the exponents
skeleton alone (its tokens, its tree prepared for Zhang-Shasha) is kept per skeleton, since
formulas that differ only in their fitted constants share it; ``clear_cache`` forgets both.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

from srbf.expr.masking import drop_zeros, masked_levels, raw_skeleton, written_nodes
from srbf.expr.tree import Call, Expr, Var, variables_of
from srbf.judge.distances import PreparedTree
from srbf.judge.length import count_constants, description_length, nesting, node_label, prefix_tokens

__all__ = ["FormulaFacts", "clear_cache", "describe", "structural_matches", "written_alike", "written_leaves"]


@dataclass(eq=False)
class FormulaFacts:
    """What the judge derives from one formula, once (cached by tree): forms, tokens, lengths.

    The written forms (``raw_structure`` for srr_raw, ``written_structure`` and
    ``written_exponents`` for the second route to a structural match) are built from ``source``,
    the formula as given, on first use: most comparisons are decided by the canonical forms or by
    ``leaves``, which written forms that are equal share (the multiset of variable names and the
    count of numbers), so most formulas never need them."""

    canonical: Expr
    complete: bool
    structure: Expr  # canonical form, every number masked
    exponents: Expr  # canonical form, fitted constants masked, exponents kept
    tokens: tuple[str, ...]  # prefix tokens of ``exponents`` (the skeleton)
    token_set: frozenset[str]
    variables: frozenset[str]
    constants: int
    nesting: int
    mdl: float
    source: Expr | None = None  # the formula as given (for the written forms); None when they are given
    _raw: Expr | None = None
    _written: tuple | None = None
    _leaves: tuple | None = None
    _tree: PreparedTree | None = None

    @property
    def tree(self) -> PreparedTree:
        """The exponents-masked canonical tree prepared for Zhang-Shasha (built once)."""
        if self._tree is None:  # a described formula's skeleton is known; a truth read back is not kept
            known = _skeletons.get(self.exponents)
            self._tree = known.tree if known is not None else PreparedTree(self.exponents, node_label)
        return self._tree

    @property
    def raw_structure(self) -> Expr:
        """As written, every number masked (``masking.raw_skeleton``): what srr_raw compares."""
        if self._raw is None:
            self._raw = raw_skeleton(self.source)
        return self._raw

    @property
    def written_structure(self) -> tuple:
        """As written in any order of terms and factors, every number masked (``masking.written_nodes``)."""
        if self._written is None:
            self._written = written_nodes(self.source)
        return self._written[0]

    @property
    def written_exponents(self) -> tuple:
        """The same, the exponents kept."""
        if self._written is None:
            self._written = written_nodes(self.source)
        return self._written[1]

    @property
    def leaves(self) -> tuple:
        """The variable names (sorted, with repeats) and the count of numbers of the formula as
        written, zeros worked out: equal for any two formulas whose written forms are equal."""
        if self._leaves is None:
            self._leaves = written_leaves(self.raw_structure if self.source is None else self.source)
        return self._leaves


def written_leaves(expr: Expr) -> tuple:
    """``FormulaFacts.leaves`` of ``expr`` (a plain stack: it runs on every formula compared)."""
    names: list[str] = []
    numbers = 0
    stack = [drop_zeros(expr)]
    pop, extend = stack.pop, stack.extend
    while stack:
        node = pop()
        kind = type(node)
        if kind is Call:
            extend(node.args)
        elif kind is Var:
            names.append(node.name)
        else:
            numbers += 1
    names.sort()
    return numbers, tuple(names)


_CACHE_SIZE = 8192
_cache: OrderedDict = OrderedDict()
_cache_lock = threading.Lock()


def clear_cache() -> None:
    """Forget the formulas the judge has described (canonical forms have their own cache)."""
    with _cache_lock:
        _cache.clear()
        _skeletons.clear()


class _Skeleton:
    """What depends on a described formula's exponents skeleton alone: its tokens and its tree for
    Zhang-Shasha. Formulas differ in their fitted constants, skeletons recur: each is derived once."""

    __slots__ = ("_tree", "expr", "token_set", "tokens")

    def __init__(self, expr: Expr):
        self.expr = expr
        self.tokens = tuple(prefix_tokens(expr))
        self.token_set = frozenset(self.tokens)
        self._tree: PreparedTree | None = None

    @property
    def tree(self) -> PreparedTree:
        if self._tree is None:
            self._tree = PreparedTree(self.expr, node_label)
        return self._tree


_skeletons: dict[Expr, _Skeleton] = {}


def _skeleton(expr: Expr) -> _Skeleton:
    """The skeleton ``expr``'s derived facts, made once per process (the oldest forgotten past
    ``_CACHE_SIZE``)."""
    found = _skeletons.get(expr)
    if found is None:
        found = _Skeleton(expr)
        with _cache_lock:
            _skeletons[expr] = found
            while len(_skeletons) > _CACHE_SIZE:
                del _skeletons[next(iter(_skeletons))]
    return found


def describe(expr: Expr, n_variables: int, time_limit: float, positive: frozenset[str]) -> FormulaFacts:
    """The judge's view of one formula, cached by tree when its canonical form is complete (a
    form cut short by the time limit is recomputed next time rather than kept)."""
    key = (expr, n_variables, positive)
    with _cache_lock:
        found = _cache.get(key)
        if found is not None:
            _cache.move_to_end(key)
            return found
    formula = _build(expr, n_variables, time_limit, positive)
    if formula.complete:
        with _cache_lock:
            _cache[key] = formula
            while len(_cache) > _CACHE_SIZE:
                _cache.popitem(last=False)
    return formula


def _build(expr: Expr, n_variables: int, time_limit: float, positive: frozenset[str]) -> FormulaFacts:
    form, exponents, structure = masked_levels(expr, time_limit=time_limit, positive=positive)
    canonical = form.expr
    skeleton = _skeleton(exponents)
    return FormulaFacts(
        canonical=canonical,
        complete=bool(form.complete),
        structure=structure,
        exponents=exponents,
        source=expr,
        tokens=skeleton.tokens,
        token_set=skeleton.token_set,
        variables=frozenset(variables_of(canonical)),
        constants=count_constants(canonical),
        nesting=nesting(canonical),
        mdl=description_length(canonical, n_variables),
    )


def structural_matches(pred: FormulaFacts, truth: FormulaFacts) -> tuple[bool, bool]:
    """Whether ``pred`` matches ``truth`` at the structure and at the exponents level: by its
    masked canonical form, or written like it up to the order of terms and factors
    (``written_skeletons``, docs/metrics.md)."""
    structure = pred.structure == truth.structure
    exponents = pred.exponents == truth.exponents
    if (structure and exponents) or pred.leaves != truth.leaves:
        return structure, exponents
    structure = structure or pred.written_structure == truth.written_structure
    exponents = exponents or pred.written_exponents == truth.written_exponents
    return structure, exponents


def written_alike(pred: FormulaFacts, truth: FormulaFacts) -> bool:
    """Whether the two formulas are identical as written, every number masked (srr_raw)."""
    return pred.leaves == truth.leaves and pred.raw_structure == truth.raw_structure
