"""What measuring fits from outside the method costs and how close it gets: prints

- the cost of reading a worker's process tree from /proc (``srbf.methods.process_tree``): a fit's
  start and end readings with and without a scan for new processes, and one sample (a scan);
- a method that sleeps ``--sleep`` s and then writes its own result message claiming a microsecond:
  the wall and CPU seconds srbf measures (plain and, where bubblewrap runs, sandboxed);
- a method that allocates 16 MiB at a time (touched) under a ``memory_limit``: the peak srbf
  stored against the limit (how far a fit gets past it between two samples), and how long it took;
- the round trip of the built-in ``linear`` (a fit of under a millisecond), the median of 300.

Run: python benchmarks/fit_measurement.py [--sleep 2] [--limit-mib 300]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import textwrap
import time
from pathlib import Path

import numpy as np

from srbf.core import FitTask, TaskKey
from srbf.methods import Worker, isolation
from srbf.methods.builtin import path_of
from srbf.methods.process_tree import SCAN_SECONDS, TreeMeter

PROBE = """
import json, os, struct, sys, time
import numpy as np

def fit(X, y, *, budget, seed, variables, options, report):
    if options["mode"] == "forge":
        time.sleep(options["sleep"])
        frame = sys._getframe(1)
        while "fit_id" not in frame.f_locals:
            frame = frame.f_back
        header = json.dumps({"type": "result", "id": frame.f_locals["fit_id"], "status": "ok", "expression": "x0",
                             "wall": 1e-6, "cpu": 1e-6, "method_seconds": 1e-6}).encode()
        os.write(int(sys.argv[2]), struct.pack("<4sIQ", b"SRBW", len(header), 0) + header)
        return {"expression": "x0"}
    blocks = []
    while True:
        blocks.append(np.ones(16 * 2**17))
"""

KEY = TaskKey("probe", "h", "c", 1, "p", 0, 1.0, "n_support=64;noise=0", 0)


def per_call(function, n: int) -> float:
    started = time.perf_counter()
    for _ in range(n):
        function()
    return (time.perf_counter() - started) / n


def tree_costs(worker: Worker) -> None:
    meter = TreeMeter(worker._proc.pid)
    meter.settle(worker.info.get("pid"))

    def reading(scan: bool):
        meter.start()
        meter.stop(scan)

    processes = sum(1 for name in os.listdir("/proc") if name.isdigit())
    print(f"process tree readings ({processes} processes on this machine, {len(meter.members)} in the tree):")
    print(f"  start + end, no scan     {1e3 * per_call(lambda: reading(False), 300):7.3f} ms per fit")
    print(f"  start + end, with scan   {1e3 * per_call(lambda: reading(True), 300):7.3f} ms per fit")
    print(f"  a sample                 {1e3 * per_call(meter.sample, 300):7.3f} ms, every 0.1 s of a fit "
          f"(a scan every {SCAN_SECONDS:g} s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sleep", type=float, default=2.0)
    parser.add_argument("--limit-mib", type=int, default=300)
    args = parser.parse_args()
    X = np.random.default_rng(0).uniform(size=(64, 1))
    y = X[:, 0] + 1.0
    with tempfile.TemporaryDirectory() as folder:
        probe = Path(folder, "probe.py")
        probe.write_text(textwrap.dedent(PROBE))
        with Worker(path_of("linear")) as linear:
            tree_costs(linear)
            times = [linear.fit(FitTask(KEY, X, y, ("x0",))).wall_seconds for _ in range(320)][20:]
            print(f"linear: median wall {1e3 * statistics.median(times):.3f} ms per fit (order sent to result received)")
        boxes = [("plain", None)] + ([("sandbox", isolation.Sandbox())] if isolation.sandbox_problem() is None else [])
        for label, sandbox in boxes:
            limit = args.limit_mib * 2**20
            with Worker(probe, sandbox=sandbox) as worker:
                forged = worker.fit(FitTask(KEY, X, y, ("x0",), {"mode": "forge", "sleep": args.sleep}, time_limit=60))
                print(f"{label}: forged result after {args.sleep:g} s of sleep: stored wall {forged.wall_seconds:.3f} s "
                      f"({100 * (forged.wall_seconds / args.sleep - 1):+.1f} %), CPU {forged.cpu_seconds:.3f} s, "
                      f"claimed {forged.method_seconds:g} s (kept apart)")  # fmt: skip
            with Worker(probe, sandbox=sandbox, memory_limit=limit) as worker:
                started = time.monotonic()
                hog = worker.fit(FitTask(KEY, X, y, ("x0",), {"mode": "hog"}, time_limit=120))
                print(f"{label}: allocating 16 MiB at a time, limit {args.limit_mib} MiB: {hog.status}, peak "
                      f"{hog.peak_memory_bytes / 2**20:.0f} MiB ({hog.peak_memory_bytes / limit - 1:+.1%} over), "
                      f"after {time.monotonic() - started:.2f} s")  # fmt: skip


if __name__ == "__main__":
    main()
