"""Every shipped set against the task schema of SymbolicArena (ID and OOD splits with their ranges):
each formula gives validation (ID) points inside its ranges and out-of-range (OOD) points from the
widened ranges, each with at least one coordinate outside the original box, or says why not.

The formulas that cannot have OOD points are the ones whose target is finite on (almost) nothing
outside their box; that is checked here independently, by evaluating the formula on the widened
box (docs/sampling.md lists them). ERBench SynEq is checked on every 25th formula to keep the test
fast; benchmarks/ood_coverage.py scans all 6,660 formulas and prints the counts per set.
"""

from __future__ import annotations

import numpy as np
import pytest

from srbf.catalogs.draws import ood_range
from srbf.catalogs.loader import list_catalogs, load_catalog
from srbf.catalogs.sampling import ProblemSampler
from srbf.expr import compile_expr, parse

# the formulas of a set (checked in full) that have no out-of-range points, and why
WITHOUT_OOD = {
    "erbench-densities": {"arcsine", "semicircular"},  # 1/sqrt(x(1-x)) on (0, 1), sqrt(1-x^2) on [-1, 1]
}
SUBSAMPLED = {"erbench-syneq": 25}  # every 25th formula
FLOOR = 0.01  # the smallest valid fraction the sampler's budget allows (docs/sampling.md)


def _magnitude(X: np.ndarray, specs) -> np.ndarray:
    """The values as the ranges describe them: |x| for a ``both``-sign variable, -x for ``negative``."""
    out = X.copy()
    for j, spec in enumerate(specs):
        if spec.sign == "both":
            out[:, j] = np.abs(out[:, j])
        elif spec.sign == "negative":
            out[:, j] = -out[:, j]
    return out


def _inside(X, specs, ranges) -> np.ndarray:
    lows = np.array([r.low for r in ranges])
    highs = np.array([r.high for r in ranges])
    M = _magnitude(X, specs)
    return (M >= lows - 1e-12 * np.abs(lows)) & (M <= highs + 1e-12 * np.abs(highs))


def _finite_fraction_outside(entry, n: int = 4_000) -> float:
    """Of uniform points of the widened box (every variable ``uniform``, sign ``range``) outside the
    original box, the fraction with a finite target: srbf's evaluator, not the sampler."""
    specs = entry.variables
    assert all(s.distribution == "uniform" and s.sign == "range" for s in specs), entry.id
    wide = [ood_range(s) for s in specs]
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.uniform(w.low, w.high, n) for w in wide])
    outside = ~_inside(X, specs, specs).all(axis=1)
    names = [s.name for s in specs]
    with np.errstate(all="ignore"):
        y = np.broadcast_to(compile_expr(parse(entry.formula, names), names)(X[outside]), (int(outside.sum()),))
    return float(np.isfinite(y).mean()) if outside.any() else 0.0


@pytest.mark.parametrize("name", list_catalogs())
def test_every_set_gives_id_and_ood_splits_as_the_task_schema_describes(name):
    catalog = load_catalog(name, admit=False)  # admission is tested elsewhere; here only the entries matter
    entries = catalog.entries[:: SUBSAMPLED.get(name, 1)]
    missing = set()
    for entry in entries:
        problem = ProblemSampler(entry, catalog=catalog.name, catalog_version=catalog.version).sample(
            seed=0, draw=0, n_support=8, n_validation=8, ood=True, n_ood=8)  # fmt: skip
        assert problem.placeholder_reason is None, (entry.id, problem.placeholder_reason)
        specs = entry.variables
        assert _inside(problem.X_validation, specs, specs).all(), entry.id  # ID: inside the ranges
        if problem.ood_reason is not None:
            assert problem.X_ood.shape == (0, len(specs)) and problem.y_ood.shape == (0,)
            missing.add(entry.id)
            continue
        wide = [ood_range(s) for s in specs]
        assert problem.X_ood.shape == (8, len(specs)) and np.isfinite(problem.y_ood).all(), entry.id
        assert _inside(problem.X_ood, specs, wide).all(), entry.id  # inside the widened box
        assert (~_inside(problem.X_ood, specs, specs)).any(axis=1).all(), entry.id  # outside the original
    if name in SUBSAMPLED:
        assert len(missing) < len(entries) / 10, f"{name}: {len(missing)} of {len(entries)} without OOD points"
    else:
        assert missing == WITHOUT_OOD.get(name, set())
    for entry in entries:
        if entry.id in missing:  # the reason holds: (almost) nothing finite outside the box
            assert _finite_fraction_outside(entry) < FLOOR, entry.id
