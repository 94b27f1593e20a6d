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

from srbf.expr.masking import masked_levels, raw_skeleton, written_skeletons
from srbf.expr.tree import Expr, variables_of
from srbf.judge.distances import PreparedTree
from srbf.judge.length import count_constants, description_length, nesting, node_label, prefix_tokens

__all__ = ["FormulaFacts", "clear_cache", "describe", "structural_matches"]


@dataclass(eq=False)
class FormulaFacts:
    """What the judge derives from one formula, once (cached by tree): forms, tokens, lengths."""

    canonical: Expr
    complete: bool
    structure: Expr  # canonical form, every number masked
    exponents: Expr  # canonical form, fitted constants masked, exponents kept
    raw_structure: Expr  # as written, every number masked (srr_raw)
    written_structure: Expr  # as written in any order of terms and factors, every number masked
    written_exponents: Expr  # the same, fitted constants masked
    tokens: tuple[str, ...]  # prefix tokens of ``exponents`` (the skeleton)
    token_set: frozenset[str]
    variables: frozenset[str]
    constants: int
    nesting: int
    mdl: float
    _tree: PreparedTree | None = None

    @property
    def tree(self) -> PreparedTree:
        """The exponents-masked canonical tree prepared for Zhang-Shasha (built once)."""
        if self._tree is None:  # a described formula's skeleton is known; a truth read back is not kept
            known = _skeletons.get(self.exponents)
            self._tree = known.tree if known is not None else PreparedTree(self.exponents, node_label)
        return self._tree


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
    written_structure, written_exponents = written_skeletons(expr)
    return FormulaFacts(
        canonical=canonical,
        complete=bool(form.complete),
        structure=structure,
        exponents=exponents,
        raw_structure=raw_skeleton(expr),
        written_structure=written_structure,
        written_exponents=written_exponents,
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
    structure = pred.structure == truth.structure or pred.written_structure == truth.written_structure
    exponents = pred.exponents == truth.exponents or pred.written_exponents == truth.written_exponents
    return structure, exponents
