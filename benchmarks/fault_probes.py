"""Fault probes: each faulty method of tests/faults on its own ``srbf run``, several times, and a
few probes of the commands around it; prints the probe table (probe, tries, failures, the first
failure's reason).

A try fails when the run does not exit 0, when a fit is lost or stored twice, when problem 1 is
not recorded with the status and reason of tests/faults/fault_table.py (text repaired and
flagged where it had to be, within half the time limit where the channel broke), when problem 2
(the honest answer after the fault) is not ``ok``, or when a stored text is not valid UTF-8 or an
internals value is not standard JSON. The other probes: ``srbf check`` on a method whose expression
or exception carries a lone surrogate (must report the broken step, exit 1), ``srbf run`` of a
method whose ``setup`` raises with one (must stop with a one-line error, exit 2), and a method
that always crashes (stopped after as many abnormal ends as docs/running.md says). ``--pythonpath`` runs another checkout's srbf (e.g. main's
``src``) against the same probes, for a before/after table.

Run: python benchmarks/fault_probes.py [--tries 2] [--only NAME ...] [--pythonpath DIR]
"""

from __future__ import annotations

import argparse
import json
import re
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "faults"))

from fault_run import faulty_method, srbf, stored, write_config  # noqa: E402
from fault_table import FAULTS, PROMPT, SANITIZED  # noqa: E402

TIME_LIMIT = 3.0
RUNNING_MD = Path(__file__).resolve().parents[1] / "docs" / "running.md"


def _refuse(name):
    raise ValueError(f"non-standard JSON constant {name}")


def probe(fault: str, folder: Path, pythonpath: str | None) -> str:
    """'' when srbf handled ``fault`` as it must, else what went wrong (one line)."""
    config = write_config(folder, [faulty_method([fault], time_limit=TIME_LIMIT)], problems=2)
    try:
        done = srbf("run", "-c", str(config), "--quiet", timeout=120, pythonpath=pythonpath)
    except Exception as error:  # noqa: BLE001 - a hung run is a failed probe
        return f"srbf run did not finish: {type(error).__name__}"
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["(no output)"])[-1]
        return f"exit {done.returncode}: {last[:120]}"
    path = folder / "results" / "srbf.sqlite"
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    conn.text_factory = bytes
    rows = conn.execute("SELECT problem_id, status, expression, error, internals, wall_seconds FROM predictions").fetchall()
    conn.close()
    if sorted(r[0] for r in rows) != [b"p001", b"p002"]:
        return f"stored problems {sorted(r[0] for r in rows)}, expected p001 and p002 once each"
    try:
        decoded = {r[0].decode(): [v.decode("utf-8") if isinstance(v, bytes) else v for v in r[1:]] for r in rows}
        for values in decoded.values():
            values[3] = json.loads(values[3], parse_constant=_refuse)
    except (UnicodeDecodeError, ValueError) as error:
        return f"stored text is not UTF-8 / standard JSON: {error}"[:140]
    status, expression, error, internals, wall = decoded["p001"]
    want_status, want_reason = FAULTS[fault]
    if status != want_status or want_reason not in (error or ""):
        return f"recorded {status}: {(error or '').splitlines()[0][:100] if error else ''}"
    if fault in SANITIZED and not any(n.startswith(SANITIZED[fault] + ":") for n in internals.get("srbf_sanitized", [])):
        return "repaired text not flagged"
    if fault in PROMPT and not wall < TIME_LIMIT / 2:
        return f"recorded after {wall:.1f} s (time limit {TIME_LIMIT:g} s)"
    if decoded["p002"][:2] != ["ok", "x + 2"]:
        return f"the fit after the fault: {decoded['p002'][0]}"
    return ""


def probe_check(fault: str, step: str, folder: Path, pythonpath: str | None) -> str:
    config = write_config(folder, [faulty_method([fault])], problems=2)
    done = srbf("check", "-c", str(config), timeout=120, pythonpath=pythonpath)
    if done.returncode != 1 or f"FAILED  {step}" not in done.stdout or done.stderr.strip():
        last = (done.stderr.strip().splitlines() or done.stdout.strip().splitlines() or ["(no output)"])[-1]
        return f"exit {done.returncode}: {last[:120]}"
    return ""


def probe_setup(folder: Path, pythonpath: str | None) -> str:
    method = folder / "bad_setup.py"
    method.write_text("def setup(options):\n    raise RuntimeError('no \\ud800 here')\n\n"
                      "def fit(X, y, *, budget, seed, variables, options, report):\n    return {'expression': 'x'}\n")  # fmt: skip
    config = write_config(folder, [{"name": "bad", "adapter": {"type": "file", "path": str(method)}}], problems=2)
    done = srbf("run", "-c", str(config), "--quiet", timeout=120, pythonpath=pythonpath)
    first = (done.stderr.splitlines() or [""])[0]
    if done.returncode != 2 or not first.startswith("srbf: error: bad") or "UnicodeEncodeError" in done.stderr:
        return f"exit {done.returncode}: {done.stderr.strip().splitlines()[-1][:120] if done.stderr.strip() else ''}"
    return ""


def probe_retired(folder: Path, pythonpath: str | None) -> str:
    documented = int(re.search(r"after (\d+) abnormal ends in a row", RUNNING_MD.read_text()).group(1))
    method = folder / "always_crash.py"
    method.write_text("import os\n\ndef fit(X, y, *, budget, seed, variables, options, report):\n    os._exit(7)\n")
    config = write_config(folder, [{"name": "crash", "adapter": {"type": "file", "path": str(method)}}], problems=8)
    done = srbf("run", "-c", str(config), "--quiet", timeout=300, pythonpath=pythonpath)
    died = sum(1 for (error,) in stored(folder / "results", "error") if error.startswith(b"the worker process died"))
    if done.returncode != 0 or died != documented:
        return f"exit {done.returncode}; stopped after {died} abnormal ends, docs/running.md says {documented}"
    return ""


OTHER_PROBES = {
    "srbf check: poisoned expression": lambda folder, path: probe_check("poison_expression", "parse", folder, path),
    "srbf check: poisoned exception": lambda folder, path: probe_check("raise_poison", "fit", folder, path),
    "srbf run: poisoned setup error": probe_setup,
    "worker stopped after the documented abnormal ends": probe_retired,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tries", type=int, default=2)
    parser.add_argument("--only", nargs="*", default=None)
    parser.add_argument("--pythonpath", default=None, help="run the srbf found here (e.g. /work/main/src)")
    args = parser.parse_args()
    probes = {name: (lambda folder, path, name=name: probe(name, folder, path)) for name in sorted(FAULTS)}
    probes.update(OTHER_PROBES)
    names = args.only or list(probes)
    total_failures, failing = 0, 0
    started = time.perf_counter()
    print("| probe | tries | failures | first failure |\n| --- | ---: | ---: | --- |")
    for name in names:
        failures, first = 0, ""
        for _ in range(args.tries):
            with tempfile.TemporaryDirectory() as folder:
                outcome = probes[name](Path(folder), args.pythonpath)
            if outcome:
                failures += 1
                first = first or outcome
        total_failures += failures
        failing += failures > 0
        print(f"| {name} | {args.tries} | {failures} | {first.replace('|', '/')} |", flush=True)
    print(f"\n{len(names)} probes x {args.tries} tries: {total_failures} failed tries, {failing} probes "
          f"failing, in {time.perf_counter() - started:.0f} s")  # fmt: skip


if __name__ == "__main__":
    main()
