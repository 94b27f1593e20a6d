"""``make demo``: load every shipped set and draw a problem from each, then run the quickstart.

The first part exercises loading, admission, compilation and sampling on all the shipped data.
The second runs the shipped ``quickstart`` config (two built-in methods on two small sets, a short
budget ladder) into ``./srbf-results``, exactly as ``srbf run -c quickstart`` would,
and prints where the results are and a small table per method and budget: fits ok, and the
median FVU (fraction of variance unexplained) on the support and validation points, re-scored by
the judge from the stored formulas. A second ``make demo`` finds every fit stored and only
re-prints the table. Offline throughout.
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


def _quickstart_path() -> Path | None:
    for path in (QUICKSTART, Path.cwd() / "configs" / "quickstart.yaml"):
        if path.is_file():
            return path
    return None


def run_quickstart(path: Path) -> int:
    from srbf.runs.config import load_config
    from srbf.runs.driver import run_config

    config = load_config(path)
    methods = ", ".join(m.name for m in config.methods)
    print(f"\nRunning {path.name}: {methods} on {', '.join(config.catalogs)} "
          f"(first {config.limit} problems each, {config.sampling.draws} draws) into {config.results}\n")
    summary = run_config(config, resume_hint=f"python -m srbf.demo (or srbf run -c {path})")
    print(summary.text())
    if summary.interrupted:
        return 130
    print()
    print_table(config)
    print(f"\nMore: srbf status -c {path} | srbf export -o results.parquet | docs/running.md")
    return 0


def print_table(config) -> None:
    """Per method and budget: fits ok of all, and median support/validation FVU from the judge."""
    from srbf.runs.plan import load_catalogs, make_plan
    from srbf.runs.problems import ProblemSource
    from srbf.store import ResultsStore, row_key

    variants = config.variants()
    plan = make_plan(config, variants=variants, catalogs=load_catalogs(config))  # nothing skipped: every fit
    by_key = {fit.key: fit for fit in plan.fits}
    with ResultsStore.open_readonly(config.results) as store:
        frame = store.predictions_frame(config_hash=[v.config_hash for v in variants], decode_json=False)
    try:
        from srbf.judge import Judge
    except ImportError:
        Judge = None
    source = ProblemSource(config, cache_size=8)
    rows: dict[tuple[str, float], dict] = {}
    for record in frame.itertuples(index=False):
        key = row_key(record)
        fit = by_key.get(key)
        empty = {"ok": 0, "all": 0, "support": [], "validation": []}
        cell = rows.setdefault((record.method, float(record.budget)), empty)
        cell["all"] += 1
        if record.status != "ok":
            continue
        cell["ok"] += 1
        if Judge is None or fit is None:
            continue
        problem = source.problem(fit)
        if problem.data_hash != record.data_hash:
            continue  # the points differ from those the method saw: never score against them
        metrics = Judge(fit.entry.formula, problem, variables=tuple(problem.variables), numeric_only=True).score(
            record.expression
        )
        if metrics.get("success"):
            cell["support"].append(metrics["fvu_support"])
            cell["validation"].append(metrics["fvu_validation"])

    def median(values: list) -> str:
        return f"{float(np.median(values)):.3g}" if values else "-"

    print(f"{'method':<10} {'budget':>6} {'fits ok':>9} {'median FVU support':>19} {'median FVU validation':>22}")
    for (method, budget), cell in sorted(rows.items(), key=lambda item: (item[0][0], item[0][1])):
        print(f"{method:<10} {budget:>6g} {cell['ok']:>4}/{cell['all']:<4} "
              f"{median(cell['support']):>19} {median(cell['validation']):>22}")
    if Judge is None:
        print("(the judge is not available here, so no FVU)")
    else:
        print("FVU: fraction of variance unexplained, 0 is a perfect fit; above 1 is worse than the mean.")


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
