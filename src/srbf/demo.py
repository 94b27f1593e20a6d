"""``make demo``: load every shipped set and draw a problem from each, then run the quickstart.

The first part exercises loading, admission, compilation and sampling on all the shipped data.
The second runs the shipped ``quickstart`` config (two built-in methods on two small sets, a short
budget ladder) into ``./srbf-results`` through the very commands a user types, ``srbf run -c
quickstart`` then ``srbf status -c quickstart`` (its table: fits per method, set and budget and
their statuses). ``make demo`` goes on with ``srbf score`` and ``srbf analyze``, the judge's
metrics and the report. A second ``make demo`` finds every fit stored and only re-prints the
tables. Offline throughout.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

QUICKSTART = Path(__file__).resolve().parent / "configs" / "quickstart.yaml"  # package data


def draw_one_per_set() -> None:
    from srbf.catalogs.loader import list_catalogs, load_catalog
    from srbf.catalogs.sampling import sample_problem
    from srbf.report.text import text_table

    started = time.perf_counter()
    names = list_catalogs()
    print(f"Drawing one problem (512 support + 512 validation points, seed 0) from each of {len(names)} sets:\n")
    rows = []
    for name in names:
        catalog = load_catalog(name)
        for entry in catalog.entries:
            problem = sample_problem(entry, catalog=catalog.name, catalog_version=catalog.version, seed=0, draw=0)
            if problem.placeholder_reason is None:
                break
        else:
            rows.append((name, "", "no problem could be sampled", "", ""))
            continue
        y = problem.y_support
        formula = entry.formula if len(entry.formula) <= 48 else entry.formula[:45] + "..."
        rows.append((name, entry.id, f"{entry.target} = {formula}", f"[{np.min(y):.3g}, {np.max(y):.3g}]",
                     problem.data_hash[:10]))
    print(text_table(("set", "problem", "formula", "y in", "hash"), rows))
    print(f"\nDone in {time.perf_counter() - started:.2f} s. Write any problem to a file with: "
          "srbf sample feynman I.6.2a -o problem.npz")


def _quickstart_path() -> Path | None:
    for path in (QUICKSTART, Path.cwd() / "configs" / "quickstart.yaml"):
        if path.is_file():
            return path
    return None


def run_quickstart(path: Path) -> int:
    """``srbf run`` then ``srbf status`` on the quickstart config, as a user runs them."""
    from srbf.cli import main as srbf

    print(f"\nsrbf run -c {path}")
    code = srbf(["run", "-c", str(path)])
    if code != 0:
        return code
    print(f"\nsrbf status -c {path}")
    code = srbf(["status", "-c", str(path)])
    print("\nNext: srbf score (the judge's metrics) | srbf analyze (the report) | srbf export -o results.parquet "
          "| docs/running.md")
    return code


def main() -> int:
    draw_one_per_set()
    path = _quickstart_path()
    if path is None:
        print("\nconfigs/quickstart.yaml not found (run the demo from the srbf checkout); skipping the run.")
        return 0
    started = time.perf_counter()
    code = run_quickstart(path)
    print(f"Quickstart done in {time.perf_counter() - started:.1f} s.")
    return code


if __name__ == "__main__":
    sys.exit(main())
