"""Time to the first stored fit of `srbf run` with four real roster methods and 2 workers.

    python benchmarks/first_fit.py [--rounds 3] [--methods gplearn,deap_gp,operon,ffx]
                                   [--workers 2] [--baseline PATH/TO/srbf]

Each round times, one after another: each method's worker start measured alone (a ``Worker`` of
the method's config, started and closed: interpreter, guard, the package's import, ``setup``),
then ``srbf run -c CONFIG --quiet`` as a user runs it, into a new results directory, while this
script polls the store (read-only, every 10 ms) for its first stored prediction. Printed: the
medians over the rounds of each method's worker start, the time from the command's start to its
first stored fit and to its exit (the whole run: every method on 4 Feynman problems, one budget
each). The target: the first stored fit at most 1 s after the slowest method's own worker start.
``--baseline SRBF`` times that ``srbf`` command (another checkout's) in the same rounds,
interleaved, so both see the same machine load. Needs the methods' environments
(`srbf methods install NAME`). Figures printed, not asserted.
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BUDGETS = {"gplearn": 2, "deap_gp": 2, "operon": 8, "ffx": 1, "bingo": 10}  # a short rung of each ladder
PROBLEMS = 4


def write_config(folder: Path, methods: list[str], workers: int) -> Path:
    import yaml

    document = {
        "experiment": "first-fit",
        "catalogs": ["feynman"],
        "limit": PROBLEMS,
        "methods": [{"name": name, "budgets": [BUDGETS.get(name, 1)]} for name in methods],
        "workers": workers,
        "results": str(folder / "results"),
    }
    path = folder / "first_fit.yaml"
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    return path


def worker_starts(config_path: Path) -> dict[str, float]:
    """Seconds to start (and close) one worker of each method of the config, one after another."""
    from srbf.runs.config import load_config
    from srbf.runs.executor import new_worker
    from srbf.runs.plan import worker_spec

    seconds = {}
    for variant in load_config(config_path).variants():
        worker = new_worker(worker_spec(variant), start_timeout=600.0, tail_bytes=8192)
        t0 = time.perf_counter()
        worker.start()
        seconds[variant.name] = time.perf_counter() - t0
        worker.close()
    return seconds


def first_stored(store: Path) -> bool:
    if not store.exists():
        return False
    try:
        with sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=0.05) as db:
            return db.execute("SELECT 1 FROM predictions LIMIT 1").fetchone() is not None
    except sqlite3.Error:  # being created: no table yet
        return False


def timed_run(srbf: list[str], config_path: Path, results: Path) -> tuple[float, float]:
    """Seconds from starting ``srbf run`` to its first stored prediction, and to its exit."""
    command = [*srbf, "run", "-c", str(config_path), "--results", str(results), "--quiet"]
    t0 = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    first = None
    while process.poll() is None:
        if first is None and first_stored(results / "srbf.sqlite"):
            first = time.perf_counter() - t0
        time.sleep(0.01)
    total = time.perf_counter() - t0
    error = process.stderr.read()
    process.stderr.close()
    if process.returncode != 0:
        raise SystemExit(f"{' '.join(command)} exited with {process.returncode}:\n{error}")
    return (first if first is not None else total), total


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="rounds (medians are printed; default 3)")
    parser.add_argument("--methods", default="gplearn,deap_gp,operon,ffx", help="roster methods, comma-separated")
    parser.add_argument("--workers", type=int, default=2, help="--workers of the run (default 2)")
    parser.add_argument("--baseline", help="another srbf command to time in the same rounds (e.g. main's)")
    args = parser.parse_args(argv)
    methods = args.methods.split(",")
    commands = {"this": [sys.executable, "-m", "srbf"]}
    if args.baseline:
        commands["baseline"] = [args.baseline]
    starts: dict[str, list[float]] = {name: [] for name in methods}
    firsts: dict[str, list[float]] = {label: [] for label in commands}
    totals: dict[str, list[float]] = {label: [] for label in commands}
    with tempfile.TemporaryDirectory(prefix="srbf-first-fit-") as tmp:
        folder = Path(tmp)
        config_path = write_config(folder, methods, args.workers)
        for round_ in range(args.rounds):
            for name, seconds in worker_starts(config_path).items():
                starts[name].append(seconds)
            order = list(commands) if round_ % 2 == 0 else list(reversed(commands))
            for label in order:
                first, total = timed_run(commands[label], config_path, folder / f"results-{label}-{round_}")
                firsts[label].append(first)
                totals[label].append(total)
            print(f"round {round_ + 1}: " + "; ".join(
                f"{label}: first fit {firsts[label][-1]:.2f} s, run {totals[label][-1]:.2f} s" for label in commands
            ), file=sys.stderr, flush=True)  # fmt: skip
    median = statistics.median
    print(f"{len(methods)} methods, --workers {args.workers}, {PROBLEMS} Feynman problems, {args.rounds} round(s): medians")
    for name in methods:
        print(f"  worker start alone  {name:<10} {median(starts[name]):6.2f} s")
    slowest = max(median(starts[name]) for name in methods)
    for label in commands:
        first = median(firsts[label])
        print(f"  {label:<8} first stored fit {first:6.2f} s   whole run {median(totals[label]):6.2f} s")
    first = median(firsts["this"])
    verdict = "met" if first <= slowest + 1.0 else "missed"
    print(f"target: first stored fit <= slowest worker start + 1 s = {slowest + 1.0:.2f} s: {verdict} ({first:.2f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
