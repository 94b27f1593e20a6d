"""What the report's accuracy-size and distributions pictures cost on a leaderboard-sized frame.

14 methods x 40 problems (2 sets) x 6 budgets x 2 draws of synthetic scored predictions (R²,
log10 FVU, formula length; one method failing half its fits, one without formula sizes, a few
formulas that blew up). Prints the seconds of the tables (``srbf.report.pictures``: per-problem
values, bootstrap of the medians, front, boxes) and of drawing each figure (PNG, 200 dpi), each the
best of ``--runs`` (default 3), and the machine's load average beside them.

Run: python benchmarks/report_pictures.py [--runs N]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from srbf.report.markdown_tables import largest_complete_budgets
from srbf.report.picture_figures import distribution_figure, pareto_figure
from srbf.report.pictures import distribution_boxes, distribution_points, pareto_table
from srbf.stats import analyze

METHODS = [f"method{i:02d}" for i in range(14)]
PROBLEMS = [("set-a", f"p{i:02d}") for i in range(20)] + [("set-b", f"p{i:02d}") for i in range(20)]
BUDGETS = (1.0, 2.0, 4.0, 8.0, 16.0, 32.0)


def frame(seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for m, method in enumerate(METHODS):
        for catalog, problem in PROBLEMS:
            for budget in BUDGETS:
                for draw in (0, 1):
                    ok = rng.random() > (0.5 if m == 3 else 0.05)
                    log_fvu = -1 - 0.4 * m - 0.3 * np.log2(budget) + rng.normal(0, 1.5)
                    if ok and rng.random() < 0.01:
                        log_fvu = np.inf
                    rows.append({"method": method, "catalog": catalog, "catalog_version": 1, "problem_id": problem,
                                 "draw": draw, "budget": budget, "seconds": budget * (m + 1) / 10, "success": float(ok),
                                 "nrr_validation": float(ok and log_fvu < -6.9),
                                 "log10_fvu_validation": log_fvu if ok else np.nan,
                                 "r2_validation": 1 - 10.0 ** log_fvu if ok else np.nan,
                                 "token_count_prediction": (rng.integers(3, 10 + 6 * m) if m != 5 else np.nan)
                                 if ok else np.nan})
    return pd.DataFrame(rows)


def best_of(runs: int, work) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    runs = parser.parse_args().runs
    data = frame()
    budgets = largest_complete_budgets(analyze(data, ["nrr_validation"], times=(), parts=("aggregates",)).aggregates)
    print(f"{len(data):,} predictions: {len(METHODS)} methods x {len(PROBLEMS)} problems x {len(BUDGETS)} budgets "
          f"x 2 draws; load average {os.getloadavg()[0]:.2f}")
    tables = {}

    def compute():
        tables["pareto"] = pareto_table(data, budgets)
        tables["points"] = distribution_points(data, budgets)
        tables["boxes"] = distribution_boxes(tables["points"])

    print(f"tables (per-problem values, bootstrap, front, boxes): {best_of(runs, compute):.2f} s")
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder)
        seconds = best_of(runs, lambda: pareto_figure(tables["pareto"], out / "p.png", {}))
        print(f"draw pareto.png:        {seconds:.2f} s")
        print(f"draw distributions.png: "
              f"{best_of(runs, lambda: distribution_figure(tables['points'], tables['boxes'], out / 'd.png')):.2f} s")
    front = tables["pareto"].loc[tables["pareto"]["on_front"], "method"].tolist()
    print(f"front: {', '.join(front)}; not placed: "
          + ", ".join(tables["pareto"].loc[~tables["pareto"]["placed"], "method"]))


if __name__ == "__main__":
    main()
