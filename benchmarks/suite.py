"""The whole suite on this machine: ``linear`` on every shipped problem (one draw), run, scored, analyzed.

    python benchmarks/suite.py [--limit N] [--skip-dask] [--repeat R] [--keep DIR]

Each step is the ``srbf`` command a user types, in a fresh process, on a fresh store:

- ``srbf run`` with the local executor and 1 and 2 workers, and on Dask two ways: with
  ``--executor dask --local 2`` (a 2-worker LocalCluster, started and stopped inside the timed
  command, as one command on a laptop would) and with ``--scheduler`` on a cluster already running
  (``dask scheduler`` and ``dask worker --nworkers 2 --nthreads 1``, started by hand once for the
  whole suite as docs/cluster.md starts them, with its settings file and preloads: Dask's
  throughput as a campaign's cluster gives it, the start-up paid once, not in every command);
- ``srbf score`` the same ways, on the store of the first run;
- ``srbf analyze`` on the store scored with 2 workers.

For each it prints the wall time, the CPU time of the whole process tree (user + system, of the
command and every descendant, including those it leaves behind, such as a fork server), the peak memory of that tree (the sum of their
proportional set sizes, PSS, from /proc: a page that forked processes share counts once, where
summing resident sets would count it in each; the tree is looked at every 20 ms, a process's PSS
read when its resident size has moved, the tree has changed or 0.2 s have passed, see ``PeakPss``), the fits (or predictions)
per second, and the 2-worker speed-up over 1 worker. The machine's load average is printed before and after: on a
shared machine the wall times move with it, the CPU times and the ratios much less. Right before
each timed step, the same command runs once untimed on one problem per set (``Rehearsal``), so
that Python's bytecode is compiled and the files are in the page cache, as on a machine that has
just run srbf. A Dask row's ratio is its throughput against the local executor's with 2
workers, and the suite checks that all stored the same results (key, status, expression) and the
same metrics. On a ``--scheduler`` row the CPU column counts the running cluster's processes'
CPU while the command ran, and their peak memory is printed apart (on a campaign they are other
machines). With ``--repeat R`` every step runs R times,
round after round (each round the whole list, so that a moment of load hits every step rather
than one), and each row shows the medians, each ratio the median of the rounds' ratios and then
every round's; each round's wall times follow the table. It prints figures and asserts nothing.
Targets (issue 19): run < 6 s and >= 1.5x with 2 workers, score < 5 s with 2 workers, analyze < 2 s,
every step < 400 MB, Dask throughput >= 0.8x the local executor's with identical results (read on
the ``--scheduler`` rows; the ``--local`` rows also pay a cluster's start-up, about a second).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from srbf.judge.worker_modules import DASK_MODULES
from srbf.runs.fork_server import SLOT_MODULES


def _pss(pid: int) -> int:
    """Proportional set size of ``pid`` in bytes: its private pages plus its share of pages it
    shares (forked workers share most of their parent's), so a tree's sum counts each page once."""
    with open(f"/proc/{pid}/smaps_rollup") as handle:
        for line in handle:
            if line.startswith("Pss:"):
                return int(line.split()[1]) * 1024
    return 0


def _children() -> dict[int, list[int]]:
    """Each running process's children, by parent pid (Linux /proc)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # gone meanwhile
        children.setdefault(int(fields[1]), []).append(int(entry))
    return children


def _children_of(pid: int) -> list[int]:
    """The children of ``pid``, from each of its threads' ``children`` file (Linux 3.5+ with
    CONFIG_PROC_CHILDREN): a few small reads, where a scan of all of /proc costs about 2 ms, which
    every 20 ms was a tenth of a core taken from the command being measured."""
    found: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found  # gone meanwhile
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children") as handle:
                found.extend(int(child) for child in handle.read().split())
        except OSError:
            continue  # the thread ended meanwhile
    return found


_TASK_CHILDREN = os.path.exists(f"/proc/{os.getpid()}/task/{os.getpid()}/children")


def tree(root: int) -> list[int]:
    """Process ``root`` and all its descendants now (Linux /proc)."""
    children = None if _TASK_CHILDREN else _children()
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(_children_of(pid) if children is None else children.get(pid, []))
    return found


PAGE = os.sysconf("SC_PAGE_SIZE")


def _rss(pid: int) -> int:
    """Resident bytes of ``pid`` from /proc/PID/statm: a counter the kernel keeps, read without
    walking the process's pages (0 when it is gone)."""
    try:
        with open(f"/proc/{pid}/statm") as handle:
            return int(handle.read().split()[1]) * PAGE
    except (OSError, ValueError, IndexError):
        return 0


def _pss_now(pid: int) -> int:
    """``_pss(pid)``, 0 when it is gone."""
    try:
        return _pss(pid)
    except (OSError, ValueError):
        return 0


class PeakPss:
    """The peak PSS of a process tree, sampled cheaply. Reading a process's PSS (smaps_rollup)
    walks its pages under its memory-map lock: about 2 ms for each of analyze's three processes;
    read every 20 ms, that was a quarter of a core taken from the command measured (about 1.1 s of
    CPU beside a 3 s analyze, 0.55 s this way; the command's own CPU the same). So each sample reads every process's resident size (statm, a
    counter), and reads a process's PSS only when its resident size has moved by more than
    ``MOVED`` since its last reading or that reading is ``STALE`` seconds old (pages copied on
    write after a fork, or a sibling's exit, move PSS without moving resident size); every PSS
    is read again when a process starts or ends (a fork shares pages, an exit unshares them).
    The tree's PSS is the sum of the latest readings: each within 2 % of its resident size, or
    0.2 s old."""

    MOVED = 0.02
    STALE = 0.2

    def __init__(self) -> None:
        self.peak = 0
        self._read: dict[int, tuple[float, int, int]] = {}  # pid -> its last reading: time, resident bytes, PSS

    def sample(self, *roots: int) -> None:
        now = time.monotonic()
        resident = {pid: _rss(pid) for root in roots for pid in tree(root)}
        read = self._read if resident.keys() == self._read.keys() else {}
        for pid, rss in resident.items():
            last = read.get(pid)
            if last is None or abs(rss - last[1]) > self.MOVED * last[1] or now - last[0] >= self.STALE:
                read[pid] = (now, rss, _pss_now(pid))
        self._read = read
        self.peak = max(self.peak, sum(pss for _, _, pss in read.values()))


def _adopt_orphans() -> None:
    """Make this process the subreaper of what it starts (Linux ``PR_SET_CHILD_SUBREAPER``): a
    process a command leaves behind, such as the fork server of a Dask LocalCluster's workers,
    which the command never waits for, comes back here when the command ends, so that waiting
    for it (``_reap_orphans``) counts its CPU and its children's in ``RUSAGE_CHILDREN``."""
    import ctypes

    ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER


def _reap_orphans(kept: set[int]) -> None:
    """Wait for the processes a finished command left to this one (not those in ``kept``)."""
    for _ in range(100):
        orphans = set(_children().get(os.getpid(), [])) - kept
        if not orphans:
            return
        for pid in orphans:
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass  # not reparented here yet: look again


ENV = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_sampled(command: list[str], sample) -> float:
    """Run ``command``, calling ``sample(pid)`` every 20 ms while it runs; its wall time. Exits
    with the command's error output when it fails."""
    kept = set(_children().get(os.getpid(), []))
    started = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=ENV)
    done = threading.Event()

    def loop() -> None:
        while not done.is_set():
            sample(proc.pid)
            done.wait(0.02)

    sampler = threading.Thread(target=loop, daemon=True)
    sampler.start()
    _, err = proc.communicate()
    seconds = time.perf_counter() - started
    _reap_orphans(kept)
    done.set()
    sampler.join()
    if proc.returncode != 0:
        sys.exit(f"{' '.join(command)} failed ({proc.returncode}):\n{err}")
    return seconds


def timed(command: list[str], cluster: HandStartedCluster | None = None) -> tuple[float, float, int]:
    """Run ``command``; return its wall time, the CPU time of its process tree (with that of
    ``cluster``'s processes while it ran) and the peak memory (PSS) of that tree (the cluster's
    goes to ``cluster.peak``: its workers would be other machines')."""
    cpu = children_cpu() + (cluster.cpu() if cluster else 0.0)
    peak = PeakPss()

    def sample(pid: int) -> None:
        peak.sample(pid)
        if cluster is not None:
            cluster.peak.sample(*cluster.pids)

    seconds = run_sampled(command, sample)
    return seconds, children_cpu() + (cluster.cpu() if cluster else 0.0) - cpu, peak.peak


def _cpu_of(pid: int) -> float:
    """CPU seconds of ``pid`` and of its children it has waited for (0 when it is gone)."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return sum(int(value) for value in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def lean_config() -> str:
    """``srbf.runs.dask_cluster.LEAN_SETTINGS`` as the Dask settings file docs/cluster.md has users
    write for workers they start by hand."""
    import yaml

    from srbf.runs.dask_cluster import LEAN_SETTINGS

    nested: dict = {}
    for key, value in LEAN_SETTINGS.items():
        *path, last = key.split(".")
        node = nested
        for part in path:
            node = node.setdefault(part, {})
        node[last] = value
    return yaml.safe_dump(nested)


class HandStartedCluster:
    """A scheduler and two single-threaded workers, started as docs/cluster.md starts them by hand
    (``dask scheduler``, ``dask worker`` with its settings file and preloads) in processes of their
    own, before the commands that use them: Dask's throughput on a cluster already running, as a
    campaign meets it, without the start-up that ``--local`` pays inside every command. Its
    processes' CPU while a command runs is counted with the command's; their peak memory while
    commands run is ``peak`` (on a campaign they are other machines)."""

    def __init__(self, folder: Path) -> None:
        (folder / "dask-config").mkdir(exist_ok=True)
        (folder / "dask-config" / "srbf.yaml").write_text(lean_config())
        env = {**ENV, "DASK_CONFIG": str(folder / "dask-config")}
        dask = str(Path(sys.executable).with_name("dask"))
        address_file = folder / "scheduler.json"
        address_file.unlink(missing_ok=True)
        self._log = open(folder / "cluster.log", "w")  # noqa: SIM115 - open while the cluster runs
        self.processes: list[subprocess.Popen] = []
        try:
            self.processes.append(subprocess.Popen([dask, "scheduler", "--host", "127.0.0.1", "--port", "0",
                                                    "--no-dashboard", "--scheduler-file", str(address_file)],
                                                   env=env, stdout=self._log, stderr=self._log))  # fmt: skip
            self.address = self._address(address_file)
            preloads = [flag for module in ("srbf.runs.dask_cluster", *SLOT_MODULES, *DASK_MODULES)
                        for flag in ("--preload", module)]  # fmt: skip
            self.processes.append(subprocess.Popen([dask, "worker", self.address, "--nworkers", "2", "--nthreads", "1",
                                                    "--memory-limit", "0", "--no-dashboard", *preloads],
                                                   env=env, stdout=self._log, stderr=self._log))  # fmt: skip
            from distributed import Client

            with Client(self.address, timeout="60s") as client:
                client.wait_for_workers(2, timeout=60)
        except (OSError, TimeoutError) as error:
            self.close()
            sys.exit(f"the suite's Dask cluster did not start ({error}); see {folder / 'cluster.log'}")
        self.pids = [process.pid for process in self.processes]
        self.peak = PeakPss()

    @staticmethod
    def _address(address_file: Path) -> str:
        """The scheduler's address, once it has written its scheduler file (within 60 s)."""
        import json

        for _ in range(600):
            if address_file.exists() and address_file.stat().st_size:
                return json.loads(address_file.read_text())["address"]
            time.sleep(0.1)
        raise TimeoutError("dask scheduler wrote no address within 60 s")

    def cpu(self) -> float:
        """CPU seconds of the cluster's processes so far."""
        return sum(_cpu_of(pid) for root in self.pids for pid in tree(root))

    def close(self) -> None:
        for process in reversed(self.processes):
            process.terminate()
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        self._log.close()


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def write_config(folder: Path, limit: int | None, name: str = "suite.yaml") -> Path:
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
    path = folder / name
    path.write_text("\n".join(lines) + "\n")
    return path


def stored(store: Path) -> list[tuple]:
    conn = sqlite3.connect(f"file:{store / 'srbf.sqlite'}?mode=ro", uri=True)
    try:
        return sorted(conn.execute("SELECT catalog, problem_id, status, expression FROM predictions").fetchall())
    finally:
        conn.close()


def metrics(store: Path) -> list[tuple]:
    conn = sqlite3.connect(f"file:{store / 'srbf.sqlite'}?mode=ro", uri=True)
    try:
        return sorted(conn.execute(
            "SELECT p.catalog, p.problem_id, m.metrics FROM metrics m JOIN predictions p ON p.id = m.prediction_id"
        ).fetchall())  # fmt: skip
    finally:
        conn.close()


class Rehearsal:
    """Each timed command is run once untimed just before, with the same flags, on one problem per
    set: Python's bytecode is compiled, a running cluster has served that command before, and the
    files the command reads are in the page cache, as on a machine that has just run srbf. The
    rehearsal is right before each step, not once at the start, because this development host pages
    out what nobody touched for about a minute (a DAMON ``pageout`` scheme: memory idle for 12
    aggregation intervals of 5 s, at up to 128 MB/s, page cache included, with 22 GB free) and reads
    its disk at tens of ms a request: ``srbf analyze``, whose libraries the run and score steps do
    not touch, measured 3-9 s in the suite (2.5-3.3 s of CPU) and 20-36 s once after a large write,
    against 1.5-2.1 s warm. The rehearsal commands run without PYTHONDONTWRITEBYTECODE."""

    def __init__(self, srbf: list[str], folder: Path) -> None:
        self.srbf, self.folder = srbf, folder
        self.config = write_config(folder, 1, name="rehearsal.yaml")
        self.unscored, self.scored = folder / "rehearsal-unscored", folder / "rehearsal-scored"
        for store in (self.unscored, self.scored):
            shutil.rmtree(store, ignore_errors=True)
        self._srbf("run", "-c", str(self.config), "--results", str(self.unscored), "--quiet")
        shutil.copytree(self.unscored, self.scored)
        self._srbf("score", "--results", str(self.scored), "--quiet")

    def before(self, command: str, flags: list[str]) -> None:
        """Rehearse ``srbf COMMAND FLAGS`` (run, score or analyze)."""
        scratch = self.folder / "rehearsal"
        shutil.rmtree(scratch, ignore_errors=True)
        if command == "run":
            self._srbf("run", "-c", str(self.config), "--results", str(scratch), "--quiet", *flags)
        elif command == "score":
            shutil.copytree(self.unscored, scratch)
            self._srbf("score", "--results", str(scratch), "--quiet", *flags)
        else:
            self._srbf("analyze", "--results", str(self.scored), "-o", str(scratch), *flags)

    def _srbf(self, *arguments: str) -> None:
        subprocess.run([*self.srbf, *arguments], check=True, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def one_round(
    srbf: list[str], folder: Path, config: Path, cluster: HandStartedCluster | None, rehearsal: Rehearsal
) -> tuple[list[tuple], bool | None, bool]:
    """Every step once, each on a fresh store in ``folder``: the rows (step, seconds, CPU
    seconds, peak bytes, items), whether Dask stored what the local executor stored (None without
    Dask) and whether every scoring pass stored the same metrics. ``cluster``: the running
    cluster of the ``--scheduler`` rows (None: no Dask rows)."""
    rows: list[tuple[str, float, float, int, int]] = []
    local = ["--executor", "dask", "--local", "2"]
    running = [] if cluster is None else ["--executor", "dask", "--scheduler", cluster.address]
    runs = [("run, local, 1 worker", ["--workers", "1"]), ("run, local, 2 workers", ["--workers", "2"])]
    scores = [("score, 1 worker", ["--workers", "1"]), ("score, 2 workers", ["--workers", "2"])]
    if cluster is not None:
        runs += [("run, dask --local 2", local), ("run, dask --scheduler, 2 workers *", running)]
        scores += [("score, dask --local 2", local), ("score, dask --scheduler, 2 workers *", running)]
    stores = {}
    for label, flags in runs:
        store = folder / _folder_name(label)
        rehearsal.before("run", flags)
        seconds, cpu, peak = timed([*srbf, "run", "-c", str(config), "--results", str(store), "--quiet", *flags],
                                   cluster if "--scheduler" in flags else None)  # fmt: skip
        stores[label] = store
        rows.append((label, seconds, cpu, peak, len(stored(store))))
    first = stores[runs[0][0]]
    scored = {}
    for label, flags in scores:
        copy = folder / _folder_name(label)
        subprocess.run(["cp", "-r", str(first), str(copy)], check=True)
        rehearsal.before("score", flags)
        seconds, cpu, peak = timed([*srbf, "score", "--results", str(copy), "--quiet", *flags],
                                   cluster if "--scheduler" in flags else None)  # fmt: skip
        scored[label] = copy
        rows.append((label, seconds, cpu, peak, len(metrics(copy))))
    analyzed = scored["score, 2 workers"]
    rehearsal.before("analyze", [])
    seconds, cpu, peak = timed([*srbf, "analyze", "--results", str(analyzed), "-o", str(folder / "report")])
    rows.append(("analyze", seconds, cpu, peak, len(stored(analyzed))))
    same_results = None
    if cluster is not None:
        same_results = all(stored(stores[label]) == stored(stores[runs[1][0]]) for label, _ in runs[2:])
    same_metrics = all(metrics(scored[label]) == metrics(scored[scores[0][0]]) for label, _ in scores[1:])
    return rows, same_results, same_metrics


def _folder_name(label: str) -> str:
    """``score, dask --local 2`` -> ``score-dask-local-2``."""
    return "-".join("".join(c if c.isalnum() else " " for c in label).split())


def ratios(rows: list[tuple]) -> dict[str, float]:
    """Per row of one round: the 2-worker speed-up over 1 worker, or Dask's throughput over the
    local executor's with 2 workers (its wall time over Dask's)."""
    by = {label: seconds for label, seconds, *_ in rows}
    found = {}
    for label, seconds, *_ in rows:
        if label.endswith("2 workers") and label.startswith(("run, local", "score, 2")):
            found[label] = by[label.replace("2 workers", "1 worker")] / seconds
        elif label.startswith("run, dask"):
            found[label] = by["run, local, 2 workers"] / seconds
        elif label.startswith("score, dask"):
            found[label] = by["score, 2 workers"] / seconds
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, help="the first N problems of each set (default: all)")
    parser.add_argument("--skip-dask", action="store_true", help="leave out the Dask rows")
    parser.add_argument("--repeat", type=int, default=1, metavar="R",
                        help="run every step R times, round after round, and print medians (default: 1)")  # fmt: skip
    parser.add_argument("--keep", type=Path, help="keep the stores and reports here (default: a temporary folder)")
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error(f"--repeat: must be a positive integer, got {args.repeat}")
    _adopt_orphans()
    srbf = [sys.executable, "-m", "srbf.cli"]
    with tempfile.TemporaryDirectory(prefix="srbf-suite-") as scratch:
        folder = args.keep or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        cluster = None if args.skip_dask else HandStartedCluster(folder)
        try:
            rehearsal = Rehearsal(srbf, folder)
            before = load()
            config = write_config(folder, args.limit)
            rounds = []
            for index in range(args.repeat):
                where = folder if args.repeat == 1 else folder / f"round-{index + 1}"
                where.mkdir(parents=True, exist_ok=True)
                rounds.append(one_round(srbf, where, config, cluster, rehearsal))
        finally:
            if cluster is not None:
                cluster.close()
        cluster_peak = 0 if cluster is None else cluster.peak.peak

    first = rounds[0][0]
    print(f"srbf suite: linear on {first[0][4]} problems, one draw, 512 + 512 points; {os.cpu_count()} cores"
          + (f"; medians of {args.repeat} rounds (ratio: median, then each round's)" if args.repeat > 1 else ""))  # fmt: skip
    print(f"load average (1, 5, 15 min) before: {before}; after: {load()}")
    print(f"{'step':38} {'wall s':>8} {'CPU s':>8} {'peak MB':>8} {'items/s':>8} {'ratio':>7}")
    each = [ratios(rows) for rows, *_ in rounds]
    for position, (label, *_, items) in enumerate(first):
        seconds = statistics.median(rows[position][1] for rows, *_ in rounds)
        cpu = statistics.median(rows[position][2] for rows, *_ in rounds)
        peak = max(rows[position][3] for rows, *_ in rounds)
        ratio = f"{statistics.median(r[label] for r in each):.2f}x" if label in each[0] else ""
        spread = " ".join(f"{r[label]:.2f}" for r in each) if label in each[0] and args.repeat > 1 else ""
        print(f"{label:38} {seconds:8.2f} {cpu:8.2f} {peak / 2**20:8.0f} {items / seconds:8.0f} {ratio:>7} {spread}")
    print("ratio: 2 workers' speed-up over 1; for Dask, its throughput over the local executor's with 2 workers")
    if args.repeat > 1:
        print("wall s of each round:")
        for position, (label, *_) in enumerate(first):
            print(f"  {label:36} " + " ".join(f"{rows[position][1]:6.2f}" for rows, *_ in rounds))
    if not args.skip_dask:
        print("*: on a cluster already running (dask scheduler and dask worker, started by hand as docs/cluster.md does);")
        print("   its processes' CPU while the command ran is counted with the command's; their peak memory"
              f" (PSS of the scheduler, workers and nannies) was {cluster_peak / 2**20:.0f} MB")
        print(f"dask and local stored the same results (key, status, expression): {all(r[1] for r in rounds)}")
    print(f"every scoring pass stored the same metrics: {all(r[2] for r in rounds)}")


if __name__ == "__main__":
    main()
