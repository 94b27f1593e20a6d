"""Which shipped formulas can have out-of-range (OOD) points? Every formula of every set is drawn
with ``ood=True`` (8 points of each split, run seed 0, draw 0); prints, per set, the formulas, how
many came without OOD points, the first few of their ids, and the seconds the set took.

docs/sampling.md ("Out-of-range (OOD) points") quotes the counts; tests/catalogs/test_ood_sets.py
checks every set (SynEq on a subsample) and why those formulas have none.

Run: python benchmarks/ood_coverage.py [SET ...]
"""

from __future__ import annotations

import sys
import time

from srbf.catalogs.loader import list_catalogs, load_catalog
from srbf.catalogs.sampling import ProblemSampler


def main(names: list[str]) -> None:
    started = time.perf_counter()
    total = without = 0
    for name in names or list_catalogs():
        catalog = load_catalog(name)
        t0 = time.perf_counter()
        missing = []
        for entry in catalog.entries:
            problem = ProblemSampler(entry, catalog=catalog.name, catalog_version=catalog.version).sample(
                seed=0, draw=0, n_support=8, n_validation=8, ood=True, n_ood=8)  # fmt: skip
            if problem.placeholder_reason or problem.ood_reason:
                missing.append(entry.id)
        total, without = total + len(catalog.entries), without + len(missing)
        shown = ", ".join(missing[:4]) + (", ..." if len(missing) > 4 else "")
        print(f"{name:20s} {len(catalog.entries):5d} formulas, {len(missing):4d} without OOD points"
              f"{f' ({shown})' if missing else ''}  {time.perf_counter() - t0:.2f} s")
    print(f"all: {total} formulas, {without} without OOD points, {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main(sys.argv[1:])
