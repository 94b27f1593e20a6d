"""The search for the core: greedy initialisation, then feasible single swaps, from several starts
(SymbolicArena's Appendix C.3, "Search and freezing").

A start adds one task at a time, the one that raises J most among those that keep every upper
bound and leave enough free places to still meet every lower bound (start 0 begins from the
greedy choice; start s > 0 from a task drawn at random with the seed). When the bounds together
leave no such task (each is checked on its own), the start takes the best task anyway and then
repairs: it makes the swap that most reduces the total violation (the tasks over an upper bound
plus those missing to a lower bound, summed over the constraints), J breaking ties, until the
core is feasible or no swap reduces it (the start then fails). Then it swaps: of every
pair (a task in the core, a task outside) whose exchange keeps the core feasible, it makes the
one that raises J most, until none does. The best core of all starts is kept (the first on a tie,
so the result depends only on the records, the size, the starts and the seed).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from srbf.distill.constraints import Constraint, violations
from srbf.distill.objective import Objective, Terms

__all__ = ["DEFAULT_STARTS", "SearchResult", "search"]

DEFAULT_STARTS = 8
IMPROVEMENT = 1e-12  # a swap must raise J by more than this (no cycling on rounding)


@dataclass(frozen=True)
class SearchResult:
    """The best core (indices, sorted), its terms, and each start's final J and swap count."""

    subset: tuple[int, ...]
    terms: Terms
    starts: list[dict] = field(default_factory=list)


def _admissible(subset: list[int], candidates: np.ndarray, constraints: Sequence[Constraint], size: int) -> np.ndarray:
    """Candidates that keep every upper bound and leave every lower bound reachable."""
    ok = np.ones(len(candidates), dtype=bool)
    left = size - len(subset) - 1  # free places after this one
    for c in constraints:
        counts = c.counts(subset)
        deficit = np.maximum(c.low - counts, 0).sum()
        cat = c.labels[candidates]
        ok &= counts[cat] + 1 <= c.high[cat]
        ok &= deficit - (counts[cat] < c.low[cat]) <= left
    return ok


def _swappable(subset: list[int], out: int, candidates: np.ndarray, constraints: Sequence[Constraint]) -> np.ndarray:
    """Candidates that may replace ``out`` with the core staying feasible."""
    ok = np.ones(len(candidates), dtype=bool)
    for c in constraints:
        counts = c.counts(subset)
        cat_out, cat = c.labels[out], c.labels[candidates]
        same = cat == cat_out
        ok &= same | ((counts[cat] + 1 <= c.high[cat]) & (counts[cat_out] - 1 >= c.low[cat_out]))
    return ok


def _greedy(objective: Objective, constraints: Sequence[Constraint], size: int, first: int | None) -> list[int]:
    subset: list[int] = [] if first is None else [int(first)]
    everything = np.arange(objective.n_tasks)
    while len(subset) < size:
        outside = np.setdiff1d(everything, subset)
        candidates = outside[_admissible(subset, outside, constraints, size)]
        if len(candidates) == 0:  # the bounds conflict: take the best, repair later
            candidates = outside
        values = objective.add_values(subset, candidates)
        subset.append(int(candidates[int(np.argmax(values))]))
    return subset


def _violation_after(subset: list[int], out: int, candidates: np.ndarray, constraints: Sequence[Constraint]) -> np.ndarray:
    """The total violation of ``subset`` with ``out`` replaced by each candidate."""
    total = np.zeros(len(candidates))
    for c in constraints:
        counts = c.counts(subset)
        counts[c.labels[out]] -= 1
        base = np.maximum(counts - c.high, 0) + np.maximum(c.low - counts, 0)
        cat = c.labels[candidates]
        after = counts[cat] + 1
        changed = np.maximum(after - c.high[cat], 0) + np.maximum(c.low[cat] - after, 0)
        total += base.sum() - base[cat] + changed
    return total


def _repair(objective: Objective, constraints: Sequence[Constraint], subset: list[int]) -> list[int] | None:
    everything = np.arange(objective.n_tasks)
    while violations(subset, constraints):
        outside = np.setdiff1d(everything, subset)
        now = _violation_after(subset, subset[0], np.array([subset[0]]), constraints)[0]
        best = (now, -np.inf, None, None)
        for out in sorted(subset):
            violation = _violation_after(subset, out, outside, constraints)
            values = objective.swap_values(subset, out, outside)
            k = int(np.lexsort((-values, violation))[0])
            if violation[k] < best[0] or (best[2] is not None and violation[k] == best[0] and values[k] > best[1]):
                best = (float(violation[k]), float(values[k]), out, int(outside[k]))
        if best[2] is None:
            return None
        subset = [best[3] if i == best[2] else i for i in subset]
    return subset


def _swaps(objective: Objective, constraints: Sequence[Constraint], subset: list[int]) -> tuple[list[int], int]:
    everything = np.arange(objective.n_tasks)
    current = objective.terms(subset).j
    swaps = 0
    while True:
        outside = np.setdiff1d(everything, subset)
        best = (current + IMPROVEMENT, None, None)
        for out in sorted(subset):
            candidates = outside[_swappable(subset, out, outside, constraints)]
            if len(candidates) == 0:
                continue
            values = objective.swap_values(subset, out, candidates)
            k = int(np.argmax(values))
            if values[k] > best[0]:
                best = (float(values[k]), out, int(candidates[k]))
        if best[1] is None:
            return subset, swaps
        subset = [best[2] if i == best[1] else i for i in subset]
        current, swaps = best[0], swaps + 1


def search(objective: Objective, constraints: Sequence[Constraint], size: int, *,
           starts: int = DEFAULT_STARTS, seed: int = 0) -> SearchResult | None:  # fmt: skip
    """The best feasible core of ``size`` found from ``starts`` starts; None when no start found one."""
    rng = np.random.default_rng(seed)
    firsts = [None] + [int(i) for i in rng.permutation(objective.n_tasks)[: max(starts - 1, 0)]]
    best, log = None, []
    for number, first in enumerate(firsts):
        subset = _repair(objective, constraints, _greedy(objective, constraints, size, first))
        if subset is None:
            log.append({"start": number, "first": first, "j": None, "swaps": 0})
            continue
        subset, swaps = _swaps(objective, constraints, subset)
        terms = objective.terms(subset)
        log.append({"start": number, "first": first, "j": terms.j, "swaps": swaps})
        if best is None or terms.j > best[1].j:
            best = (tuple(sorted(subset)), terms)
    return None if best is None else SearchResult(best[0], best[1], log)
