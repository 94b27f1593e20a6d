"""Harness overhead per fit of the worker protocol, for a trivial method on 512 x 5 inputs.

Overhead = the parent's wall time around ``Worker.fit`` minus the fit's own wall time measured in
the child: encoding and sending the task, decoding it, seeding, checking and sending the result.
Target: a median of at most 5 ms. Also the time to start a worker (median of 5 starts: guard,
interpreter, NumPy, the method's import). ``--sandbox`` runs the worker under bubblewrap.
Run: python benchmarks/worker_overhead.py [n_fits] [--sandbox]
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from srbf.methods import Worker
from srbf.methods.isolation import Sandbox
from srbf.core import FitTask, TaskKey

TRIVIAL = '''
def fit(X, y, *, budget, seed, variables, options, report):
    report("x0")
    return {"expression": "x0 + x1", "constants": [1.0, 2.0]}
'''


def main(n_fits: int = 1000, sandbox: Sandbox | None = None) -> None:
    rng = np.random.default_rng(0)
    X, y = rng.uniform(-1, 1, size=(512, 5)), rng.normal(size=512)
    variables = tuple(f"x{i}" for i in range(5))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp, "trivial.py")
        path.write_text(TRIVIAL)
        starts = []
        for _ in range(5):
            t0 = time.perf_counter()
            Worker(path, sandbox=sandbox).start().close()
            starts.append(time.perf_counter() - t0)
        start_seconds = statistics.median(starts)
        with Worker(path, sandbox=sandbox) as worker:
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
    where = "under bubblewrap" if sandbox else "default isolation"
    print(f"worker start ({where}: guard, interpreter, numpy, method import), median of 5: {start_seconds * ms:.1f} ms")
    print(f"fits: {n_fits}, inputs 512 x 5 float64 ({X.nbytes + y.nbytes} bytes)")
    print(f"harness overhead per fit: median {statistics.median(overheads) * ms:.3f} ms, "
          f"p90 {q[89] * ms:.3f} ms, p99 {q[98] * ms:.3f} ms, max {max(overheads) * ms:.3f} ms")
    print(f"round trip per fit: median {statistics.median(round_trips) * ms:.3f} ms")
    print(f"target median <= 5 ms: {'met' if statistics.median(overheads) <= 5e-3 else 'NOT met'}")


if __name__ == "__main__":
    numbers = [a for a in sys.argv[1:] if a.isdigit()]
    main(int(numbers[0]) if numbers else 1000, Sandbox() if "--sandbox" in sys.argv[1:] else None)
