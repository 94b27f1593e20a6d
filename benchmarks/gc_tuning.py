"""What ``srbf.core.collector_tuned`` buys: the steps that use it, tuned and with Python's defaults.

    python benchmarks/gc_tuning.py [--rounds 3] [--limit N] [--against SRC]

Builds one store with ``srbf run`` (``linear`` on every shipped problem, one draw, as
benchmarks/suite.py; ``--limit``: the first N problems of each set), untimed, then each round runs
``srbf score`` with 1 and 2 workers (each on a fresh copy), ``srbf analyze`` on a scored copy and
``benchmarks/catalog_load.py --repeat 3``, once tuned and once with ``SRBF_GC=default`` (the switch
that makes ``collector_tuned`` leave the collector alone), and with ``--against SRC`` once more on
another source tree (``PYTHONPATH=SRC``: main's ``src``, say), the order turned round every round so
that a shared machine's load weighs on each alike. A step's CPU is that of its whole process tree
(the command and every process it started and waited for); CPU is the steadier figure on a loaded
machine. Prints the median CPU and wall seconds of each step and variant, and every round's CPU.
``srbf run`` is not among the steps: its slots and driver tune the collector on their own. Figures
are printed, not asserted; docs/performance.md keeps the latest.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from suite import write_config  # noqa: E402 - the suite's config: linear on every shipped problem

SRBF = [sys.executable, "-m", "srbf.cli"]


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of ``command`` and every process it waited for."""
    cpu, started = children_cpu(), time.perf_counter()
    subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - started, children_cpu() - cpu


def one_round(env: dict[str, str], folder: Path, unscored: Path, scored: Path) -> dict[str, tuple[float, float]]:
    figures = {}
    for workers in ("1", "2"):
        copy = folder / f"score-{workers}"
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(unscored, copy)
        figures[f"score, {workers} worker(s)"] = timed([*SRBF, "score", "--results", str(copy), "--quiet",
                                                        "--workers", workers], env)  # fmt: skip
    report = folder / "report"
    shutil.rmtree(report, ignore_errors=True)
    figures["analyze"] = timed([*SRBF, "analyze", "--results", str(scored), "-o", str(report)], env)
    load = subprocess.run([sys.executable, str(HERE / "catalog_load.py"), "--repeat", "3"], env=env,
                          capture_output=True, text=True, check=True).stdout  # fmt: skip
    figures["load catalogs (wall)"] = (json.loads(load.strip().splitlines()[-1])["load with admission"], float("nan"))
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--against", type=Path, help="another source tree to time beside this one (PYTHONPATH)")
    args = parser.parse_args()
    base = {name: value for name, value in os.environ.items() if name not in ("SRBF_GC", "PYTHONPATH")}
    variants = {"tuned": base, "default": {**base, "SRBF_GC": "default"}}
    if args.against:
        variants["against"] = {**base, "PYTHONPATH": str(args.against.resolve())}
    seen: dict[str, dict[str, list[tuple[float, float]]]] = {name: defaultdict(list) for name in variants}
    with tempfile.TemporaryDirectory(prefix="srbf-gc-tuning-") as scratch:
        folder = Path(scratch)
        config = write_config(folder, args.limit)
        unscored, scored = folder / "unscored", folder / "scored"
        subprocess.run([*SRBF, "run", "-c", str(config), "--results", str(unscored), "--quiet", "--workers", "2"],
                       check=True, stdout=subprocess.DEVNULL)  # fmt: skip
        shutil.copytree(unscored, scored)
        subprocess.run([*SRBF, "score", "--results", str(scored), "--quiet"], check=True, stdout=subprocess.DEVNULL)
        print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} cores")
        for number in range(args.rounds):
            order = list(variants) if number % 2 == 0 else list(reversed(variants))
            for name in order:
                for step, figures in one_round(variants[name], folder, unscored, scored).items():
                    seen[name][step].append(figures)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}\n")
    print(f"{'step':22s} {'variant':8s} {'CPU s':>6s} {'wall s':>7s}  CPU s of each round")
    for step in seen["tuned"]:
        for name in variants:
            rows = seen[name][step]
            cpu, wall = statistics.median(c for _, c in rows), statistics.median(w for w, _ in rows)
            print(f"{step:22s} {name:8s} {cpu:6.2f} {wall:7.2f}  {' '.join(f'{c:.2f}' for _, c in rows)}")


if __name__ == "__main__":
    main()
