"""What does the damaged-cell check cost? A store of N predictions, checked and read.

``ResultsStore`` scans every table once before its first read (``srbf.store.cells``) so that a
cell of the wrong type is named in one line. Prints the seconds of that scan next to reading the
predictions into a frame (what every reading command does anyway), for N predictions.

Run: python benchmarks/store_cells.py [--rows 200000]
"""

from __future__ import annotations

import argparse
import sqlite3
import tempfile
import time
from pathlib import Path

from srbf.store import ResultsStore
from srbf.store.cells import check_cells

COLUMNS = ("campaign_id, method, config_hash, catalog, catalog_version, problem_id, draw, budget, condition, seed,"
           " repeat, provenance, status, expression, error, wall_seconds, cpu_seconds, method_seconds, data_hash,"
           " internals, stderr_tail, created_at, inputs_hash")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200_000)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp())
    with ResultsStore(folder) as store:
        campaign = store.start_campaign("bench", {}, "h", "harness_tuned", git=None)
    rows = [(campaign, "m", "h", "c", 1, f"p{i}", 0, 1.0, "n_support=512;noise=0", 0, 0, "harness_tuned", "ok",
             "x0 + 1", None, 0.1, 0.1, None, "hash", "{}", "", "2026-01-01", None) for i in range(args.rows)]
    conn = sqlite3.connect(folder / "srbf.sqlite")
    conn.executemany(f"INSERT INTO predictions ({COLUMNS}) VALUES ({', '.join('?' * 23)})", rows)
    conn.commit()
    conn.close()
    path = folder / "srbf.sqlite"
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    started = time.perf_counter()
    check_cells(conn, path)
    scan = time.perf_counter() - started
    conn.close()
    with ResultsStore.open_readonly(folder) as store:
        started = time.perf_counter()
        store.predictions_frame(decode_json=False)  # the check, then the read
        frame = time.perf_counter() - started - scan
    print(f"{args.rows:,} predictions: cell check {scan:.3f} s, predictions frame {frame:.3f} s "
          f"(the check adds {100 * scan / frame:.0f} % to a full read)")


if __name__ == "__main__":
    main()
