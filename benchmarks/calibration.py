"""How often are srbf's paired verdicts wrong? A/A and A/B calibration on real runs (issue 21).

A/A: each method is fitted ``--repeats`` times on the same drawn points (``repeats:`` in the run
config: every repeat its own method seed), and repeat i is compared with repeat j as if they were
two methods, with the statistics ``srbf compare`` runs (srbf.stats.analyze): at time marks inside
both sides' measured ladders (interpolated in log time) and at each budget. Any "better" or
"worse" is a false verdict; so is a p-value below 0.05 for the pooled test. Cells are counted over
all sets together and per set (a comparison restricted to one catalog, as a reader of one set's
table would make it).

A/B: B is ``prior`` with its returned formula scaled by 1 + delta (benchmarks/calibration_handicap.py,
an ordinary method file), compared with A = ``prior`` at the same budget. The correct verdict is
"better" for A on log10_fvu_validation; the share of correct verdicts by delta, next to the MDE80
the comparisons report, is the power curve. delta = 0 is one more A/A side, formed the other way
(two method entries under different names, so different seeds).

Run (about 15 minutes on a loaded 2-core machine at the defaults; srbf methods install deap_gp first):
  python benchmarks/calibration.py --work /tmp/srbf-calibration            # run, score, analyse
  python benchmarks/calibration.py --work /tmp/srbf-calibration --stage analyze --figure docs/calibration_power.png
"""

from __future__ import annotations

import argparse
import itertools
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
SETS = ("nguyen", "keijzer", "korns", "livermore", "vladislavleva", "jin", "r-rationals", "feynman")
HEADLINE = ("nrr_validation", "srr_structure", "srr_structure_pruned", "log10_fvu_validation",
            "token_count_mismatch", "success")
POWER_METRIC = "log10_fvu_validation"


def arguments() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--work", type=Path, default=Path("/tmp/srbf-calibration"), help="config and results folder")
    p.add_argument("--stage", choices=("all", "run", "analyze"), default="all")
    p.add_argument("--sets", default=",".join(SETS), help="the problem sets")
    p.add_argument("--limit", type=int, default=50,
                   help="the first N problems of every set (the classic sets have at most 22: 50 takes all of them "
                        "and the first 50 Feynman formulas)")
    p.add_argument("--draws", type=int, default=2)
    p.add_argument("--repeats", type=int, default=2, help="A/A sides per method (pairs: repeats choose 2)")
    p.add_argument("--n-support", type=int, default=128)
    p.add_argument("--prior-budgets", default="4,16", help="prior's ladder (candidates drawn)")
    p.add_argument("--enumeration-budgets", default="2,3", help="enumeration's ladder (size bound)")
    p.add_argument("--roster", default="deap_gp", help="the roster method (installed: srbf methods install NAME)")
    p.add_argument("--roster-budgets", default="1,2", help="its ladder (generations)")
    p.add_argument("--roster-population", type=int, default=50)
    p.add_argument("--deltas", default="0,0.01,0.03,0.1,0.3,1,3", help="A/B handicaps: output scaled by 1 + delta")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--seed", type=int, default=20261201, help="the run seed (fixes the drawn points)")
    p.add_argument("--figure", type=Path, default=None, help="write the power curve here (PNG)")
    return p.parse_args()


def numbers(text: str) -> list[float]:
    return [float(x) for x in text.split(",") if x.strip()]


def write_config(args) -> Path:
    """The run config: the A/A methods with repeats, the handicapped prior entries at prior's top rung."""
    import yaml

    prior_top = numbers(args.prior_budgets)[-1]
    methods = [
        {"name": "prior", "budgets": numbers(args.prior_budgets), "time_limit": 30},
        {"name": "enumeration", "budgets": numbers(args.enumeration_budgets), "time_limit": 30},
        {"name": args.roster, "budgets": numbers(args.roster_budgets), "time_limit": 60,
         "options": ({"population_size": args.roster_population} if args.roster == "deap_gp"
                     else {"params": {"population_size": args.roster_population}})},
    ]
    for delta in numbers(args.deltas):
        methods.append({"name": f"prior-x{delta:g}", "budgets": [prior_top], "time_limit": 30,
                        "adapter": {"type": "file", "path": str(HERE / "calibration_handicap.py")},
                        "options": {"delta": delta, "inner": "prior"}})
    config = {
        "experiment": "calibration", "seed": args.seed, "catalogs": args.sets.split(","), "limit": args.limit,
        "sampling": {"n_support": args.n_support, "n_validation": 256, "draws": args.draws},
        "repeats": args.repeats, "methods": methods, "workers": args.workers,
        "results": str(args.work / "results"),
    }
    args.work.mkdir(parents=True, exist_ok=True)
    path = args.work / "calibration.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


def run(args) -> None:
    config = write_config(args)
    srbf = [sys.executable, "-m", "srbf"]
    started = time.perf_counter()
    subprocess.run([*srbf, "run", "-c", str(config)], check=True)
    fitted = time.perf_counter()
    subprocess.run([*srbf, "score", "--results", str(args.work / "results"), "--workers", str(args.workers),
                    "--quiet"], check=True)
    print(f"fits {fitted - started:.0f} s, scoring {time.perf_counter() - fitted:.0f} s")


# -- analysis ----------------------------------------------------------------------------------------

def aa_frames(frame: pd.DataFrame, methods) -> dict:
    """Each A/A pair (method, repeat i, repeat j) as a frame of two 'methods', NAME#i and NAME#j."""
    pairs = {}
    for method in methods:
        rows = frame[frame["method"] == method]
        repeats = sorted(rows["repeat"].unique())
        for i, j in itertools.combinations(repeats, 2):
            sides = rows[rows["repeat"].isin([i, j])]
            sides = sides.assign(method=[f"{method}#{r}" for r in sides["repeat"]]).drop(columns="repeat")
            pairs[(method, f"repeat {i} vs {j}")] = sides
    return pairs


def verdict_cells(pair: pd.DataFrame, metrics, scope: str) -> pd.DataFrame:
    """Every comparison of the pair's two sides, at time marks inside both ladders and at each budget."""
    from srbf.stats import analyze

    metrics = [m for m in metrics if m in pair.columns]
    timed = analyze(pair, metrics, times=(), parts=()).time_axis
    lows = timed.groupby("method")["seconds"].min()
    highs = timed.groupby("method")["seconds"].max()
    lo, hi = lows.max(), highs.min()
    parts = []
    if len(lows) == 2 and lo < hi:  # time marks where both sides are measured or interpolated
        marks = np.geomspace(lo, hi, 4)[1:-1]
        at_time = analyze(pair, metrics, times=marks, parts=("comparisons",)).comparisons
        parts.append(at_time.assign(mark=at_time["time"].rank(method="dense").map(lambda r: f"time {int(r)}")))
    at_budget = analyze(pair, metrics, times=(), compare_at="budget", parts=("comparisons",)).comparisons
    parts.append(at_budget.assign(mark=at_budget["budget"].map(lambda b: f"budget {b:g}")))
    return pd.concat(parts, ignore_index=True).assign(scope=scope)


def by_scope(pair: pd.DataFrame, metrics) -> pd.DataFrame:
    cells = [verdict_cells(pair, metrics, "all sets")]
    for catalog, rows in pair.groupby("catalog"):
        if rows["problem_id"].nunique() >= 3:
            cells.append(verdict_cells(rows, metrics, "one set"))
    return pd.concat(cells, ignore_index=True)


def binomial(k: int, n: int) -> str:
    from scipy.stats import binomtest

    if n == 0:
        return "—"
    ci = binomtest(k, n).proportion_ci(0.95, method="exact")
    return f"{100 * k / n:.1f} % [{100 * ci.low:.1f}, {100 * ci.high:.1f}]"


def aa_table(cells: pd.DataFrame) -> pd.DataFrame:
    rows = []
    live = cells[cells["verdict"] != "n/a"]
    groups = [("all", live)] + [(m, g) for m, g in live.groupby("method")]
    for label, g in groups:
        for scope, s in [("all sets", g[g["scope"] == "all sets"]), ("one set", g[g["scope"] == "one set"])]:
            n = len(s)
            false = int(s["verdict"].isin(["better", "worse"]).sum())
            p = s["p_value"].dropna()
            q = s["p_adjusted"].dropna()
            rows.append({"method": label, "scope": scope, "cells": n, "false verdicts": false,
                         "share false": binomial(false, n),
                         "equivalent": int((s["verdict"] == "equivalent").sum()),
                         "p<0.05 raw": binomial(int((p < 0.05).sum()), len(p)),
                         "p<0.05 corrected": binomial(int((q < 0.05).sum()), len(q))})
    return pd.DataFrame(rows)


def ab_cells(frame: pd.DataFrame, deltas, metrics) -> pd.DataFrame:
    """A = prior, B = the handicapped entry, at B's budget; repeat r of A against repeat r of B."""
    from srbf.stats import analyze

    rows = []
    for delta in deltas:
        b_all = frame[frame["method"] == f"prior-x{delta:g}"]
        if b_all.empty:
            continue
        budget = b_all["budget"].iloc[0]
        a_all = frame[(frame["method"] == "prior") & (frame["budget"] == budget)]
        for repeat in sorted(b_all["repeat"].unique()):
            pair = pd.concat([a_all[a_all["repeat"] == repeat], b_all[b_all["repeat"] == repeat]]).drop(columns="repeat")
            for catalog, sub in [("all", pair)] + list(pair.groupby("catalog")):
                if sub["problem_id"].nunique() < 3:
                    continue
                c = analyze(sub, [m for m in metrics if m in sub.columns], times=(), compare_at="budget",
                            parts=("comparisons",)).comparisons
                rows.append(c.assign(handicap=delta, scope="all sets" if catalog == "all" else "one set",
                                     catalog=catalog, repeat=repeat))
    return pd.concat(rows, ignore_index=True) if rows else pd.DataFrame()


def oriented_ab(cells: pd.DataFrame) -> pd.DataFrame:
    """The A/B cells seen from A = prior: its verdict, and B's loss (-Delta: log10 FVU, lower is better)."""
    a_first = cells["method_a"] == "prior"
    flipped = cells["verdict"].map({"better": "worse", "worse": "better"}).fillna(cells["verdict"])
    return cells.assign(call=np.where(a_first, cells["verdict"], flipped),
                        loss=np.where(a_first, -cells["delta"], cells["delta"]))


def ab_table(cells: pd.DataFrame) -> pd.DataFrame:
    """Share of correct verdicts ("better" for A) by delta, next to the MDE80 the comparisons report."""
    rows = []
    for (delta, scope), g in oriented_ab(cells).groupby(["handicap", "scope"]):
        rows.append({"delta": delta, "scope": scope, "cells": len(g), "B's loss (median)": float(g["loss"].median()),
                     "margin (median)": float(g["margin"].median()), "MDE80 (median)": float(g["mde80"].median()),
                     "loss > MDE80": int((g["loss"] > g["mde80"]).sum()),
                     "correct (better)": binomial(int((g["call"] == "better").sum()), len(g)),
                     "correct where loss > MDE80": binomial(int(((g["call"] == "better") & (g["loss"] > g["mde80"])).sum()),
                                                            int((g["loss"] > g["mde80"]).sum())),
                     "wrong way (worse)": int((g["call"] == "worse").sum())})
    return pd.DataFrame(rows)


def figure(cells: pd.DataFrame, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    g = oriented_ab(cells[(cells["scope"] == "one set") & (cells["handicap"] > 0)])
    # the true effect of a handicap on a set, estimated by its loss averaged over the repeats
    effect = g.groupby(["handicap", "catalog"])["loss"].transform("mean")
    g = g.assign(correct=g["call"] == "better", ratio=effect / g["mde80"])
    edges = np.array([-np.inf, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, np.inf])
    g["bin"] = pd.cut(g["ratio"], edges, right=False)
    binned = g.groupby("bin", observed=True).agg(power=("correct", "mean"), n=("correct", "size"),
                                                 x=("ratio", "median"))
    fig, ax = plt.subplots(figsize=(6.4, 4.0), dpi=110)
    ax.plot(binned["x"], binned["power"], "o-", label="A/B cells (one set each), share called correctly")
    for x, y, n in zip(binned["x"], binned["power"], binned["n"]):
        ax.annotate(f"n={n}", (x, y), textcoords="offset points", xytext=(4, -12), fontsize=7)
    ax.axvline(1.0, color="grey", ls="--", label="reported MDE80 (effect = MDE80)")
    ax.axhline(0.8, color="grey", ls=":", label="80 % power")
    ax.set_xlabel("effect (set's mean loss over repeats) / reported MDE80, log10 FVU validation")
    ax.set_ylabel("share of verdicts 'better' for A")
    ax.set_ylim(-0.02, 1.02)
    ax.set_title("srbf verdict power: prior vs prior with output x (1 + delta)")
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    print(f"figure: {path}")


def analyze_store(args) -> None:
    from srbf.report.data import load_long_frame

    started = time.perf_counter()
    frame = load_long_frame(args.work / "results")
    aa_methods = [m for m in frame["method"].unique() if not m.startswith("prior-x")]
    cells = pd.concat([by_scope(pair, HEADLINE).assign(method=method, pair=label)
                       for (method, label), pair in aa_frames(frame, aa_methods).items()], ignore_index=True)
    # delta = 0: A/A formed by two method entries (different names, so different seeds)
    zero = ab_cells(frame, [0.0], HEADLINE)
    if not zero.empty:
        cells = pd.concat([cells, zero.assign(method="prior vs prior-x0", mark=zero["budget"].map(lambda b: f"budget {b:g}"))],
                          ignore_index=True)
    pd.set_option("display.width", 200)
    pd.set_option("display.max_columns", 20)
    print(f"A/A: {frame['catalog'].nunique()} sets, {frame[['catalog', 'problem_id']].drop_duplicates().shape[0]} problems,"
          f" draws {sorted(frame['draw'].unique())}, repeats {sorted(frame['repeat'].unique())}")
    print(aa_table(cells).to_string(index=False))
    live = cells[cells["verdict"] != "n/a"]
    print("\nA/A false verdicts by metric (all scopes):")
    print(live.groupby("metric")["verdict"].apply(lambda v: f"{int(v.isin(['better', 'worse']).sum())}/{len(v)}").to_string())
    print("\nA/A by method and mark kind (false verdicts, raw p < 0.05):")
    for (method, kind), g in live.groupby(["method", live["mark"].str.split().str[0]]):
        p = g["p_value"].dropna()
        print(f"  {method:20s} {kind:7s} {int(g['verdict'].isin(['better', 'worse']).sum())}/{len(g)}"
              f"  {int((p < 0.05).sum())}/{len(p)}")
    print("\nA/A verdicts:", live["verdict"].value_counts().to_dict())
    ab = ab_cells(frame, [d for d in numbers(args.deltas) if d > 0], [POWER_METRIC])
    if not ab.empty:
        print(f"\nA/B power on {POWER_METRIC} (A = prior, B = prior with output x (1 + delta)):")
        print(ab_table(ab).to_string(index=False))
        if args.figure:
            figure(ab, args.figure)
    print(f"analysis {time.perf_counter() - started:.0f} s")


def main() -> None:
    args = arguments()
    args.work = args.work.resolve()
    if args.stage in ("all", "run"):
        run(args)
    if args.stage in ("all", "analyze"):
        analyze_store(args)


if __name__ == "__main__":
    main()
