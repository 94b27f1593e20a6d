"""The feasible set of a core of n tasks (SymbolicArena's Appendix C.3, scaled from its n = 50).

Each constraint partitions the eligible tasks into categories and bounds how many of each a core
may hold:

- ``duplicate group`` and ``name``: at most one task each;
- ``family`` (the set): t_f = n (beta n_f / N + (1 - beta) / F), beta = 0.6, F families, n_f of
  the N eligible tasks in family f; between max(1, floor(t_f - 1)) and ceil(t_f + 2);
- ``difficulty``: a bin holding a share s of the eligible tasks takes between floor(0.7 n s) and
  ceil(1.3 n s) (Core50's 4-10 easy, 14-24 medium, 12-22 hard and 3-6 extreme of 50 are about
  that band around the population's shares);
- ``winner``: each probe that wins some task wins between max(1, round(0.06 n)) and ceil(0.4 n)
  of the core's (Core50: 3 to 20 of 50); tied tasks are not counted;
- the failure annotations, at most: ``limited`` ceil(0.16 n), ``one_sided`` ceil(0.04 n),
  ``unstable`` ceil(0.1 n), ``all_struggle`` ceil(0.1 n) (Core50: 8, 2, 5 and 5 of 50).

An upper bound of a winner or an annotation is raised to ceil(1.3 n s) when the category's share
s among the eligible tasks calls for more: Core50's caps keep rare problem tasks rare, but on
records where, say, a third of the tasks defeat every probe, a cap of 10 % would make every core
unrepresentative, or no core feasible.

A lower bound larger than what the eligible tasks offer is lowered to what they offer, so a
bound never asks for tasks that do not exist. ``check`` refuses a size no core can meet.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from srbf.distill.errors import DistillError

__all__ = ["BETA", "Constraint", "check", "constraints", "family_targets", "violations"]

BETA = 0.6
ANNOTATION_LIMITS = {"limited": 8 / 50, "one_sided": 2 / 50, "unstable": 5 / 50, "all_struggle": 5 / 50}
UNBOUNDED = 10**9
SLACK = 1.3  # the difficulty band, and how far above its population share an upper bound reaches


@dataclass(frozen=True)
class Constraint:
    """One constraint: each task's category (``labels``, codes into ``categories``) and the bounds
    per category (``low``, ``high``)."""

    name: str
    labels: np.ndarray
    categories: tuple[str, ...]
    low: np.ndarray
    high: np.ndarray

    def counts(self, subset: Sequence[int]) -> np.ndarray:
        return np.bincount(self.labels[list(subset)], minlength=len(self.categories))


def _constraint(name: str, values: Sequence, bounds: dict) -> Constraint:
    """``bounds``: category -> (low, high); a category it does not name is unbounded."""
    categories = tuple(sorted({str(v) for v in values}))
    code = {c: i for i, c in enumerate(categories)}
    labels = np.array([code[str(v)] for v in values], dtype=int)
    available = np.bincount(labels, minlength=len(categories))
    low = np.array([min(bounds.get(c, (0, UNBOUNDED))[0], available[i]) for i, c in enumerate(categories)])
    high = np.array([bounds.get(c, (0, UNBOUNDED))[1] for c in categories])
    return Constraint(name, labels, categories, low, high)


def _cap(limit: float, share: float, size: int) -> int:
    """An upper bound: the seed's share ``limit`` of the core, or 1.3 times the population's
    ``share`` where that is more (a bound never pushes a category below its own proportion)."""
    return math.ceil(max(limit, SLACK * share) * size)


def family_targets(counts: dict[str, int], size: int, beta: float = BETA) -> dict[str, float]:
    """t_f for each family from its task count (see the module docstring)."""
    total, families = sum(counts.values()), len(counts)
    return {f: size * (beta * n / total + (1 - beta) / families) for f, n in counts.items()}


def constraints(tasks: pd.DataFrame, size: int, *, beta: float = BETA) -> list[Constraint]:
    """The constraints on a core of ``size`` of the eligible ``tasks`` (descriptor rows)."""
    families = tasks["family"].value_counts().to_dict()
    targets = family_targets(families, size, beta)
    family = {f: (max(1, math.floor(t - 1)), math.ceil(t + 2)) for f, t in targets.items()}
    shares = tasks["difficulty_bin"].value_counts(normalize=True).to_dict()
    difficulty = {b: (math.floor((2 - SLACK) * size * s), math.ceil(SLACK * size * s)) for b, s in shares.items()}
    won = tasks["winner"].value_counts(normalize=True).to_dict()
    winners = {w: (max(1, round(0.06 * size)), _cap(0.4, share, size)) for w, share in won.items() if w}
    out = [
        _constraint("duplicate group", tasks["dup_group"], {g: (0, 1) for g in tasks["dup_group"]}),
        _constraint("name", tasks["name"], {n: (0, 1) for n in tasks["name"]}),
        _constraint("family", tasks["family"], family),
        _constraint("difficulty", tasks["difficulty_bin"], difficulty),
        _constraint("winner", tasks["winner"], winners),
    ]
    for annotation, share in ANNOTATION_LIMITS.items():
        flags = tasks[annotation].astype(bool)
        out.append(_constraint(annotation, flags, {"True": (0, _cap(share, float(flags.mean()), size))}))
    return out


def check(constraints_: Sequence[Constraint], size: int, eligible: int) -> None:
    """DistillError when no core of ``size`` can meet a constraint on its own."""
    if size < 1 or size > eligible:
        raise DistillError(f"--size {size}: the records have {eligible} eligible task(s); choose 1 to {eligible}")
    for c in constraints_:
        available = np.bincount(c.labels, minlength=len(c.categories))
        most = int(np.minimum(c.high, available).sum())
        if most < size:
            raise DistillError(f"--size {size}: at most {most} task(s) can meet the {c.name} constraint "
                               f"(one per {c.name} or its quotas); choose a smaller size")  # fmt: skip
        if int(c.low.sum()) > size:
            raise DistillError(f"--size {size}: the {c.name} constraint needs at least {int(c.low.sum())} tasks")


def violations(subset: Sequence[int], constraints_: Sequence[Constraint]) -> list[str]:
    """What ``subset`` breaks, one text per broken bound (empty: feasible)."""
    found = []
    for c in constraints_:
        counts = c.counts(subset)
        for i, category in enumerate(c.categories):
            if counts[i] < c.low[i] or counts[i] > c.high[i]:
                found.append(f"{c.name} {category}: {counts[i]} not in [{c.low[i]}, {c.high[i]}]")
    return found
