"""Every installed roster method on nguyen and the first 20 Feynman formulas, at two budgets.

    python benchmarks/roster.py [--results DIR] [--methods gplearn,operon,...] [--time-limit 60]
                                [--workers 1] [--srbench] [--budgets bingo=10,20 ...]

Each method runs as a config naming it runs it (``method: NAME``, the settings of
src/srbf/methods/NAME/method.yaml: its upstream defaults, its own environment) with two rungs of its ladder (the first and the third; ffx has one), 2 draws per
problem, one worker unless told (``--budgets NAME=A,B`` replaces a method's two rungs, to keep a
slow method's run short on a loaded machine), then the store is scored (a rerun on the same results directory
skips the fits already stored and scores what the current judge has not). Printed per method and
budget: the median fit time (wall seconds of the fits that returned), and the share of problems
with nrr_validation = 1 and with each structural rate = 1, strict and pruned side by side
(srr_structure, srr_structure_pruned, srr_exponents, srr_exponents_pruned; each problem's draws
averaged, failures counting as 0). The strict rates count a fitted 0.9999999 or 1e-9 as another
structure; the pruned ones drop and snap such float noise first (docs/metrics.md). With --srbench
also the share SRBench's looser symbolic check counts as solved, an undecided check left out of
that share and counted in its own column. Not part of `make test`: it needs
`srbf methods install NAME` and takes tens of minutes. Figures printed, not asserted.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path


def two_budgets(ladder: list[float]) -> list[float]:
    return sorted({ladder[0], ladder[min(2, len(ladder) - 1)]})


def config_for(name: str, results: Path, time_limit: float, workers: int = 1, budgets: list[float] | None = None):
    from srbf.catalogs.loader import load_catalog
    from srbf.runs.config import config_from_dict

    shipped = config_from_dict({"experiment": name, "catalogs": "all", "method": name})  # its method.yaml
    document = {
        "experiment": f"roster-{name}",
        "catalogs": ["nguyen", "feynman"],
        "problems": {"feynman": list(load_catalog("feynman").ids[:20])},
        "sampling": {"draws": 2},
        "method": {"name": name, "time_limit": time_limit,
                   "budgets": budgets or two_budgets(list(shipped.methods[0].budgets))},
        "workers": workers,
        "results": str(results),
    }
    return config_from_dict(document, f"<roster benchmark: {name}>")


def main(argv=None) -> int:
    from srbf.judge import JUDGE_VERSION
    from srbf.judge.scoring_pass import score_store
    from srbf.store import metrics_long_frame
    from srbf.methods import roster
    from srbf.methods.envs import read_manifest
    from srbf.runs.driver import run_config

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", default="srbf-results-roster", help="results directory (resumable)")
    parser.add_argument("--methods", help="comma-separated roster names (default: every installed one)")
    parser.add_argument("--time-limit", type=float, default=60.0, help="seconds per fit (default 60)")
    parser.add_argument("--workers", type=int, default=1, help="fits (and scoring processes) at a time (default 1)")
    parser.add_argument("--srbench", action="store_true",
                        help="also run SRBench's symbolic check (minutes) and print the share it counts as solved")
    parser.add_argument("--budgets", nargs="*", default=[], metavar="NAME=A,B",
                        help="a method's budgets instead of its ladder's first and third rungs")
    args = parser.parse_args(argv)
    budgets = {}
    for item in args.budgets:
        name, _, values = item.partition("=")
        try:
            budgets[name] = [float(v) for v in values.split(",")]
        except ValueError:
            parser.error(f"--budgets {item!r}: write NAME=A,B with numbers, e.g. bingo=10,20")
    names = args.methods.split(",") if args.methods else [n for n in roster.ROSTER if read_manifest(n) is not None]
    results = Path(args.results)
    for name in names:
        if name == "pysr":
            print("pysr: skipped (needs Julia)", file=sys.stderr)
            continue
        started = time.perf_counter()
        config = config_for(name, results, args.time_limit, args.workers, budgets.get(name))
        summary = run_config(config, progress=False)
        print(f"{name}: {summary.statuses} in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    score_store(results, progress=False, srbench=args.srbench, workers=args.workers)
    frame = metrics_long_frame(results, judge_version=JUDGE_VERSION)
    frame = frame[~frame["placeholder"]]
    rates = ["nrr_validation", "srr_structure", "srr_structure_pruned", "srr_exponents", "srr_exponents_pruned"]
    rates += ["srbench_symbolic_solution"] if args.srbench else []
    header = " ".join(f"{r.replace('srbench_symbolic_solution', 'srbench_symbolic'):>20}" for r in rates)
    print(f"\n{'method':<10} {'budget':>8} {'fits':>5} {'median fit s':>13} {header}" + (" undecided" if args.srbench else ""))
    for (method, budget), group in frame.groupby(["method_name", "budget"], sort=True):
        per_problem = group[["catalog", "problem_id"] + rates].astype({r: float for r in rates})
        per_problem = per_problem.groupby(["catalog", "problem_id"])[rates].mean()  # an undecided check is NaN: left out
        seconds = group.loc[group["status"] == "ok", "seconds"].median()
        shares = " ".join(f"{per_problem[r].mean():>20.2f}" for r in rates)
        undecided = f" {int(group['srbench_symbolic_undecided'].fillna(False).sum()):>9}" if args.srbench else ""
        print(f"{method:<10} {budget:>8g} {len(group):>5} {seconds:>13.3g} {shares}{undecided}")
    print(f"\n{frame['problem_id'].nunique()} problems (nguyen + first 20 Feynman), 2 draws each; results in {results}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
