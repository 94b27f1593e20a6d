"""Harness overhead per fit: the built-in ``linear`` method on 1,000 problems, with 1 and 2 workers.

    python benchmarks/overhead.py [--problems 1000] [--workers 1 2] [--repeat 3] [--busy-ms 0 [X ...]]

Each run goes through the whole driver, as ``srbf run`` does: plan, sample in the parent, fit in
worker processes, record every fit in a fresh results store (fits finished within 50 ms of each
other share one commit). The figures printed:

- overhead per fit = wall time of the run / fits - the method's own median fit time (the
  definition of the issue; worker start-up, planning and the store are all inside the wall time);
- steady state = time between the first and the last record / (fits - 1): the same without the
  one-time costs (catalog loading, worker start-up);
- the speed-up of the last worker count over the first.

Each configuration runs ``--repeat`` times and the fastest run is shown (other load on the
machine only ever slows a run down). ``--busy-ms X [Y ...]`` runs, for each value that is not 0,
a method file that computes for that many ms of CPU per fit and then returns the least-squares
line instead of ``linear``: it shows how the speed-up grows once fits are no longer trivially
short next to the harness's own work. With several values a last table sums up the speed-ups.

Targets: <= 5 ms overhead per fit (median) with 2 workers, >= 1.7x faster with 2 workers than 1.
The script prints figures and asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path


BUSY = """
import time
import numpy as np


def fit(X, y, *, budget, seed, variables, options, report):
    started = time.perf_counter()
    end = time.process_time() + options["busy_ms"] / 1000.0
    while time.process_time() < end:
        pass
    A = np.column_stack([X, np.ones(len(y))])
    w, *_ = np.linalg.lstsq(A, y, rcond=None)
    terms = " + ".join(f"{float(c)!r} * {v}" for c, v in zip(w, variables))
    return {"expression": f"{terms} + {float(w[-1])!r}", "fit_seconds": time.perf_counter() - started}
"""


def config_for(problems: int, workers: int, results: Path, busy_ms: float = 0.0):
    from srbf.catalogs.loader import list_catalogs, load_catalog
    from srbf.runs.config import config_from_dict

    chosen: dict[str, list[str]] = {}
    left = problems
    for name in sorted(list_catalogs(), key=lambda n: -len(load_catalog(n))):  # the largest sets first
        if left <= 0:
            break
        ids = list(load_catalog(name).ids[:left])
        chosen[name] = ids
        left -= len(ids)
    method = {"name": "linear", "budgets": [1], "time_limit": 60, "config_provenance": "upstream_default"}
    if busy_ms > 0:
        file = results.parent / "busy.py"
        file.write_text(BUSY)
        method = {"name": "busy", "adapter": {"type": "file", "path": str(file)}, "options": {"busy_ms": busy_ms},
                  "budgets": [1], "time_limit": 60, "config_provenance": "harness_tuned"}  # fmt: skip
    return config_from_dict(
        {
            "experiment": "overhead",
            "catalogs": list(chosen),
            "problems": chosen,
            "sampling": {"n_support": 512, "n_validation": 512, "draws": 1},
            "method": method,
            "workers": workers,
            "results": str(results),
        }
    )


def measure(problems: int, workers: int, busy_ms: float = 0.0) -> dict:
    from srbf.runs.driver import run_config
    from srbf.store import ResultsStore

    with tempfile.TemporaryDirectory(prefix="srbf-overhead-") as folder:
        config = config_for(problems, workers, Path(folder) / "results", busy_ms)
        started = time.perf_counter()
        summary = run_config(config, progress=False)
        wall = time.perf_counter() - started
        with ResultsStore.open_readonly(config.results) as store:
            frame = store.predictions_frame(decode_json=False)
    fits = frame[frame.status != "placeholder"]
    times = sorted(datetime.fromisoformat(t) for t in frame.created_at)
    steady = (times[-1] - times[0]).total_seconds() / max(1, len(times) - 1)
    method = fits.method_seconds.dropna()
    return {
        "workers": workers,
        "fits": len(fits),
        "placeholders": int((frame.status == "placeholder").sum()),
        "failed": int((~fits.status.isin(["ok"])).sum()),
        "wall": wall,
        "per_fit": wall / max(1, len(fits)),
        "method_median": float(method.median()) if len(method) else 0.0,
        "method_mean": float(method.mean()) if len(method) else 0.0,
        "steady": steady,
        "recorded": summary.recorded,
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems", type=int, default=1000)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--repeat", type=int, default=3, help="runs per worker count; the fastest is shown")
    parser.add_argument("--busy-ms", type=float, nargs="+", default=[0.0],
                        help="fits of a method computing this long (ms of CPU) instead of linear (0: linear)")
    args = parser.parse_args(argv)

    from srbf.catalogs.loader import list_catalogs, load_catalog

    for name in list_catalogs():  # load (and cache) the catalogs once, outside the timings
        load_catalog(name)
    print(f"{args.problems} problems (512 support + 512 validation points each), "
          f"{os.cpu_count()} cores, Python {sys.version.split()[0]}")
    speedups = []
    for busy_ms in args.busy_ms:
        rows = _table(args, busy_ms)
        if len(rows) >= 2:
            a, b = rows[0], rows[-1]
            speedups.append((busy_ms, a["wall"] / b["wall"], a["steady"] / b["steady"]))
            print(f"speed-up of {b['workers']} workers over {a['workers']}: "
                  f"{speedups[-1][1]:.2f}x on the whole run, {speedups[-1][2]:.2f}x in the steady state")
    if len(speedups) > 1:
        print(f"\n{'method':>16} {'speed-up, whole run':>20} {'steady state':>13}")
        for busy_ms, whole, steady in speedups:
            what = f"busy {busy_ms:g} ms" if busy_ms > 0 else "linear"
            print(f"{what:>16} {whole:>19.2f}x {steady:>12.2f}x")
    print("\ntargets: overhead <= 5 ms per fit with 2 workers; >= 1.7x faster with 2 workers than 1")
    return 0


def _table(args, busy_ms: float) -> list[dict]:
    """Run each worker count ``--repeat`` times, print the fastest run of each, return them."""
    what = f"a method busy for {busy_ms:g} ms per fit" if busy_ms > 0 else "linear"
    print(f"\n{what}")
    print(f"{'workers':>7} {'fits':>6} {'wall s':>8} {'wall/fit ms':>12} {'method ms':>10} "
          f"{'overhead/fit ms':>16} {'steady/fit ms':>14}")
    rows = []
    for workers in args.workers:
        runs = (measure(args.problems, workers, busy_ms) for _ in range(max(1, args.repeat)))
        r = min(runs, key=lambda m: m["wall"])
        rows.append(r)
        overhead = (r["per_fit"] - r["method_median"]) * 1e3
        print(f"{workers:>7} {r['fits']:>6} {r['wall']:>8.2f} {r['per_fit'] * 1e3:>12.2f} "
              f"{r['method_median'] * 1e3:>10.3f} {overhead:>16.2f} {r['steady'] * 1e3:>14.2f}")
        if r["failed"] or r["placeholders"]:
            print(f"{'':>7} ({r['failed']} fits not ok, {r['placeholders']} placeholders)")
    return rows


if __name__ == "__main__":
    sys.exit(main())
