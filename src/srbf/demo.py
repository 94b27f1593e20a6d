"""``make demo``: load every shipped set, draw one problem from each, and say what was drawn.

Until the runner exists this is the main job on the shipped data: it exercises loading,
admission, compilation and sampling end to end, offline.
"""

from __future__ import annotations

import sys
import time

import numpy as np


def main() -> int:
    from srbf.catalogs.loader import list_catalogs, load_catalog
    from srbf.catalogs.sampling import sample_problem

    started = time.perf_counter()
    names = list_catalogs()
    print(f"Drawing one problem (512 support + 512 validation points, seed 0) from each of {len(names)} sets:\n")
    for name in names:
        catalog = load_catalog(name)
        for entry in catalog.entries:
            problem = sample_problem(entry, catalog=catalog.name, catalog_version=catalog.version, seed=0, draw=0)
            if problem.placeholder_reason is None:
                break
        else:
            print(f"{name:<18} no problem could be sampled")
            continue
        y = problem.y_support
        formula = entry.formula if len(entry.formula) <= 48 else entry.formula[:45] + "..."
        print(
            f"{name:<18} {entry.id:<22} {entry.target} = {formula:<48} "
            f"y in [{np.min(y):.3g}, {np.max(y):.3g}]  hash {problem.data_hash[:10]}"
        )
    print(f"\nDone in {time.perf_counter() - started:.2f} s. Write any problem to a file with: "
          "srbf sample feynman I.6.2a -o problem.npz")
    return 0


if __name__ == "__main__":
    sys.exit(main())
