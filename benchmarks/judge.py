"""How fast is the judge? 400 predictions on the Feynman set, three timings.

100 Feynman formulas x 4 predictions each: the truth itself, the truth + 1e-8, 1.01 * the truth,
and the next formula in the set (its variables renamed, by position, to this problem's), on
512 support + 512 validation points. Prints the median, p90 and maximum milliseconds per
prediction for

1. the numeric metrics alone (parse, evaluate, FVU, R^2, NRR: ``Judge(numeric_only=True)``);
2. the full default set (everything but ``srbench_symbolic_solution``), canonical caches cold;
3. ``srbench_symbolic_solution`` alone: the SymPy check of each prediction that passes SRBench's
   R^2 > 0.5 gate, one at a time through a worker (latency, including the inter-process round
   trip), and the whole batch through two workers in parallel (wall time per prediction). The
   check is limited by work (Python calls, counted by a tracer that slows SymPy about threefold),
   so the number of undecided checks is the same from run to run.

Targets on a 2-core machine: numeric median <= 0.4 ms; full median <= 2 ms, p90 <= 5 ms, no
prediction above 2 s; SRBench check median <= 300 ms.

Run: python benchmarks/judge.py [--formulas 100] [--no-srbench]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from srbf.catalogs.loader import load_catalog
from srbf.catalogs.sampling import sample_problem
from srbf.expr import parse, to_infix
from srbf.expr.canonical import clear_cache
from srbf.expr.tree import Call, Var
from srbf.judge import Judge
from srbf.judge.formula_facts import clear_cache as clear_judge_cache
from srbf.judge.srbench import SYMBOLIC_R2, SymbolicPool


def rename(expr, mapping):
    """The tree with its variables renamed by ``mapping``."""
    if isinstance(expr, Var):
        return Var(mapping[expr.name])
    if isinstance(expr, Call):
        return Call(expr.op, tuple(rename(arg, mapping) for arg in expr.args))
    return expr


def build(n_formulas: int):
    catalog = load_catalog("feynman")
    entries = list(catalog.entries)[:n_formulas]
    problems = []
    for i, entry in enumerate(entries):
        problem = sample_problem(
            entry, catalog=catalog.name, catalog_version=catalog.version, seed=0, n_support=512, n_validation=512
        )
        if problem.is_placeholder:
            print(f"skipped {entry.id}: {problem.placeholder_reason}")
            continue
        names = [v.name for v in entry.variables]
        following = entries[(i + 1) % len(entries)]
        other_names = [v.name for v in following.variables]
        other = parse(following.formula, other_names)
        other = rename(other, {name: names[k % len(names)] for k, name in enumerate(other_names)})
        truth = entry.formula
        predictions = [truth, f"({truth}) + 1e-8", f"1.01 * ({truth})", to_infix(other)]
        problems.append((entry.id, truth, problem, predictions))
    return problems


def summary(label: str, values_ms: list[float]) -> str:
    values = np.asarray(values_ms)
    return (
        f"{label:<46} n={values.size:<4} median {np.median(values):8.3f} ms   "
        f"p90 {np.percentile(values, 90):8.3f} ms   max {values.max():9.3f} ms"
    )


def time_scoring(problems, **options) -> tuple[list[float], list[float], list[dict]]:
    per_prediction, per_truth, results = [], [], []
    for _, truth, problem, predictions in problems:
        start = time.perf_counter()
        judge = Judge(truth, problem, **options)
        if not options.get("numeric_only"):
            judge.truth_formula  # noqa: B018 - prepare the truth outside the per-prediction clock
        per_truth.append((time.perf_counter() - start) * 1e3)
        for prediction in predictions:
            start = time.perf_counter()
            result = judge.score(prediction)
            per_prediction.append((time.perf_counter() - start) * 1e3)
            results.append(result)
    return per_prediction, per_truth, results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--formulas", type=int, default=100)
    parser.add_argument("--no-srbench", action="store_true")
    args = parser.parse_args()

    problems = build(args.formulas)
    n = sum(len(p[3]) for p in problems)
    print(f"{len(problems)} Feynman problems, {n} predictions, 512 + 512 points\n")

    numeric, numeric_truth, numeric_results = time_scoring(problems, numeric_only=True)
    print(summary("numeric metrics alone", numeric))

    clear_cache()
    clear_judge_cache()
    full, full_truth, results = time_scoring(problems)
    print(summary("full default set (cold caches)", full))
    print(summary("  (truth preparation, per problem)", full_truth))
    kinds = ["truth", "truth + 1e-8", "1.01 * truth", "next formula"]
    for k, kind in enumerate(kinds):
        print(summary(f"  of which: {kind}", full[k::4]))

    for key in ("nrr_validation", "srr_structure", "srr_structure_pruned", "srr_exponents", "srr_exponents_pruned",
                "srr_all", "srr_raw", "numeric_equivalence"):
        by_kind = [np.mean([r[key] or 0 for r in results[k::4]]) for k in range(4)]
        print(f"  mean {key:<22}" + "".join(f"{kind}: {v:5.2f}   " for kind, v in zip(kinds, by_kind)))

    if args.no_srbench:
        return
    pairs, checked_ms = [], []
    for (_, truth, problem, predictions), start in zip(problems, range(0, n, 4)):
        judge = Judge(truth, problem)
        for k, prediction in enumerate(predictions):
            r2 = numeric_results[start + k]["r2_validation"]
            if r2 is not None and r2 > SYMBOLIC_R2:
                pairs.append((judge.truth, parse(prediction, judge.variables)))
    pool = SymbolicPool(workers=1)
    try:
        pool.run(pairs[:1])  # start the worker (imports SymPy) before timing
        outcomes = []
        for pair in pairs:
            start = time.perf_counter()
            outcomes.extend(pool.run([pair]))
            checked_ms.append((time.perf_counter() - start) * 1e3)
    finally:
        pool.close()
    gated = [0.0] * (n - len(pairs))
    print()
    print(summary("srbench_symbolic_solution, checked ones", checked_ms))
    print(summary("srbench_symbolic_solution, all (gate = 0 ms)", checked_ms + gated))
    undecided = sum(o.undecided for o in outcomes)
    solved = sum(bool(o.solution) for o in outcomes)
    print(f"  {len(pairs)} checked, {solved} solutions, {undecided} undecided (work limit)")

    pool = SymbolicPool(workers=2)
    try:
        pool.run(pairs[:2])
        start = time.perf_counter()
        pool.run(pairs)
        wall = time.perf_counter() - start
    finally:
        pool.close()
    print(f"  batch through 2 workers: {wall:.2f} s for {len(pairs)} checks = {wall / len(pairs) * 1e3:.1f} ms each")
    print(f"\nmedian per prediction: numeric {statistics.median(numeric):.3f} ms, full {statistics.median(full):.3f} ms")


if __name__ == "__main__":
    main()
