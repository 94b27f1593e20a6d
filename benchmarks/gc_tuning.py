"""What ``srbf.core.collector_tuned`` buys: the suite and the catalogs' loading with srbf's
garbage-collector tuning and with Python's defaults (``SRBF_GC=default``), side by side.

Run:  python benchmarks/gc_tuning.py [--rounds 3] [--limit N]

Each round runs ``benchmarks/suite.py --skip-dask`` (``--limit``: the first N problems of each set)
and ``benchmarks/catalog_load.py --repeat 3`` once tuned and once with the defaults, in turn, so a
shared machine's load weighs on both alike; every process of a step (slots, scoring processes)
inherits the setting. Prints the median CPU and wall seconds of each step; CPU is the steadier
figure on a loaded machine. Figures are printed, not asserted. On 2026-12-05 (2 cores, shared,
load falling from 6 to 0, medians of 2 rounds, CPU s tuned against default): run 6.71 / 7.05
(1 worker), 7.05 / 7.65 (2 workers); score 4.90 / 7.04 (1 worker), 6.96 / 6.12 (2 workers);
analyze 1.85 / 1.95; loading every catalog 0.07 / 0.10 s wall (admitted).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
STEP = re.compile(r"^(run, local, \d workers?|score, \d workers?|analyze)\s+([\d.]+)\s+([\d.]+)", re.M)


def one_round(tuned: bool, limit: int | None) -> dict[str, tuple[float, float]]:
    env = {**os.environ, "SRBF_GC": "tuned" if tuned else "default"}
    suite = [sys.executable, str(HERE / "suite.py"), "--skip-dask"] + (["--limit", str(limit)] if limit else [])
    out = subprocess.run(suite, env=env, capture_output=True, text=True, check=True).stdout
    figures = {name: (float(wall), float(cpu)) for name, wall, cpu in STEP.findall(out)}
    load = subprocess.run([sys.executable, str(HERE / "catalog_load.py"), "--repeat", "3"], env=env,
                          capture_output=True, text=True, check=True).stdout  # fmt: skip
    loads = json.loads(load.strip().splitlines()[-1])
    figures["load catalogs, admitted"] = (loads["load with admission"], float("nan"))
    figures["load catalogs, no adm."] = (loads["load, no admission"], float("nan"))
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--limit", type=int, default=None)
    args = parser.parse_args()
    seen: dict[bool, dict[str, list[tuple[float, float]]]] = {True: defaultdict(list), False: defaultdict(list)}
    for _ in range(args.rounds):
        for tuned in (True, False):
            for step, figures in one_round(tuned, args.limit).items():
                seen[tuned][step].append(figures)
    print(f"{'step':24s} {'tuned CPU s':>12s} {'default CPU s':>14s} {'tuned wall s':>13s} {'default wall s':>15s}")
    for step in seen[True]:
        t, d = seen[True][step], seen[False].get(step, [])
        cpu_t, cpu_d = (statistics.median(c for _, c in xs) if xs else float("nan") for xs in (t, d))
        wall_t, wall_d = (statistics.median(w for w, _ in xs) if xs else float("nan") for xs in (t, d))
        print(f"{step:24s} {cpu_t:12.2f} {cpu_d:14.2f} {wall_t:13.2f} {wall_d:15.2f}")


if __name__ == "__main__":
    main()
