"""The Dask executor against the local one on the suite, back to back: where a LocalCluster's CPU and memory go.

    python benchmarks/dask_suite.py [--limit N] [--repeat R] [--steps run,score]

``benchmarks/suite.py`` runs every step once; this runs only the rows that compare the executors,
alternating them ``--repeat`` times (a shared machine's load moves between two runs, so each Dask
row is compared with the local row run just before it), on the ``linear`` built-in over the
shipped problems (one draw, 512 + 512 points):

- ``srbf run`` with the local executor (2 workers), with ``--executor dask --local 2`` (the
  LocalCluster started and stopped inside the command) and with ``--scheduler`` on a 2-worker
  LocalCluster started beforehand with srbf's ``LEAN_SETTINGS`` (``srbf.runs.dask_cluster``), as
  docs/cluster.md recommends for workers started by hand;
- ``srbf score`` with 2 local workers and with ``--executor dask --local 2``.

For each row it prints the wall time, the CPU time and peak memory (PSS) of the command's process
tree, and the same split by process: the command itself (with a LocalCluster: the scheduler and
the nannies too), the processes it spawns (slots, scoring processes or Dask workers) and the
method processes under them. CPU per process is read from /proc every 20 ms, so a process that
lives less than that is missed. Each Dask row's ratio is the local row's wall time over its own;
the Dask runs must store the same results (key, status, expression) and metrics as the local ones.
It prints figures and asserts nothing. Target (issue 19): Dask >= 0.8x, each step < 400 MB.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from suite import _pss as suite_pss
from suite import load, metrics, run_sampled, stored, warm_up, write_config

TICKS = os.sysconf("SC_CLK_TCK")


def _processes() -> dict[int, tuple[int, float, str]]:
    """Every process now: pid -> (parent pid, CPU seconds, what it runs)."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                command = handle.read().replace(b"\0", b" ").decode(errors="replace")
        except (OSError, IndexError):
            continue  # gone meanwhile
        found[int(entry)] = (int(fields[1]), (int(fields[11]) + int(fields[12])) / TICKS, command)
    return found


def _pss(pid: int) -> int:
    """``suite._pss``, with 0 for a process gone meanwhile."""
    try:
        return suite_pss(pid)
    except (OSError, ValueError):
        return 0


def role(depth: int, command: str) -> str:
    if depth == 0:
        return "the command"
    if "resource_tracker" in command:
        return "resource tracker"
    if "multiprocessing.forkserver" in command:  # a LocalCluster's Dask workers are forked by it
        return "fork server" if depth == 1 else "spawned (slot, scorer, Dask worker)"
    if "srbf/methods/worker" in command or "srbf.methods.worker" in command:
        return "method processes"
    return "spawned (slot, scorer, Dask worker)" if depth == 1 else "other"


def timed(command: list[str]) -> tuple[float, float, int, dict[str, list]]:
    """Run ``command``; its wall time, the CPU of its tree, the tree's peak PSS, and per role
    [processes, CPU seconds, sum of their peak PSS]."""
    seen: dict[int, list] = {}  # pid -> [role, CPU, peak PSS]
    peak = 0

    def sample(root: int) -> None:
        nonlocal peak
        now = _processes()
        depth = {root: 0}
        grew = True
        while grew:
            grew = False
            for pid, (parent, _, _) in now.items():
                if parent in depth and pid not in depth:
                    depth[pid] = depth[parent] + 1
                    grew = True
        total = 0
        for pid, d in depth.items():
            if pid not in now:
                continue
            pss = _pss(pid)
            total += pss
            entry = seen.setdefault(pid, [role(d, now[pid][2]), 0.0, 0])
            entry[1] = max(entry[1], now[pid][1])
            entry[2] = max(entry[2], pss)
        peak = max(peak, total)

    seconds = run_sampled(command, sample)
    roles: dict[str, list] = defaultdict(lambda: [0, 0.0, 0])
    for name, cpu, pss in seen.values():
        roles[name][0] += 1
        roles[name][1] += cpu
        roles[name][2] += pss
    return seconds, sum(cpu for _, cpu, _ in seen.values()), peak, dict(roles)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, help="the first N problems of each set (default: all)")
    parser.add_argument("--repeat", type=int, default=1, help="alternate the local and Dask rows this many times")
    parser.add_argument("--steps", default="run,score", help="run, score or both (default: run,score)")
    parser.add_argument("--keep", type=Path, help="keep the stores here (default: a temporary folder)")
    args = parser.parse_args()
    steps = set(args.steps.split(","))
    srbf = [sys.executable, "-m", "srbf.cli"]
    with tempfile.TemporaryDirectory(prefix="srbf-dask-suite-") as scratch:
        folder = args.keep or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        warm_up(srbf, folder)
        config = write_config(folder, args.limit)
        before = load()
        import dask
        from distributed import LocalCluster

        from srbf.runs.dask_cluster import LEAN_SETTINGS

        with dask.config.set(LEAN_SETTINGS):
            cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, memory_limit=0,
                                   dashboard_address=None)  # fmt: skip
        rows: list[tuple] = []  # label, seconds, CPU, peak, items, roles, ratio
        same_results, same_metrics = [], []
        try:
            for repeat in range(args.repeat):
                base = folder / f"run-local-{repeat}"  # compared with, and the store that is scored
                shutil.rmtree(base, ignore_errors=True)
                row = timed([*srbf, "run", "-c", str(config), "--results", str(base), "--quiet", "--workers", "2"])
                rows.append(("run, local, 2 workers", *row[:3], len(stored(base)), row[3], ""))
                if "run" in steps:
                    local_seconds = rows[-1][1]
                    for label, flags in (("run, dask --local 2", ["--local", "2"]),
                                         ("run, dask --scheduler *", ["--scheduler", cluster.scheduler_address])):  # fmt: skip
                        store = folder / f"run-dask-{flags[0].strip('-')}-{repeat}"
                        shutil.rmtree(store, ignore_errors=True)
                        row = timed([*srbf, "run", "-c", str(config), "--results", str(store), "--quiet",
                                     "--executor", "dask", *flags])  # fmt: skip
                        rows.append((label, *row[:3], len(stored(store)), row[3], f"{local_seconds / row[0]:.2f}x"))
                        same_results.append(stored(store) == stored(base))
                if "score" in steps:
                    scored = {}
                    for label, flags in (("score, local, 2 workers", ["--workers", "2"]),
                                         ("score, dask --local 2", ["--executor", "dask", "--local", "2"])):  # fmt: skip
                        copy = scored[label] = folder / f"{label.replace(', ', '-').replace(' ', '_')}-{repeat}"
                        shutil.rmtree(copy, ignore_errors=True)
                        shutil.copytree(base, copy)
                        row = timed([*srbf, "score", "--results", str(copy), "--quiet", *flags])
                        ratio = f"{rows[-1][1] / row[0]:.2f}x" if "dask" in label else ""
                        rows.append((label, *row[:3], len(metrics(copy)), row[3], ratio))
                    same_metrics.append(metrics(scored["score, dask --local 2"]) == metrics(scored["score, local, 2 workers"]))
        finally:
            cluster.close()
        print(f"srbf dask suite: linear on {rows[0][4]} problems, one draw, 512 + 512 points; {os.cpu_count()} cores")
        print(f"load average (1, 5, 15 min) before: {before}; after: {load()}")
        print(f"{'step':30} {'wall s':>7} {'CPU s':>7} {'peak MB':>8} {'items/s':>8} {'ratio':>6}   by process: n, CPU s, peak MB")
        for label, seconds, cpu, peak, items, roles, ratio in rows:
            split = "; ".join(f"{name} {n}, {c:.1f}, {p / 2**20:.0f}" for name, (n, c, p) in sorted(roles.items()))
            print(f"{label:30} {seconds:7.2f} {cpu:7.2f} {peak / 2**20:8.0f} {items / seconds:8.0f} {ratio:>6}   {split}")
        print("ratio: the local row's wall time (run just before) over the Dask row's")
        print("*: the cluster was started before the command; its workers' CPU and memory are not counted")
        if same_results:
            print(f"dask and local stored the same results (key, status, expression): {all(same_results)}")
        if same_metrics:
            print(f"dask and local stored the same metrics: {all(same_metrics)}")


if __name__ == "__main__":
    main()
