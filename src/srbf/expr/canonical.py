"""The canonical form: one standard way of writing a formula, so that rewritings compare equal.

``canonicalize(expr)`` rewrites a tree bottom-up with a fixed set of value-preserving rules
(flattened, sorted sums and products; subtraction, division, roots and reciprocals as sums and
powers; numbers folded; like terms and like factors combined; zeros dropped; a sum's leading
content collected the same way wherever the sum stands, by a rule on its set of terms that never
turns an implicit coefficient 1 into a literal, which also gives an even power of a difference one
orientation; denominators cleared; computed numbers snapped to nearby small fractions; see
docs/canonical.md for the full list). Two formulas that differ only in how they are written (``x*x`` and ``x**2``, a sum in
another order, ``x - y`` and ``x + (-1)*y``) get the same canonical tree. Formulas equal only by a
deeper identity (``sin(x)**2 + cos(x)**2``, ``(x + 1)**2`` expanded) stay different: the form is
a normaliser, not a theorem prover, and the judge that uses it is strict on purpose.

The canonical form is for *comparison*. Its rules keep values wherever both the original and the
rewritten formula are finite, but some change the domain: ``x/x`` becomes ``1`` (the original is
NaN at 0), ``cbrt(x)`` becomes ``x**(1/3)`` (NaN for negative x under NumPy), ``exp(log(x))``
becomes ``x``.

It runs on every prediction, so it is written on srbf's own tree (no SymPy), keeps a cache of
finished forms, and never hangs: past ``time_limit`` seconds of its own thread's CPU time (not wall
time, so that another process loading the machine does not change a form) it stops rewriting,
finishes the tree as written and says so with ``complete=False``.

This module is the public API and the cache of finished forms; the node representation is in
``canonical_nodes`` and the rewriting rules in ``canonical_rewrite``.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from srbf.expr.canonical_nodes import RAW, from_expr, to_expr
from srbf.expr.canonical_rewrite import Rewriter
from srbf.expr.tree import Expr

__all__ = ["CanonicalForm", "cache_info", "canonical", "canonicalize", "clear_cache"]

DEFAULT_TIME_LIMIT = 1.0
CACHE_SIZE = 4096  # finished forms of a few thousand formulas: a few tens of MB at most


@dataclass(frozen=True, slots=True)
class CanonicalForm:
    """A canonical tree; ``complete`` is False when the time limit cut the rewriting short (the
    tree is then value-equivalent to the input but only partly canonical)."""

    expr: Expr
    complete: bool


class _Cache:
    """A thread-safe LRU of finished canonical forms, keyed by the input tree."""

    def __init__(self, size: int):
        self.size = size
        self.data: OrderedDict = OrderedDict()
        self.lock = threading.Lock()
        self.hits = self.misses = 0

    def get(self, key):
        with self.lock:
            found = self.data.get(key)
            if found is None:
                self.misses += 1
                return None
            self.data.move_to_end(key)
            self.hits += 1
            return found

    def put(self, key, value) -> None:
        with self.lock:
            self.data[key] = value
            self.data.move_to_end(key)
            while len(self.data) > self.size:
                self.data.popitem(last=False)

    def clear(self) -> None:
        with self.lock:
            self.data.clear()
            self.hits = self.misses = 0


_CACHE = _Cache(CACHE_SIZE)


def clear_cache() -> None:
    """Forget every cached canonical form (and masked form)."""
    _CACHE.clear()


def cache_info() -> dict[str, int]:
    return {"hits": _CACHE.hits, "misses": _CACHE.misses, "size": len(_CACHE.data), "maxsize": _CACHE.size}


class CacheKey:
    """A cache key whose hash is computed once (hashing a large tree walks all of it)."""

    __slots__ = ("parts", "hash")

    def __init__(self, parts: tuple):
        self.parts = parts
        self.hash = hash(parts)

    def __hash__(self) -> int:
        return self.hash

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CacheKey) and self.hash == other.hash and self.parts == other.parts


def cache_key(*parts) -> CacheKey | None:
    """The key for ``parts``, or None for a tree too deep for the dataclass hash (not cached)."""
    try:
        return CacheKey(parts)
    except RecursionError:
        return None


def positive_set(positive) -> frozenset:
    if isinstance(positive, str):
        raise TypeError(f"positive must be a collection of variable names, got the string {positive!r}")
    return frozenset(positive)


def canonical_node(
    expr: Expr, time_limit: float = DEFAULT_TIME_LIMIT, positive: frozenset = frozenset(), with_node: bool = True
) -> tuple[CanonicalForm, tuple | None]:
    """The canonical form and (``with_node``) its internal node, for the masking module. Only the
    form of a finished canonicalisation is cached; the node is rebuilt from it on a hit."""
    if not isinstance(time_limit, (int, float)) or not time_limit > 0:
        raise ValueError(f"time_limit must be a positive number of seconds, got {time_limit!r}")
    start = time.thread_time()
    key = cache_key("canonical", positive, expr)
    if key is not None:
        found = _CACHE.get(key)
        if found is not None:
            return found, (from_expr(found.expr) if with_node else None)
    rewriter = Rewriter(start + time_limit, positive)
    try:
        with np.errstate(all="ignore"):
            node = rewriter.canon(expr)
        result = (CanonicalForm(to_expr(node), not rewriter.timed_out), node)
    except RecursionError:  # nesting deeper than Python's stack: give up on this formula
        return CanonicalForm(expr, False), (RAW, "", 0.0, (), expr)
    if key is not None and not rewriter.timed_out:
        _CACHE.put(key, result[0])
    return result


def canonicalize(expr: Expr, *, time_limit: float = DEFAULT_TIME_LIMIT, positive=()) -> CanonicalForm:
    """The canonical form of ``expr``, computed within ``time_limit`` seconds.

    ``positive`` names variables known never to be negative on the problem's domain (from the
    catalog's ranges); rules that hold only for such values (``sqrt(x*y)`` -> ``x**0.5*y**0.5``,
    ``log(x*y)`` -> ``log(x) + log(y)``, ``abs(x)`` -> ``x``) then apply to them. Compare two
    formulas only under the same ``positive``.

    Deterministic: equal inputs give equal outputs, on every machine. Finished forms are cached;
    a form cut short by the time limit is returned with ``complete=False`` and not cached.
    """
    return canonical_node(expr, time_limit, positive_set(positive), with_node=False)[0]


def canonical(expr: Expr, *, time_limit: float = DEFAULT_TIME_LIMIT, positive=()) -> Expr:
    """The canonical tree of ``expr``: equal formulas written differently get the same tree.

    Parameters
    ----------
    expr : Expr
        A parsed formula (:func:`srbf.expr.parse`).
    time_limit : float, default 1.0
        Seconds the rewriting may take; a form cut short is returned as far as it got.
    positive : collection of str, default ()
        Variables never negative on the problem's domain: rules that hold only for such values
        (``log(x*y)`` -> ``log(x) + log(y)``, ``abs(x)`` -> ``x``) then apply to them.

    Returns
    -------
    Expr
        The canonical tree (:func:`canonicalize` also says whether it is complete).

    Raises
    ------
    TypeError
        ``positive`` given as one string rather than a collection of names.

    Notes
    -----
    Deterministic on every machine and cached, so the judge can compare forms by equality;
    docs/canonical.md lists the rules. Compare two formulas only under the same ``positive``.

    Examples
    --------
    >>> from srbf.expr import parse, to_infix
    >>> to_infix(canonical(parse("x + x + 2*x")))
    '4 * x'
    >>> canonical(parse("x + x")) == canonical(parse("2*x"))
    True
    >>> to_infix(canonical(parse("log(x*y)"))), to_infix(canonical(parse("log(x*y)"), positive=["x", "y"]))
    ('log(x * y)', 'log(x) + log(y)')
    """
    return canonical_node(expr, time_limit, positive_set(positive), with_node=False)[0].expr
