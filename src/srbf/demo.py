"""``make demo``: every shipped set loaded and sampled, then a real comparison from start to finish.

First one problem is drawn from each shipped set (loading, admission, compilation and sampling on
all the shipped data). Then the shipped ``demo`` config runs srbf's reference GP (the roster's
``deap_gp``, installed into its own environment from its lock) beside the built-in ``linear`` and
``prior`` on the Feynman laws of at most two inputs, through the very commands a user types: ``srbf
methods install``, ``run``, ``status``, ``score``, ``analyze`` and ``site build``, in this process
so that NumPy, pandas and Matplotlib are imported once. Every step is timed, the report's findings
(recoveries, decided verdicts, ranks) are printed, and a second ``make demo`` finds the environment
and every fit stored and only re-reads them. Everything lands in ``./srbf-demo/``, its own store,
so the demo never mixes with the results of a quickstart or a config of one's own.
"""

from __future__ import annotations

import csv
import os
import resource
import sys
import time
from itertools import takewhile
from pathlib import Path
from typing import Callable

import numpy as np

CONFIG = "demo"  # src/srbf/configs/demo.yaml, package data
RESULTS = "srbf-demo/results"  # the config's results
REPORT = "srbf-demo/report"
SITE = "srbf-demo/site"
METHOD = "deap_gp"
METRICS = ("nrr_validation", "srr_structure", "log10_fvu_validation")  # recoveries, then accuracy
RANKED = "log10_fvu_validation"  # the report's quotable ranking


def draw_one_per_set() -> int:
    from srbf.catalogs.loader import list_catalogs, load_catalog
    from srbf.catalogs.sampling import sample_problem
    from srbf.report.text import text_table

    names = list_catalogs()
    print(f"Drawing one problem (512 support + 512 validation points, seed 0) from each of {len(names)} sets "
          "(srbf catalogs list):\n")
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
    print("\nWrite any problem to a file with: srbf sample feynman I.6.2a -o problem.npz")
    return 0


def config_ref() -> str:
    """``demo`` when that name reads the shipped config here, else the shipped file's path (a file
    called ``demo`` in the current directory would win over the name)."""
    from srbf.runs.shipped import CONFIGS_DIR, config_path

    shipped = CONFIGS_DIR / f"{CONFIG}.yaml"
    return CONFIG if Path(config_path(CONFIG)) == shipped else str(shipped)


def commands(config: str) -> list[list[str]]:
    """The demo's ``srbf`` commands after the draws, in order."""
    return [["methods", "install", METHOD],
            ["run", "-c", config],
            ["status", "-c", config],
            ["score", "--results", RESULTS],
            ["analyze", "--results", RESULTS, "--at-budget", "max", "-o", REPORT]
            + [arg for metric in METRICS for arg in ("--metric", metric)],
            ["site", "build", "--results", RESULTS, "-o", SITE]]


def _rows(path: Path) -> list[dict[str, str]]:
    """A report table's rows, its spreadsheet escapes undone (``srbf.store.csv_cells``)."""
    from srbf.store.csv_cells import unescape_cell

    with path.open(newline="", encoding="utf-8") as handle:
        return [{key: unescape_cell(value) for key, value in row.items()} for row in csv.DictReader(handle)]


def findings(tables: Path) -> str:
    """What the report found, from its CSV tables: each method's recoveries and accuracy, the
    paired verdicts, and the ranks with their critical difference."""
    from srbf.report.text import text_table

    board = [r for r in _rows(tables / "leaderboard.csv") if r["metric"] in METRICS]
    methods = list(dict.fromkeys(r["method"] for r in board))
    metrics = [m for m in METRICS if any(r["metric"] == m for r in board)]
    cell = {(r["method"], r["metric"]): f"{r['shown']} ({r['n_problems']})" for r in board}
    budget = {r["method"]: f"{float(r['budget']):g}" for r in board if r["budget"]}
    lines = ["Each method at its own largest budget (value [95 % interval] (problems)):", "",
             text_table(("method", "budget", *metrics),
                        [(m, budget.get(m, ""), *(cell.get((m, k), "") for k in metrics)) for m in methods])]

    pairs = [r for r in _rows(tables / "comparisons.csv") if r["metric"] in metrics]
    lines += ["", "Paired verdicts (on A; Δ = A − B over the problems both ran, m = the measured noise margin):", "",
              text_table(("metric", "A", "B", "Δ [95 %]", "m", "verdict"),
                         [(r["metric"], r["method_a"], r["method_b"], r["delta_shown"], r["margin_rounded"],
                           r["verdict"]) for r in pairs])]

    ranks = sorted((r for r in _rows(tables / "ranks.csv") if r["metric"] == RANKED), key=lambda r: float(r["mean_rank"]))
    if ranks:
        first = ranks[0]
        verdict = ("significant: methods without a shared group letter differ by more than the CD"
                   if first["significant"] == "True" else "not significant: no groups")
        lines += ["", f"Mean ranks on {RANKED} (1 = best):", "",
                  text_table(("method", "mean rank", "groups"),
                             [(r["method"], f"{float(r['mean_rank']):.2f}", r["groups"] or "-") for r in ranks], right=(1,)),
                  f"Friedman p = {float(first['p_value']):.2g} ({verdict}); CD = {float(first['cd']):.2f} "
                  f"on {first['n_problems']} problems; the diagram: figures/cd_{RANKED}.png"]
    return "\n".join(lines)


def cpu_seconds() -> float:
    """CPU seconds of this process and of its children that have ended (workers, installers)."""
    return sum(r.ru_utime + r.ru_stime for r in (resource.getrusage(resource.RUSAGE_SELF),
                                                   resource.getrusage(resource.RUSAGE_CHILDREN)))


def run_steps(steps: list[tuple[str, Callable[[], int]]]) -> tuple[int, list[tuple[str, float, float]]]:
    """Each step in turn until one fails: its exit code (0 when all pass) and each step's wall-clock
    and CPU seconds (on a busy machine the first grows, the second hardly)."""
    times: list[tuple[str, float, float]] = []
    for label, step in steps:
        print(f"\n=== {label}", flush=True)
        started, cpu = time.perf_counter(), cpu_seconds()
        code = step()
        times.append((label, time.perf_counter() - started, cpu_seconds() - cpu))
        if code != 0:
            print(f"\nmake demo stopped: `{label}` exited with status {code}", file=sys.stderr)
            return code, times
    return 0, times


def main() -> int:
    from srbf.cli import main as srbf
    from srbf.report.text import text_table

    steps: list[tuple[str, Callable[[], int]]] = [("draw one problem from every shipped set", draw_one_per_set)]
    for argv in commands(config_ref()):
        steps.append(("srbf " + " ".join(argv), lambda argv=argv: srbf(argv)))
    code, times = run_steps(steps)
    rows = [(" ".join(takewhile(lambda a: not a.startswith("-"), label.split())), f"{wall:.1f}", f"{cpu:.1f}")
            for label, wall, cpu in times]
    if code == 0:
        print(f"\n=== What the demo found (the whole report: {REPORT}/index.md)\n")
        print(findings(Path(REPORT) / "tables"))
    print("\n=== Time per step\n")
    print(text_table(("step", "seconds", "CPU seconds"), rows, right=(1, 2),
                     footer=[("demo steps", f"{sum(t[1] for t in times):.1f}", f"{sum(t[2] for t in times):.1f}")]))
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (work by other programs stretches the seconds)")
    if code == 0:
        print(f"\nReport: {REPORT}/index.md | explorer: srbf site serve {SITE} (or open {SITE}/index.html)\n"
              f"Next: srbf export --results {RESULTS} -o results.parquet | srbf methods list (the roster) | "
              "srbf run -c quickstart | docs/running.md")
    return code


if __name__ == "__main__":
    sys.exit(main())
