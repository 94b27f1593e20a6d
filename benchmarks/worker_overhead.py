"""Harness overhead per fit of the worker protocol, for a trivial method on 512 x 5 inputs.

Overhead = the parent's wall time around ``Worker.fit`` minus the fit's own wall time measured in
the child: encoding and sending the task, decoding it, seeding, checking and sending the result.
Target: a median of at most 5 ms. Run: python benchmarks/worker_overhead.py [n_fits]
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from srbf.methods import Worker
from srbf.runs.records import FitTask, TaskKey

TRIVIAL = '''
def fit(X, y, *, budget, seed, variables, options, report):
    report("x0")
    return {"expression": "x0 + x1", "constants": [1.0, 2.0]}
'''


def main(n_fits: int = 1000) -> None:
    rng = np.random.default_rng(0)
    X, y = rng.uniform(-1, 1, size=(512, 5)), rng.normal(size=512)
    variables = tuple(f"x{i}" for i in range(5))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp, "trivial.py")
        path.write_text(TRIVIAL)
        t0 = time.perf_counter()
        with Worker(path) as worker:
            start_seconds = time.perf_counter() - t0
            overheads, round_trips = [], []
            for i in range(n_fits + 20):
                key = TaskKey("trivial", "-", "bench", 1, f"p{i}", 0, 100.0, "n_support=512", i)
                task = FitTask(key, X, y, variables, time_limit=60.0)
                t = time.perf_counter()
                result = worker.fit(task)
                elapsed = time.perf_counter() - t
                assert result.status == "ok", result.error
                if i >= 20:  # warm-up excluded
                    round_trips.append(elapsed)
                    overheads.append(elapsed - result.wall_seconds)
    ms = 1e3
    q = statistics.quantiles(overheads, n=100)
    print(f"worker start (interpreter, numpy, method import): {start_seconds * ms:.1f} ms")
    print(f"fits: {n_fits}, inputs 512 x 5 float64 ({X.nbytes + y.nbytes} bytes)")
    print(f"harness overhead per fit: median {statistics.median(overheads) * ms:.3f} ms, "
          f"p90 {q[89] * ms:.3f} ms, p99 {q[98] * ms:.3f} ms, max {max(overheads) * ms:.3f} ms")
    print(f"round trip per fit: median {statistics.median(round_trips) * ms:.3f} ms")
    print(f"target median <= 5 ms: {'met' if statistics.median(overheads) <= 5e-3 else 'NOT met'}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1000)
