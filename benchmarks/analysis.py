"""How fast is the analysis? A synthetic long table of about 1,000,000 predictions through srbf.stats.

10 methods x 6,660 problems in 29 sets (the sizes of srbf's shipped catalogs) x 2 draws x 8 budgets
= 1,065,600 predictions with nine metric columns (success, two rates, log10 FVU, R^2, token F1,
token count ratio, Levenshtein distance, seconds). Prints the seconds for

1. arranging the frame as arrays (included in each of the following, shown once on its own);
2. aggregation of every metric at every budget and time mark (sets combined, medians, per set);
3. all 45 paired comparisons at the 4 declared time marks on every metric with a direction;
4. ranks (Friedman, Nemenyi CD, groups) at the 4 time marks;

and the peak resident memory. Target on a 2-core machine: <= 60 s for 2-4 together, peak < 4 GB.

Run: python benchmarks/analysis.py [--methods 10] [--draws 2] [--budgets 8] [--seed 0]
"""

from __future__ import annotations

import argparse
import resource
import time

import numpy as np
import pandas as pd

from srbf.stats import analyze
from srbf.stats.cube import build_cube

# problems per shipped catalog (srbf.catalogs: catalog_info(load_catalog(name))["problems"])
SET_SIZES = {
    "constant": 10, "erbench-densities": 33, "erbench-phybench": 90, "erbench-syneq": 5301, "fastsrb": 120,
    "feynman": 100, "feynman-bonus": 20, "grammarvae": 1, "jin": 6, "keijzer": 15, "korns": 12, "koza": 2,
    "livermore": 25, "livermore2": 150, "meier": 2, "neat": 8, "nguyen": 12, "nonic": 1, "pagie": 1,
    "physo-astro": 2, "physo-class": 8, "poly": 6, "r-rationals": 6, "sine": 1, "soose-fc": 200,
    "soose-nc": 200, "soose-wc": 200, "srsd-dummy": 120, "vladislavleva": 8,
}
METRICS = ["success", "nrr_validation", "srr_structure", "log10_fvu_validation", "r2_validation", "token_f1",
           "token_count_ratio", "levenshtein_normalized"]


def synthetic_frame(n_methods: int = 10, n_draws: int = 2, n_budgets: int = 8, seed: int = 0) -> pd.DataFrame:
    """A plausible long table: skill rises with the budget, sets differ in difficulty."""
    rng = np.random.default_rng(seed)
    catalogs = np.repeat(list(SET_SIZES), list(SET_SIZES.values()))
    problem_ids = np.concatenate([np.arange(n) for n in SET_SIZES.values()])
    n_problems = catalogs.size
    set_difficulty = rng.normal(0, 1, len(SET_SIZES))
    difficulty = np.repeat(set_difficulty, list(SET_SIZES.values())) + rng.normal(0, 1.5, n_problems)
    budgets = 2.0 ** np.arange(n_budgets)
    skill = np.linspace(-1.5, 1.0, n_methods) + rng.normal(0, 0.1, n_methods)
    base_seconds = np.geomspace(0.05, 5.0, n_methods)[rng.permutation(n_methods)]

    m, b, p, d = np.meshgrid(np.arange(n_methods), np.arange(n_budgets), np.arange(n_problems), np.arange(n_draws),
                             indexing="ij")
    m, b, p, d = (a.ravel() for a in (m, b, p, d))
    n = m.size
    latent = skill[m] + 0.35 * b - difficulty[p] + rng.normal(0, 0.7, n)
    success = rng.random(n) < 1 / (1 + np.exp(-(latent + 3)))
    log_fvu = np.clip(-2.0 - 3.0 * latent + rng.normal(0, 1.0, n), np.log10(2.0**-52), None)
    log_fvu[rng.random(n) < 0.01] = np.inf
    nrr = (log_fvu <= np.log10(2.0**-23)).astype(float)
    srr = (nrr == 1) & (rng.random(n) < 0.6)
    r2 = 1 - 10.0**log_fvu
    f1 = np.clip(0.5 + 0.15 * latent + rng.normal(0, 0.1, n), 0, 1)
    ratio = np.exp(rng.normal(0.2 - 0.05 * latent, 0.3, n))
    lev = np.clip(0.5 - 0.12 * latent + rng.normal(0, 0.1, n), 0, 1)
    seconds = base_seconds[m] * budgets[b] ** 0.9 * np.exp(rng.normal(0, 0.3, n))
    frame = pd.DataFrame({
        "method": np.array([f"method{i:02d}" for i in range(n_methods)])[m],
        "catalog": catalogs[p],
        "catalog_version": 1,
        "problem_id": problem_ids[p],
        "draw": d,
        "budget": budgets[b],
        "seconds": np.where(success, seconds, np.nan),
        "success": success.astype(float),
    })
    for name, values in (("nrr_validation", nrr), ("srr_structure", srr.astype(float)),
                         ("log10_fvu_validation", log_fvu), ("r2_validation", r2), ("token_f1", f1),
                         ("token_count_ratio", ratio), ("levenshtein_normalized", lev)):
        frame[name] = np.where(success, values, np.nan)
    frame.loc[~success, ["nrr_validation", "srr_structure", "token_f1"]] = 0.0
    return frame


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--methods", type=int, default=10)
    parser.add_argument("--draws", type=int, default=2)
    parser.add_argument("--budgets", type=int, default=8)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    start = time.perf_counter()
    frame = synthetic_frame(args.methods, args.draws, args.budgets, args.seed)
    print(f"synthetic frame: {len(frame):,} predictions, {frame['catalog'].nunique()} sets, "
          f"{frame.groupby('catalog')['problem_id'].nunique().sum():,} problems "
          f"({time.perf_counter() - start:.1f} s to build)")

    start = time.perf_counter()
    build_cube(frame, METRICS + ["seconds"])
    cube_seconds = time.perf_counter() - start
    print(f"frame -> arrays:                    {cube_seconds:6.2f} s")

    total = 0.0
    results = {}
    for part, label in (("aggregates", "aggregation (all metrics)"), ("comparisons", "45 pairs x 4 time marks"),
                        ("ranks", "ranks at 4 time marks")):
        start = time.perf_counter()
        results[part] = analyze(frame, METRICS + ["seconds"], parts=(part,))
        elapsed = time.perf_counter() - start
        total += elapsed
        print(f"{label:<35} {elapsed:6.2f} s")
    print(f"{'total (each including the arrays)':<35} {total:6.2f} s   (target <= 60 s)")
    start = time.perf_counter()
    analyze(frame, METRICS + ["seconds"])
    print(f"{'all three in one analyze() call':<35} {time.perf_counter() - start:6.2f} s")
    peak_gb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024**2
    print(f"peak RSS: {peak_gb:.2f} GB   (target < 4 GB)")

    aggregates = results["aggregates"].aggregates
    comparisons = results["comparisons"].comparisons
    ranks = results["ranks"].ranks
    print(f"\n{len(aggregates):,} aggregate rows, {len(comparisons):,} comparisons, {len(ranks):,} rank rows")
    at_100 = (aggregates.axis == "time") & (aggregates.time == 100)
    headline = aggregates[(aggregates.metric == "nrr_validation") & at_100]
    print("nrr_validation at 100 s:")
    print(headline[["method", "status", "estimate", "ci_low", "ci_high", "share"]].to_string(index=False))
    print("verdicts on log10_fvu_validation:",
          comparisons[comparisons.metric == "log10_fvu_validation"]["verdict"].value_counts().to_dict())


if __name__ == "__main__":
    main()
