"""The six axes of SymbolicArena (its Sections 3.3 and E), per run and per task, on [0, 1].

The formulas live in the judge because two passes use them: ``srbf score`` stores the five
per-run axes of every prediction as metrics (``judge.run_axes``), and ``srbf arena score``
aggregates them with STAB (``srbf.arena``). One definition of each, here.

- ``phi``: the bounded log-error map of an NMSE: r = clip(log10(max(x, eps)), l_min, l_max),
  phi = (l_max - r) / (l_max - l_min), with l_min = -12, l_max = 2, eps = 1e-12; an invalid or
  unevaluable output (None, NaN, inf) has quality 0.
- ID and OOD: ``phi`` of the final formula's NMSE on the validation (ID) and out-of-range points.
- SYM: 1 when the judge finds the formula equivalent to the truth, else
  0.5 (S_tree F_v F_o)^(1/3); 0 for an invalid formula (``sym_score``).
- MIN: min(1, C_truth / C_prediction) over the simplified trees' sizes; 0 when invalid.
- EFF: the mean over the checkpoints of q(t) / q*, q(t) = (q_ID(t) + q_OOD(t)) / 2 (q_ID(t) alone
  when the run has no OOD points), q* = max q(t); an unavailable checkpoint counts as q(t) = 0, a
  run with q* = 0 scores 0, a run without any reported incumbent has no EFF ("no trajectory").
- STAB per task over its K >= 2 repeats: (N V C)^(1/3), N = 1 - mean over the K(K-1)/2 pairs of
  (|dq_ID| + |dq_OOD|) / 2, V = valid runs / K, C = the share of pairs of valid runs the judge
  finds the same answer.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from srbf.judge.fit import mean_of

__all__ = ["EPS", "L_MAX", "L_MIN", "Stability", "eff_score", "min_score", "phi", "quality", "stab_score", "sym_score"]

L_MIN, L_MAX, EPS = -12.0, 2.0, 1e-12


def phi(nmse: float) -> float:
    """The bounded log-error map of a valid NMSE ``x`` (>= 0; +inf maps to 0)."""
    r = min(max(math.log10(max(float(nmse), EPS)), L_MIN), L_MAX)
    return (L_MAX - r) / (L_MAX - L_MIN)


def quality(nmse: float | None) -> float:
    """``phi`` of an NMSE, 0 for an invalid or unevaluable output (None, NaN, inf, negative)."""
    if nmse is None or not math.isfinite(nmse) or nmse < 0:
        return 0.0
    return phi(nmse)


def sym_score(equivalent: bool, valid: bool, tree_similarity: float, variable_f1: float, operator_f1: float) -> float:
    """SYM of one run: 1 when equivalent, 0.5 (S_tree F_v F_o)^(1/3) otherwise, 0 when invalid."""
    if not valid:
        return 0.0
    if equivalent:
        return 1.0
    product = max(tree_similarity, 0.0) * max(variable_f1, 0.0) * max(operator_f1, 0.0)
    return 0.5 * product ** (1.0 / 3.0)


def min_score(size_truth: float | None, size_prediction: float | None, valid: bool) -> float:
    """MIN of one run: min(1, C_truth / C_prediction); 0 when invalid or not measured."""
    if not valid or not size_truth or not size_prediction:
        return 0.0
    return min(1.0, float(size_truth) / float(size_prediction))


def _qualities(nmse: Sequence[float]) -> list[float]:
    """``quality`` of each NMSE with NumPy's log10 (one call for all), the rest in Python floats
    (the same IEEE operations an array would do); NaN (an unavailable checkpoint) counts as 0 too."""
    nmse = [float(x) for x in nmse]
    valid = [x >= 0 and math.isfinite(x) for x in nmse]
    logs = iter(np.log10([max(x, EPS) for x, ok in zip(nmse, valid) if ok]).tolist())
    return [(L_MAX - min(max(next(logs), L_MIN), L_MAX)) / (L_MAX - L_MIN) if ok else 0.0 for ok in valid]


def eff_score(nmse_id: Sequence[float], nmse_ood: Sequence[float] | None) -> float | None:
    """EFF of one run from the NMSE of its incumbent at each checkpoint (NaN: unavailable, inf:
    invalid); None when it has no checkpoint values at all (no trajectory).

    A run holds few distinct incumbents over many checkpoints: each distinct (ID, OOD) pair is
    scored once, and the mean is NumPy's pairwise sum of the per-checkpoint ratios, or the count
    of ratios equal to 1 over the checkpoints when every ratio is 0 or 1 (then the sum is exact)."""
    n = len(nmse_id)
    if n == 0:
        return None
    if nmse_ood is not None and len(nmse_ood) != n:
        raise ValueError(f"{n} ID but {len(nmse_ood)} OOD checkpoint values")
    nmse_id = list(nmse_id)
    nmse_ood = None if nmse_ood is None else list(nmse_ood)
    points: list | None = None
    if nmse_id.count(nmse_id[0]) == n and (nmse_ood is None or nmse_ood.count(nmse_ood[0]) == n):
        # one incumbent throughout (a run that reported once, or early): one key, as Counter's
        # (``count`` compares as a dict does, identity first), without hashing every checkpoint;
        # its ratio is 0 or 1 (qualities are finite, in [0, 1]), so the exact count below returns
        # and ``points`` is not needed
        counts = {nmse_id[0] if nmse_ood is None else (nmse_id[0], nmse_ood[0]): n}
    else:
        points = nmse_id if nmse_ood is None else list(zip(nmse_id, nmse_ood))  # NaN keys stay the same objects
        counts = Counter(points)  # each distinct value, first seen first (a NaN object counts as itself)
    distinct = list(counts)
    if nmse_ood is None:
        q = _qualities(distinct)
    else:
        q = [(a + b) / 2.0 for a, b in zip(_qualities([i for i, _ in distinct]), _qualities([o for _, o in distinct]))]
    best = max(q)
    if best == 0.0:
        return 0.0
    ratios = [value / best for value in q]
    if all(r == 1.0 or r == 0.0 for r in ratios):
        return float(sum(count for count, r in zip(counts.values(), ratios) if r == 1.0)) / n
    ratio = dict(zip(distinct, ratios))
    return mean_of(np.array([ratio[key] for key in points]))


@dataclass(frozen=True)
class Stability:
    """One task's repeats: numerical consistency N, valid fraction V, structural consistency C."""

    n: float
    v: float
    c: float

    @property
    def score(self) -> float:
        return (self.n * self.v * self.c) ** (1.0 / 3.0)


def stab_score(
    runs: Sequence[tuple[bool, float, float | None]], same_answer: Mapping[tuple[int, int], bool]
) -> Stability | None:
    """STAB of one task from its K repeats, each ``(valid, q_ID, q_OOD or None)``, and the judge's
    verdict on each pair (i, j), i < j (positions in ``runs``; a missing pair counts as different).
    None with fewer than 2 repeats. Without OOD points dq_OOD is left out of N."""
    k = len(runs)
    if k < 2:
        return None
    pairs = list(combinations(range(k), 2))
    deltas, positive = [], 0
    for i, j in pairs:
        (valid_i, id_i, ood_i), (valid_j, id_j, ood_j) = runs[i], runs[j]
        if ood_i is None or ood_j is None:
            deltas.append(abs(id_i - id_j))
        else:
            deltas.append((abs(id_i - id_j) + abs(ood_i - ood_j)) / 2.0)
        positive += bool(valid_i and valid_j and same_answer.get((i, j), False))
    n = 1.0 - sum(deltas) / len(pairs)
    v = sum(1 for valid, _, _ in runs if valid) / k
    return Stability(n, v, positive / len(pairs))
