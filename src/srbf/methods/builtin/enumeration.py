"""Enumeration: every formula skeleton up to a size, constants fitted, best by support FVU.

The exhaustive baseline. Skeletons are built size by size (size = nodes, each free constant one
node) from the leaves (the variables and one free constant ``C``) with the ``unary`` and
``binary`` operators, reduced to a simple normal form (``search.normal_form``: constant subtrees
fold into ``C``, ``a - C`` is ``a + C``, ``+`` and ``*`` chains are sorted with one constant at
most) and deduplicated, so each distinct skeleton is fitted once. Sizes are fitted smallest first
and all or nothing: when the next size would exceed ``max_skeletons`` fits (or its raw
combinations ``max_generated``), the search stops cleanly and says so (``complete_to_size``,
``truncated``). ``budget`` is the size bound in nodes.

Worker protocol: ``fit(X, y, *, budget, seed, variables, options, report) -> dict``.
"""

from __future__ import annotations

import time
from typing import Any, Callable, Sequence

import numpy as np

from srbf.expr import Expr, Var, count_nodes
from srbf.methods.builtin.fitting import FVU_FLOOR, ConstantFitter, warm_up
from srbf.methods.builtin.skeletons import SLOT
from srbf.methods.builtin.search import (
    DEFAULT_BINARY,
    DEFAULT_UNARY,
    Search,
    combine,
    check_number,
    check_operators,
    check_options,
    is_slot,
    skeleton_key,
)

NAME = "enumeration"
DEFAULT_SIZE = 5
DEFAULTS: dict[str, Any] = {
    "unary": list(DEFAULT_UNARY),
    "binary": list(DEFAULT_BINARY),
    "constants": True,  # offer the free constant C as a leaf
    "max_skeletons": 50_000,  # stop before a size whose skeletons would exceed this many fits
    "max_generated": 2_000_000,  # ... or whose raw combinations would exceed this many
    "restarts": 3,  # constant-fitting starts per skeleton
    "max_nfev": None,  # residual evaluations per start (None: 50 * (constants + 1))
    "parsimony": 0.0,  # selection: log10 FVU + parsimony * size
    "stop_on_exact": True,  # stop at the first exact fit: no later (larger) skeleton can outrank it
}


def skeletons_by_size(
    variables: Sequence[str],
    max_size: int,
    *,
    unary: Sequence[str] = DEFAULT_UNARY,
    binary: Sequence[str] = DEFAULT_BINARY,
    constants: bool = True,
    max_generated: float = float("inf"),
):
    """Yield ``(size, skeletons)`` for sizes 1, 2, ... up to ``max_size``: the distinct normal forms.

    Stops early (without yielding) at the first size whose raw combinations would exceed
    ``max_generated``.
    """
    leaves: list[Expr] = ([SLOT] if constants else []) + [Var(name) for name in variables]
    buckets: dict[int, list[Expr]] = {1: leaves}
    seen = {skeleton_key(leaf) for leaf in leaves}
    if max_size < 1:
        return
    yield 1, list(leaves)
    for size in range(2, max_size + 1):
        raw = len(unary) * len(buckets[size - 1]) + len(binary) * sum(
            len(buckets[i]) * len(buckets[size - 1 - i]) for i in range(1, size - 1)
        )
        if raw > max_generated:
            return
        fresh: list[Expr] = []

        def offer(op: str, args: tuple[Expr, ...]) -> None:
            tree = combine(op, args)
            key = skeleton_key(tree)
            if key in seen:
                return
            seen.add(key)
            if count_nodes(tree) == size:  # always true for normal forms; kept as a guard
                fresh.append(tree)

        for op in unary:
            for child in buckets[size - 1]:
                if not is_slot(child):
                    offer(op, (child,))
        for op in binary:
            for i in range(1, size - 1):
                for left in buckets[i]:
                    for right in buckets[size - 1 - i]:
                        offer(op, (left, right))
        buckets[size] = fresh
        yield size, fresh


def fit(
    X: np.ndarray,
    y: np.ndarray,
    *,
    budget: float | None,
    seed: int,
    variables: Sequence[str],
    options: dict[str, Any] | None = None,
    report: Callable[[str], Any] | None = None,
) -> dict[str, Any]:
    """Fit every skeleton up to ``budget`` nodes; return the best by support FVU."""
    started = time.perf_counter()
    opts = check_options(NAME, options, DEFAULTS)
    max_size = DEFAULT_SIZE if budget is None else check_number(NAME, "budget", budget, minimum=1, integer=True)
    unary = check_operators(NAME, "unary", opts["unary"], 1)
    binary = check_operators(NAME, "binary", opts["binary"], 2)
    max_skeletons = check_number(NAME, "max_skeletons", opts["max_skeletons"], minimum=1, integer=True)
    max_generated = check_number(NAME, "max_generated", opts["max_generated"], minimum=1)
    restarts = check_number(NAME, "restarts", opts["restarts"], minimum=1, integer=True)
    max_nfev = None if opts["max_nfev"] is None else check_number(NAME, "max_nfev", opts["max_nfev"], minimum=1, integer=True)
    parsimony = check_number(NAME, "parsimony", opts["parsimony"], minimum=0)

    fitter = ConstantFitter(X, y, variables, restarts=restarts, seed=seed, max_nfev=max_nfev)
    search = Search(fitter, report, parsimony=parsimony)
    counts: dict[int, int] = {}
    complete_to = 0
    stopped = None
    generator = skeletons_by_size(
        variables, max_size, unary=unary, binary=binary, constants=bool(opts["constants"]), max_generated=max_generated
    )
    exact = False
    for size, trees in generator:
        if len(search.cache) + len(trees) > max_skeletons:
            stopped = f"size {size} has {len(trees)} skeletons: over max_skeletons={max_skeletons} in all"
            break
        for tree in trees:
            search.consider(tree)
            if opts["stop_on_exact"] and search.best.outcome.fvu <= FVU_FLOOR:
                exact = True
                break
        if exact:
            stopped = f"exact fit at size {size}: no larger skeleton can outrank it"
            break
        counts[size] = len(trees)
        complete_to = size
    else:
        if complete_to < max_size:
            stopped = f"size {complete_to + 1} would combine more than max_generated={max_generated:g} trees"
    return search.result(
        complete_to_size=complete_to,
        truncated=complete_to < max_size and not exact,
        stop_reason=stopped,
        skeletons_per_size={str(k): v for k, v in counts.items()},
        fit_seconds=time.perf_counter() - started,
    )


def setup(options: dict[str, Any] | None = None) -> None:
    """Warm up SciPy's optimiser once per worker (first calls load lazily imported code)."""
    warm_up()
