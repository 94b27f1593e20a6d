"""What does one fit per ladder save? A powers-of-two ladder run both ways through the real driver.

For each method that declares an exact trajectory (gplearn, deap_gp), the same config (the first
``--problems`` Feynman problems, one draw, budgets 1, 2, 4, ..., 2**``--max-exponent``
generations, one worker, the method's own defaults) is run twice under one secret (so the method
gets the same seeds both ways): with every budget its own fit (``--separate-ladder``) and as one
fit per ladder. Prints per method and way:

- method-seconds: the sum of the wall seconds of the fits actually made (a rung read from the
  trajectory costs none);
- wall: the whole ``run_config`` call, worker start included;
- the saving (separate / one fit) on both, and whether every stored formula is identical.

A powers-of-two ladder 1..2**k costs 2**(k+1) - 1 generations apart and 2**k in one fit, so the
expected saving is near 2x (less where a generation's cost grows with the search, or fixed costs
per fit weigh).

Run: python benchmarks/ladder.py [--problems 3] [--max-exponent 4] [--methods gplearn deap_gp]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from srbf.runs.config import config_from_dict
from srbf.runs.driver import run_config
from srbf.runs.shards import Shard
from srbf.store import ResultsStore


def run_once(method: str, folder: Path, budgets: list[int], problems: int, separate: bool, secret: Path):
    config = config_from_dict({
        "experiment": f"ladder-{method}", "catalogs": "feynman", "limit": problems, "workers": 1, "seed": 11,
        "results": str(folder), "sampling": {"draws": 1, "n_support": 256, "n_validation": 16},
        "methods": [{"name": method, "budgets": budgets}]})  # fmt: skip
    started = time.perf_counter()
    summary = run_config(config, progress=False, log=lambda note: None, separate_ladder=separate,
                         shard=Shard.parse("1/1"), secret_file=secret)  # fmt: skip
    wall = time.perf_counter() - started
    with ResultsStore(folder) as store:
        frame = store.predictions_frame()
    fitted = frame[~frame["from_trajectory"]]
    formulas = {(r.problem_id, float(r.budget)): r.expression for r in frame.itertuples()}
    return summary, float(fitted["wall_seconds"].sum()), wall, len(fitted), formulas


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems", type=int, default=3)
    parser.add_argument("--max-exponent", type=int, default=4)
    parser.add_argument("--methods", nargs="+", default=["gplearn", "deap_gp"])
    args = parser.parse_args()
    budgets = [2**e for e in range(args.max_exponent + 1)]
    print(f"ladder {budgets} generations, {args.problems} Feynman problems, 1 draw, 1 worker")
    print(f"{'method':<9} {'way':<9} {'fits':>5} {'method-s':>9} {'wall s':>8}")
    for method in args.methods:
        with tempfile.TemporaryDirectory() as tmp:
            tmp = Path(tmp)
            secret = tmp / "secret"
            ways = {}
            for way, separate in (("separate", True), ("one fit", False)):
                summary, method_seconds, wall, fits, formulas = run_once(method, tmp / way.replace(" ", "_"), budgets,
                                                                         args.problems, separate, secret)  # fmt: skip
                ways[way] = (method_seconds, wall, formulas)
                print(f"{method:<9} {way:<9} {fits:>5} {method_seconds:>9.1f} {wall:>8.1f}"
                      f"   ({summary.ok} ok, {summary.failed} failed)")  # fmt: skip
            (ms_a, wall_a, f_a), (ms_b, wall_b, f_b) = ways["separate"], ways["one fit"]
            same = f_a == f_b
            print(f"{method:<9} saving: method-seconds {ms_a / ms_b:.2f}x, wall {wall_a / wall_b:.2f}x; "
                  f"formulas identical: {same} ({len(f_a)} rows)")


if __name__ == "__main__":
    main()
