"""How fast is ``srbf analyze`` on a scored store, and where does its time go?

    python benchmarks/analyze.py STORE [--repeat 3] [--srbf PYTHON] [--stages]

Runs ``srbf analyze`` on STORE (a scored results store, e.g. the ``score-2_workers`` copy that
``benchmarks/suite.py --keep DIR`` leaves) ``--repeat`` times, each in a fresh process writing
a fresh report, and prints for each the wall time, the CPU time of its process tree and the
tree's peak memory (PSS), measured as ``benchmarks/suite.py`` measures its analyze row.
``--srbf PYTHON`` runs another checkout's interpreter (its ``-m srbf.cli``), to compare two
versions back to back on the same store. ``--stages`` then times the steps in this process
(CPU seconds): the imports, reading the store, the analysis, the tables, the drawing process's
warm-up and each curve figure drawn here one after the other (``srbf analyze`` draws them in
two processes, side by side; in each, figures after the first reuse its Agg renderer and, for
the curves, its kept figure).
Target (issue 19): under 2 s and 400 MB on the suite's store (linear on all 6,660 problems).
It prints figures and asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from suite import load, timed  # noqa: E402  (the suite's own measurement)


def stages(store: Path, folder: Path) -> list[tuple[str, float]]:
    """CPU seconds of each step of the analysis, in this process."""
    laps: list[tuple[str, float]] = []
    started = time.process_time()

    def lap(name: str) -> None:
        nonlocal started
        now = time.process_time()
        laps.append((name, now - started))
        started = now

    import pandas  # noqa: F401

    lap("import numpy, pandas")
    from srbf.report import build, readings
    from srbf.report.data import load_long_frame

    lap("import srbf.report, srbf.stats (SciPy)")
    frame = load_long_frame(store)
    lap("read the store (the long frame)")
    metrics = readings.choose_metrics(frame)
    provenance = build.provenance_labels(frame)
    analysis, marks, _ = readings.run_analysis(frame, metrics)
    lap("analysis")
    from srbf.report import markdown_tables as T
    from srbf.report.marks import collapse_repeated

    shown, _ = collapse_repeated(analysis.aggregates, marks)
    for mark in marks:
        T.leaderboard(analysis.aggregates, metrics, mark, provenance)
    T.per_set(analysis, metrics)
    T.verdicts(analysis.comparisons, [m for m in metrics if readings.comparable(m)], marks)
    lap("tables")
    from srbf.report.figures import curves_figure

    lap("import matplotlib")
    from srbf.report.agg_canvas import warm_up

    warm_up()
    lap("the drawing process's warm-up")
    times = [m.x for m in shown if m.axis == "time"]
    for metric in metrics:
        curves_figure(analysis.aggregates, metric, folder / f"curve_{metric}.png", provenance, times)
        lap(f"curve figure {metric}")
    return laps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("store", type=Path, help="a scored results store")
    parser.add_argument("--repeat", type=int, default=3, help="runs of srbf analyze (default: 3)")
    parser.add_argument("--srbf", default=sys.executable, help="the Python whose srbf runs (default: this one)")
    parser.add_argument("--stages", action="store_true", help="also time each step in this process")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="srbf-analyze-") as scratch:
        print(f"srbf analyze on {args.store} ({args.srbf}); {os.cpu_count()} cores; load before: {load()}")
        print(f"{'run':>4} {'wall s':>8} {'CPU s':>8} {'peak MB':>8}")
        for run in range(args.repeat):
            seconds, cpu, peak = timed([args.srbf, "-m", "srbf.cli", "analyze", "--results", str(args.store),
                                        "-o", str(Path(scratch) / f"report-{run}")])
            print(f"{run + 1:>4} {seconds:8.2f} {cpu:8.2f} {peak / 2**20:8.0f}")
        print(f"load after: {load()}")
        if args.stages:
            print(f"{'step (in this process)':44} {'CPU s':>8}")
            for name, seconds in stages(args.store, Path(scratch)):
                print(f"{name:44} {seconds:8.3f}")


if __name__ == "__main__":
    main()
