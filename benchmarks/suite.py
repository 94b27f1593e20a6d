"""The whole suite on this machine: ``linear`` on every shipped problem (one draw), run, scored, analyzed.

    python benchmarks/suite.py [--limit N] [--skip-dask] [--keep DIR]

Each step is the ``srbf`` command a user types, in a fresh process, on a fresh store:

- ``srbf run`` with the local executor and 1 and 2 workers, with ``--executor dask --local 2``
  (a 2-worker LocalCluster, started and stopped inside the timed command), and with
  ``--scheduler`` on a 2-worker LocalCluster started beforehand (throughput without start-up);
- ``srbf score`` with 1 and 2 workers, on the store of the first run;
- ``srbf analyze`` on it.

For each it prints the wall time, the peak memory of the whole process tree (the command, its
workers and their children: the sum of their resident sets, sampled every 20 ms from /proc),
the fits (or predictions) per second, and the 2-worker speed-up over 1 worker. The Dask row's
ratio is its throughput against the local executor's with 2 workers, and it checks that both
stored the same results (key, status, expression). It prints figures and asserts nothing.
Targets (issue 19): run < 6 s and >= 1.5x with 2 workers, score < 5 s with 2 workers, analyze < 2 s,
every step < 400 MB, Dask >= 0.8x the local executor with identical results.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

PAGE = os.sysconf("SC_PAGE_SIZE")


def tree_rss(root: int) -> int:
    """Bytes resident in process ``root`` and all its descendants now (Linux /proc)."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{entry}/statm") as handle:
                rss[int(entry)] = int(handle.read().split()[1]) * PAGE
        except (OSError, IndexError, ValueError):
            continue  # gone meanwhile
        children.setdefault(int(fields[1]), []).append(int(entry))
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        total += rss.get(pid, 0)
        todo.extend(children.get(pid, []))
    return total


def timed(command: list[str]) -> tuple[float, int]:
    """Run ``command``; return its wall time and the peak resident memory of its process tree."""
    started = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    peak = 0
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, tree_rss(proc.pid))
            done.wait(0.02)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    _, err = proc.communicate()
    seconds = time.perf_counter() - started
    done.set()
    sampler.join()
    if proc.returncode != 0:
        sys.exit(f"{' '.join(command)} failed ({proc.returncode}):\n{err}")
    return seconds, peak


def write_config(folder: Path, limit: int | None) -> Path:
    from srbf.catalogs.loader import list_catalogs

    lines = [
        "experiment: suite",
        f"catalogs: [{', '.join(list_catalogs())}]",
        "method: linear",
        "budgets: [1]",  # one fit per problem, not the default ladder
        "sampling: {n_support: 512, n_validation: 512, draws: 1}",
        f"results: {folder / 'unused'}",
    ]
    if limit:
        lines.append(f"limit: {limit}")
    path = folder / "suite.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


def stored(store: Path) -> list[tuple]:
    conn = sqlite3.connect(f"file:{store / 'srbf.sqlite'}?mode=ro", uri=True)
    try:
        return sorted(conn.execute("SELECT catalog, problem_id, status, expression FROM predictions").fetchall())
    finally:
        conn.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, help="the first N problems of each set (default: all)")
    parser.add_argument("--skip-dask", action="store_true", help="leave out the LocalCluster run")
    parser.add_argument("--keep", type=Path, help="keep the stores and reports here (default: a temporary folder)")
    args = parser.parse_args()
    srbf = [sys.executable, "-m", "srbf.cli"]
    with tempfile.TemporaryDirectory(prefix="srbf-suite-") as scratch:
        folder = args.keep or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        config = write_config(folder, args.limit)
        rows: list[tuple[str, float, int, int]] = []  # step, seconds, peak bytes, items
        runs = [("run, local, 1 worker", ["--workers", "1"]), ("run, local, 2 workers", ["--workers", "2"])]
        if not args.skip_dask:
            runs.append(("run, dask LocalCluster, 2 workers", ["--executor", "dask", "--local", "2"]))
        cluster = None
        if not args.skip_dask:  # the same, on a cluster started beforehand: throughput without start-up
            from distributed import LocalCluster

            cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
            runs.append(("run, dask scheduler, 2 workers *", ["--executor", "dask", "--scheduler", cluster.scheduler_address]))
        stores = {}
        for label, flags in runs:
            store = folder / label.replace(", ", "-").replace(" ", "_").rstrip("_*")
            seconds, peak = timed([*srbf, "run", "-c", str(config), "--results", str(store), "--quiet", *flags])
            stores[label] = store
            rows.append((label, seconds, peak, len(stored(store))))
        if cluster is not None:
            cluster.close()
        first = stores[runs[0][0]]
        for workers in (1, 2):
            copy = folder / f"scored-{workers}"
            subprocess.run(["cp", "-r", str(first), str(copy)], check=True)
            seconds, peak = timed([*srbf, "score", "--results", str(copy), "--workers", str(workers), "--quiet"])
            rows.append((f"score, {workers} worker{'s' if workers > 1 else ''}", seconds, peak, len(stored(copy))))
        seconds, peak = timed([*srbf, "analyze", "--results", str(folder / "scored-2"), "-o", str(folder / "report")])
        rows.append(("analyze", seconds, peak, len(stored(folder / "scored-2"))))

        by = {label: seconds for label, seconds, _, _ in rows}
        print(f"srbf suite: linear on {rows[0][3]} problems, one draw, 512 + 512 points; {os.cpu_count()} cores")
        print(f"{'step':36} {'wall s':>8} {'peak MB':>8} {'items/s':>8} {'ratio':>7}")
        for label, seconds, peak, items in rows:
            ratio = ""
            if label.endswith("2 workers") and label.startswith(("run, local", "score")):
                ratio = f"{by[label.replace('2 workers', '1 worker')] / seconds:.2f}x"
            elif label.startswith("run, dask"):
                ratio = f"{by['run, local, 2 workers'] / seconds:.2f}x"
            print(f"{label:36} {seconds:8.2f} {peak / 2**20:8.0f} {items / seconds:8.0f} {ratio:>7}")
        print("ratio: 2 workers' speed-up over 1; for Dask, its throughput over the local executor's with 2 workers")
        if cluster is not None:
            print("*: the cluster was started before the command; its workers' memory is not in the peak")
        if not args.skip_dask:
            same = all(stored(stores[label]) == stored(stores[runs[1][0]]) for label, _ in runs[2:])
            print(f"dask and local stored the same results (key, status, expression): {same}")


if __name__ == "__main__":
    main()
