"""Fault probes: each faulty method of tests/faults on its own ``srbf run``, several times; prints
the probe table (probe, tries, failures, the first failure's reason).

A try fails when the run does not exit 0, when a fit is lost or stored twice, when problem 1 is
not recorded with the status and reason of tests/faults/fault_table.py (text repaired and
flagged where it had to be, within half the time limit where the channel broke), when problem 2
(the honest answer after the fault) is not ``ok``, or when a stored text is not valid UTF-8 or an
internals value is not standard JSON. ``--pythonpath`` runs another checkout's srbf (e.g. main's
``src``) against the same probes, for a before/after table.

Run: python benchmarks/fault_probes.py [--tries 2] [--only NAME ...] [--pythonpath DIR]
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "faults"))

from fault_run import faulty_method, srbf, write_config  # noqa: E402
from fault_table import FAULTS, PROMPT, SANITIZED  # noqa: E402

TIME_LIMIT = 3.0


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tries", type=int, default=2)
    parser.add_argument("--only", nargs="*", default=None)
    parser.add_argument("--pythonpath", default=None, help="run the srbf found here (e.g. /work/main/src)")
    args = parser.parse_args()
    faults = args.only or sorted(FAULTS)
    total_failures, failing = 0, 0
    started = time.perf_counter()
    print("| probe | tries | failures | first failure |\n| --- | ---: | ---: | --- |")
    for fault in faults:
        failures, first = 0, ""
        for _ in range(args.tries):
            with tempfile.TemporaryDirectory() as folder:
                outcome = probe(fault, Path(folder), args.pythonpath)
            if outcome:
                failures += 1
                first = first or outcome
        total_failures += failures
        failing += failures > 0
        print(f"| {fault} | {args.tries} | {failures} | {first.replace('|', '/')} |", flush=True)
    print(f"\n{len(faults)} probes x {args.tries} tries: {total_failures} failed tries, {failing} probes "
          f"failing, in {time.perf_counter() - started:.0f} s")  # fmt: skip


if __name__ == "__main__":
    main()
